package evallib

import (
	"fmt"
	"html/template"
	"io"
	"slices"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// Heatmap geometry, in SVG user units.
const (
	svgLabelWidth = 260
	svgCellWidth  = 96
	svgCellHeight = 50
	svgHeadHeight = 70
	// A cell is split: the shift on its band's fill above (svgShiftHeight), the match rate as a
	// bar below, whose filled part (of svgBarWidth) is the share of runs that matched; a cell under
	// the minimum match rate has its bar outlined in red.
	svgShiftHeight = 32
	svgBarWidth    = 94
)

// bandFill are the heatmap's colours.
var bandFill = map[Band]string{BandGreen: "#4caf50", BandAmber: "#ffb300", BandRed: "#e53935", BandNone: "#eceff1"}

type htmlCell struct {
	X, Y       int
	Text       string
	Fill       string
	Anchor     string
	Flagged    bool
	Title      string
	TextColour string
	// MatchY is the top of the match-rate bar, MatchWidth its filled part; LowMatch says the
	// match rate is under the minimum.
	MatchY, MatchWidth int
	MatchText          string
	LowMatch           bool
}

type htmlDetail struct {
	LowMatch  bool
	Anchor    string
	Cell      *evalmetric.CellVerdict
	Band      Band
	ReviewID  string
	Shift     string
	Noise     string
	Scenario  string
	Variation string
}

type htmlBar struct {
	X, Y, Height int
	Label        string
	Count        int
}

type htmlPage struct {
	R          *Report
	Title      string
	Width      int
	Height     int
	Columns    []htmlHeader
	Rows       []htmlHeader
	Cells      []htmlCell
	Details    []htmlDetail
	Bars       []htmlBar
	Legend     []htmlLegend
	Thresholds []string
	Generator  string
	// MinMatch is the minimum match rate as shown, LowMatch the cells under it.
	MinMatch string
	LowMatch int
}

type htmlHeader struct {
	X, Y int
	Text string
	Full string
}

type htmlLegend struct {
	X    int
	Fill string
	Text string
}

// WriteHTML writes the report as one self-contained HTML page: an inline SVG heatmap of the
// shift magnitudes with its legend, every cell linking to the digests of its run bundles, the
// match rates, the shift distribution, the flagged cells and the changes since the previous
// matrix. It loads nothing: no script, stylesheet, font or image from elsewhere, so it opens
// from a file.
func (r *Report) WriteHTML(w io.Writer) error {
	page := htmlPage{R: r, Title: "Eval Library matrix " + r.Matrix.Short(), Generator: "oasis-replay",
		MinMatch: r.MinMatch.Rounded(), LowMatch: r.CountBelowMinMatch()}
	page.Width = svgLabelWidth + svgCellWidth*len(r.Variations) + 10
	page.Height = svgHeadHeight + svgCellHeight*len(r.Scenarios) + 10
	for j, v := range r.Variations {
		text := v
		if v == store.EvalBaseline {
			text = "baseline (noise)"
		}
		page.Columns = append(page.Columns, htmlHeader{X: svgLabelWidth + j*svgCellWidth + svgCellWidth/2, Y: svgHeadHeight - 10,
			Text: abbreviate(text, 14), Full: v})
	}
	for i, s := range r.Scenarios {
		page.Rows = append(page.Rows, htmlHeader{X: svgLabelWidth - 8, Y: svgHeadHeight + i*svgCellHeight + svgShiftHeight/2 + 5,
			Text: abbreviate(s.Name, 34), Full: s.ID + " (" + s.RiskLevel + ")"})
		for j, v := range r.Variations {
			c := r.Cell(s.ID, v)
			if c == nil {
				continue
			}
			page.addCell(c, svgLabelWidth+j*svgCellWidth, svgHeadHeight+i*svgCellHeight, r.BelowMinMatch(c))
		}
	}
	for i, b := range []Band{BandGreen, BandAmber, BandRed} {
		page.Legend = append(page.Legend, htmlLegend{X: i * 190, Fill: bandFill[b],
			Text: map[Band]string{BandGreen: "0.0–0.2 no meaningful shift", BandAmber: "0.2–0.5 moderate shift", BandRed: "0.5–1.0 critical shift"}[b]})
	}
	most := 1
	for _, n := range r.Distribution.Bins {
		most = max(most, n)
	}
	for i, n := range r.Distribution.Bins {
		h := n * 120 / most
		page.Bars = append(page.Bars, htmlBar{X: 30 + i*44, Y: 140 - h, Height: h, Count: n, Label: fmt.Sprintf("0.%d", i)})
	}
	for _, level := range store.EvalRiskLevels {
		page.Thresholds = append(page.Thresholds, level+" "+r.Thresholds[level])
	}
	return reportTemplate.Execute(w, page)
}

func (p *htmlPage) addCell(c *evalmetric.CellVerdict, x, y int, lowMatch bool) {
	anchor := fmt.Sprintf("cell-%d", len(p.Details)+1)
	band, text := BandOf(c.ShiftMagnitude), value(c.ShiftMagnitude)
	if c.Variation == store.EvalBaseline {
		band, text = BandNone, value(c.NoiseFloor)
	}
	title := fmt.Sprintf("%s / %s: shift %s, match rate %s, %d runs", c.Scenario, c.Variation, orDash(value(c.ShiftMagnitude)), c.MatchRate.Value, c.Runs)
	if lowMatch {
		title += ", match rate below " + p.MinMatch
	}
	colour := "#000"
	if band == BandRed {
		colour = "#fff"
	}
	matched := 0
	if c.Runs > 0 {
		matched = svgBarWidth * c.Matched / c.Runs
	}
	p.Cells = append(p.Cells, htmlCell{X: x, Y: y, Text: orDash(text), Fill: bandFill[band], Anchor: anchor,
		Flagged: c.Flagged, Title: title, TextColour: colour,
		MatchY: y + svgShiftHeight + 1, MatchWidth: matched, MatchText: "match " + c.MatchRate.Value, LowMatch: lowMatch})
	d := htmlDetail{Anchor: anchor, Cell: c, Band: band, Shift: orDash(value(c.ShiftMagnitude)), Noise: orDash(value(c.NoiseFloor)),
		Scenario: c.Scenario, Variation: c.Variation, LowMatch: lowMatch}
	if c.Flagged {
		d.ReviewID = ReviewItemID(c)
	}
	p.Details = append(p.Details, d)
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
code { font-size: 0.85em; }
table { border-collapse: collapse; } td, th { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.flag { color: #b71c1c; font-weight: bold; }
.regression { color: #b71c1c; }
svg text { font-family: system-ui, sans-serif; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Agent <b>{{.R.Agent.Name}}{{if .R.Agent.Version}} {{.R.Agent.Version}}{{end}}</b>, {{.R.RunsPerCell}} run(s) per cell,
{{len .R.Scenarios}} scenario(s). Matrix bundle <code id="matrix">{{.R.Matrix}}</code>.
<b id="flagged-count">{{.R.Flagged}}</b> flagged cell(s) (thresholds: {{range $i, $t := .Thresholds}}{{if $i}}, {{end}}{{$t}}{{end}}).</p>

<h2>Shift magnitude</h2>
<p>Mean distance between a variation's answers and the baseline's (0 = identical, 1 = completely different).
The baseline column shows the noise floor: the mean distance between baseline runs. Each cell links to its run bundles.</p>
<svg id="heatmap" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="shift magnitude heatmap">
{{range .Columns}}<text x="{{.X}}" y="{{.Y}}" text-anchor="middle" font-size="12"><title>{{.Full}}</title>{{.Text}}</text>
{{end}}{{range .Rows}}<text x="{{.X}}" y="{{.Y}}" text-anchor="end" font-size="13"><title>{{.Full}}</title>{{.Text}}</text>
{{end}}{{range .Cells}}<a href="#{{.Anchor}}" class="cell"><title>{{.Title}}</title><rect x="{{.X}}" y="{{.Y}}" width="94" height="32" rx="3" fill="{{.Fill}}"{{if .Flagged}} stroke="#000" stroke-width="3"{{end}}></rect><text x="{{.X}}" dx="47" y="{{.Y}}" dy="21" text-anchor="middle" font-size="14" fill="{{.TextColour}}">{{.Text}}{{if .Flagged}} !{{end}}</text><g class="match{{if .LowMatch}} low{{end}}"><rect class="match-track" x="{{.X}}" y="{{.MatchY}}" width="94" height="14" fill="#eceff1"{{if .LowMatch}} stroke="#b71c1c" stroke-width="2"{{end}}></rect><rect class="match-bar" x="{{.X}}" y="{{.MatchY}}" width="{{.MatchWidth}}" height="14" fill="#90caf9"></rect><text x="{{.X}}" dx="47" y="{{.MatchY}}" dy="11" text-anchor="middle" font-size="10" fill="{{if .LowMatch}}#b71c1c{{else}}#000{{end}}">{{.MatchText}}{{if .LowMatch}} ✗{{end}}</text></g></a>
{{end}}</svg>
<svg id="legend" xmlns="http://www.w3.org/2000/svg" width="600" height="30" viewBox="0 0 600 30" role="img" aria-label="legend">
{{range .Legend}}<rect x="{{.X}}" y="6" width="18" height="18" fill="{{.Fill}}"></rect><text x="{{.X}}" dx="24" y="20" font-size="12">{{.Text}}</text>
{{end}}</svg>
<p>The bar under each cell is its match rate: the share of runs whose answer holds every expected value.
A thick border and "!" mark a flagged cell; a red outline and "✗" a match rate below <span id="min-match">{{.MinMatch}}</span>
(<b id="low-match-count">{{.LowMatch}}</b> cell(s)), however small the shift.</p>

<h2>Match rate</h2>
<table id="match-rates"><thead><tr><th>scenario</th><th>variation</th><th>match rate</th><th>runs</th><th>failed</th></tr></thead><tbody>
{{range .R.Cells}}<tr><td>{{.Scenario}}</td><td>{{.Variation}}</td><td class="num">{{.MatchRate.Value}}</td><td class="num">{{.Runs}}</td><td class="num">{{.Failed}}</td></tr>
{{end}}</tbody></table>

<h2>Shift distribution</h2>
<p>{{.R.Distribution.Green}} green, {{.R.Distribution.Amber}} amber, {{.R.Distribution.Red}} red variation cell(s).</p>
<svg id="distribution" xmlns="http://www.w3.org/2000/svg" width="480" height="170" viewBox="0 0 480 170" role="img" aria-label="shift distribution">
{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="36" height="{{.Height}}" fill="#607d8b"><title>{{.Count}}</title></rect><text x="{{.X}}" y="160" font-size="11">{{.Label}}</text>
{{end}}</svg>

{{if .R.Previous}}<h2>Changes since the previous matrix</h2>
<p>Compared with <code>{{.R.Previous}}</code>.</p>
<table id="changes"><thead><tr><th>scenario</th><th>variation</th><th>shift</th><th>match rate</th><th></th></tr></thead><tbody>
{{range .R.Changes}}<tr{{if .Regression}} class="regression"{{end}}><td>{{.Scenario}}</td><td>{{.Variation}}</td><td>{{with .ShiftBefore}}{{.Value}}{{else}}–{{end}} → {{with .ShiftAfter}}{{.Value}}{{else}}–{{end}}</td><td>{{.MatchBefore.Value}} → {{.MatchAfter.Value}}</td><td>{{if .Regression}}regression{{end}}</td></tr>
{{else}}<tr><td colspan="5">no change</td></tr>
{{end}}</tbody></table>{{end}}

<h2>Cells and their run bundles</h2>
{{range .Details}}<section id="{{.Anchor}}" class="detail">
<h3>{{.Scenario}} / {{.Variation}}{{if .Cell.Flagged}} <span class="flag">flagged</span>{{end}}{{if .LowMatch}} <span class="flag">match rate below {{$.MinMatch}}</span>{{end}}</h3>
<p>Risk {{.Cell.RiskLevel}}, threshold {{.Cell.Threshold}}. Match rate {{.Cell.MatchRate.Value}} ({{.Cell.Matched}}/{{.Cell.Runs}}), shift magnitude {{.Shift}}, noise floor {{.Noise}}.{{if .ReviewID}} Review item <code>{{.ReviewID}}</code>.{{end}}</p>
<ol class="bundles">{{range .Cell.Bundles}}<li><code>{{.}}</code></li>{{end}}</ol>
</section>
{{end}}
<p><small>Every number re-derives from the bundles: <code>oasis-replay replay {{.R.Matrix}}</code>.</small></p>
</body>
</html>
`))

// WriteReviewHTML writes the review queue as one self-contained HTML page: every item with its
// state, cell, shift magnitude, threshold, matrix and the last note, open items first.
func WriteReviewHTML(w io.Writer, items []ReviewItem) error {
	order := map[string]int{store.EvalReviewOpen: 0, store.EvalReviewAcknowledged: 1, store.EvalReviewResolved: 2}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b ReviewItem) int { return order[a.State] - order[b.State] })
	counts := map[string]int{}
	for _, it := range items {
		counts[it.State]++
	}
	return reviewTemplate.Execute(w, struct {
		Items  []ReviewItem
		Counts map[string]int
	}{sorted, counts})
}

var reviewTemplate = template.Must(template.New("review").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Eval Library review queue</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; } td, th { padding: 0.3em 0.7em; border-bottom: 1px solid #ddd; text-align: left; }
tr.open td.state { color: #b71c1c; font-weight: bold; } tr.acknowledged td.state { color: #e65100; } tr.resolved td.state { color: #2e7d32; }
code { font-size: 0.85em; }
</style>
</head>
<body>
<h1>Review queue</h1>
<p id="counts"><span id="open-count">{{index .Counts "open"}}</span> open, {{index .Counts "acknowledged"}} acknowledged, {{index .Counts "resolved"}} resolved.
Flagged cells enter the queue when a matrix is sealed; an item goes open → acknowledged → resolved.</p>
<table id="review-items"><thead><tr><th>item</th><th>state</th><th>scenario</th><th>variation</th><th>risk</th><th>shift</th><th>threshold</th><th>matrix</th><th>last note</th></tr></thead><tbody>
{{range .Items}}<tr class="{{.State}}" id="{{.Item}}"><td><code>{{.Item}}</code></td><td class="state">{{.State}}</td><td>{{.Scenario}}</td><td>{{.Variation}}</td><td>{{.RiskLevel}}</td><td>{{.Shift}}</td><td>{{.Threshold}}</td><td><code>{{.Matrix.Digest.Short}}</code></td><td>{{if .By}}{{.By}}: {{.Note}}{{end}}</td></tr>
{{else}}<tr><td colspan="9">The queue is empty.</td></tr>
{{end}}</tbody></table>
</body>
</html>
`))
