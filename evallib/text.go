package evallib

import (
	"io"
	"strings"
	"unicode/utf8"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/internal/textout"
)

// bandStyle is how a band is drawn in a terminal: an ANSI colour, and a marker for plain text
// (NO_COLOR, or not a terminal), so the band is readable without colour.
var bandStyle = map[Band]struct{ ansi, marker string }{
	BandGreen: {"\x1b[30;42m", "G"},
	BandAmber: {"\x1b[30;43m", "A"},
	BandRed:   {"\x1b[97;41m", "R"},
	BandNone:  {"", " "},
}

const (
	ansiReset  = "\x1b[0m"
	cellWidth  = 10
	nameWidth  = 32
	flagMarker = "!"
	// lowMatchMarker follows the flag marker in a cell whose match rate is under the report's
	// minimum: the shift alone would draw a cell whose every answer is wrong, alike, as green.
	lowMatchMarker = "✗"
)

// gridCell is what a grid draws in one cell.
type gridCell struct {
	text     string
	band     Band
	flagged  bool
	lowMatch bool
}

// WriteText writes the report for a terminal: the shift-magnitude heatmap (numbers always
// shown, coloured by band when color is set, else followed by the band's marker; "!" after a
// flagged cell, "✗" after a cell whose match rate is under the minimum), the match rates, the
// flagged cells, the cells under the minimum match rate and the changes since the previous
// matrix.
func (r *Report) WriteText(w io.Writer, color bool) error {
	p := textout.New(w)
	minMatch := r.MinMatch.Rounded()
	p.Line("Matrix %s: agent %s, %d runs per cell, %d scenarios × %d variations",
		r.Matrix.Short(), agentName(r), r.RunsPerCell, len(r.Scenarios), len(r.Variations)-1)
	p.Line("\nShift magnitude (mean distance to the baseline runs; 0 = identical, 1 = completely different)")
	r.writeGrid(p, color, func(c *evalmetric.CellVerdict) gridCell {
		if c.Variation == "baseline" {
			return gridCell{text: value(c.NoiseFloor), band: BandNone, lowMatch: r.BelowMinMatch(c)}
		}
		return gridCell{text: value(c.ShiftMagnitude), band: BandOf(c.ShiftMagnitude), flagged: c.Flagged, lowMatch: r.BelowMinMatch(c)}
	}, "noise")
	p.Line("  %s green ≤ 0.2 no meaningful shift   %s amber ≤ 0.5 moderate shift   %s red > 0.5 critical shift   %s flagged   %s match rate below %s",
		swatch(BandGreen, color), swatch(BandAmber, color), swatch(BandRed, color), flagMarker, lowMatchMarker, minMatch)
	p.Line("  the baseline column shows the noise floor: the mean distance between baseline runs")
	p.Line("\nMatch rate (runs whose answer holds every expected value)")
	r.writeGrid(p, false, func(c *evalmetric.CellVerdict) gridCell {
		return gridCell{text: c.MatchRate.Value, band: BandNone, lowMatch: r.BelowMinMatch(c)}
	}, "baseline")
	p.Line("\n%d flagged cell(s) (thresholds: critical %s, high %s, medium %s, low %s)", r.Flagged,
		r.Thresholds["critical"], r.Thresholds["high"], r.Thresholds["medium"], r.Thresholds["low"])
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Flagged {
			p.Line("  %s / %s: shift %s above %s (%s), review item %s", c.Scenario, c.Variation,
				c.ShiftMagnitude.Value, c.Threshold, c.RiskLevel, ReviewItemID(c))
		}
	}
	p.Line("\n%d cell(s) with a match rate below %s (--min-match)", r.CountBelowMinMatch(), minMatch)
	for i := range r.Cells {
		c := &r.Cells[i]
		if r.BelowMinMatch(c) {
			p.Line("  %s / %s: match rate %s (%d of %d runs matched)", c.Scenario, c.Variation, c.MatchRate.Value, c.Matched, c.Runs)
		}
	}
	r.writeChanges(p)
	return p.Err()
}

func agentName(r *Report) string {
	if r.Agent.Version == "" {
		return r.Agent.Name
	}
	return r.Agent.Name + " " + r.Agent.Version
}

func (r *Report) writeChanges(p *textout.Writer) {
	if r.Previous == nil {
		return
	}
	p.Line("\nCompared with the previous matrix %s: %d changed cell(s), %d regression(s)",
		r.Previous.Short(), len(r.Changes), r.Regressions())
	for _, c := range r.Changes {
		mark := " "
		if c.Regression {
			mark = "▼"
		}
		p.Line("  %s %s / %s: shift %s → %s, match rate %s → %s%s", mark, c.Scenario, c.Variation,
			orDash(value(c.ShiftBefore)), orDash(value(c.ShiftAfter)), c.MatchBefore.Value, c.MatchAfter.Value,
			flagChange(c))
	}
}

func flagChange(c Change) string {
	switch {
	case c.FlaggedAfter && !c.FlaggedBefore:
		return ", newly flagged"
	case c.FlaggedBefore && !c.FlaggedAfter:
		return ", no longer flagged"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// writeGrid writes one row per scenario and one column per variation.
func (r *Report) writeGrid(p *textout.Writer, color bool, cell func(*evalmetric.CellVerdict) gridCell, baselineHeader string) {
	var head strings.Builder
	head.WriteString(pad("scenario", nameWidth) + " " + pad("risk", 8))
	for _, v := range r.Variations {
		name := v
		if v == "baseline" {
			name = baselineHeader
		}
		head.WriteString(" " + pad(abbreviate(name, cellWidth), cellWidth))
	}
	p.Line("%s", strings.TrimRight(head.String(), " "))
	for _, s := range r.Scenarios {
		var row strings.Builder
		row.WriteString(pad(abbreviate(s.Name, nameWidth), nameWidth) + " " + pad(s.RiskLevel, 8))
		for _, v := range r.Variations {
			c := r.Cell(s.ID, v)
			if c == nil {
				row.WriteString(" " + pad("", cellWidth))
				continue
			}
			row.WriteString(" " + drawCell(cell(c), color))
		}
		p.Line("%s", strings.TrimRight(row.String(), " "))
	}
}

// drawCell draws a value in a cell of cellWidth columns: "0.120 G !✗" in plain text, the
// number on its band's colour otherwise, then the flag and the low-match markers.
func drawCell(c gridCell, color bool) string {
	marks := " "
	if c.flagged {
		marks = flagMarker
	}
	if c.lowMatch {
		marks += lowMatchMarker
	} else {
		marks += " "
	}
	text := orDash(c.text)
	style := bandStyle[c.band]
	if color && style.ansi != "" {
		return style.ansi + pad(" "+text, cellWidth-3) + ansiReset + " " + marks
	}
	return pad(text+" "+style.marker+" "+marks, cellWidth)
}

func swatch(b Band, color bool) string {
	if color {
		return bandStyle[b].ansi + "  " + ansiReset
	}
	return bandStyle[b].marker
}

// abbreviate cuts s to width runes, marking the cut with "…".
func abbreviate(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	runes := []rune(s)
	return string(runes[:width-1]) + "…"
}

func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
