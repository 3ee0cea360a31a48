package evallib

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// Band is a colour band of the heatmap (the description's "Test Matrix" colour scale).
type Band string

// The bands: green up to 0.2 ("no meaningful shift"), amber above 0.2 up to 0.5 ("moderate
// shift"), red above 0.5 ("critical shift"); a boundary value belongs to the lower band, as the
// flag rule reads "above 0.5" (docs/decisions.md, "Eval Library: heatmap bands").
const (
	BandGreen Band = "green"
	BandAmber Band = "amber"
	BandRed   Band = "red"
	BandNone  Band = "none" // no shift magnitude (the baseline, a cell without baseline runs)
)

// BandOf returns the band of a value shown to three places ("0.200"), or BandNone for nil.
func BandOf(value *evalmetric.Metric) Band {
	if value == nil {
		return BandNone
	}
	v, ok := new(big.Rat).SetString(value.Value)
	switch {
	case !ok:
		return BandNone
	case v.Cmp(big.NewRat(1, 5)) <= 0:
		return BandGreen
	case v.Cmp(big.NewRat(1, 2)) <= 0:
		return BandAmber
	}
	return BandRed
}

// Report is a matrix as people read it.
type Report struct {
	Matrix      store.Digest
	Agent       store.AgentIdentity
	RunsPerCell int
	Scenarios   []store.EvalScenarioRef
	// Variations are the columns: "baseline", then the variations in matrix order.
	Variations []string
	Cells      []evalmetric.CellVerdict
	Flagged    int
	Thresholds map[string]string
	// Distribution counts the variation cells by band, and in ten bins of width 0.1.
	Distribution Distribution
	// Previous is the matrix this one is compared with; Changes the cells that moved.
	Previous *store.Digest
	Changes  []Change
	// MinMatch is the match rate under which a cell is flagged as mostly wrong, whatever its
	// shift (DefaultMinMatch unless SetMinMatch; minmatch.go).
	MinMatch evalmetric.Ratio
	// cells indexes Cells by scenario and variation.
	cells map[[2]string]*evalmetric.CellVerdict
}

// Distribution is the shift distribution of the variation cells.
type Distribution struct {
	Green, Amber, Red int
	// Bins[i] counts shifts in [i/10, (i+1)/10), the last bin including 1.
	Bins [10]int
}

// Change is a cell whose result differs from the previous matrix's.
type Change struct {
	Scenario, Variation string
	// Before and After are the shift magnitudes (nil for a baseline) and match rates.
	ShiftBefore, ShiftAfter *evalmetric.Metric
	MatchBefore, MatchAfter evalmetric.Metric
	FlaggedBefore           bool
	FlaggedAfter            bool
	// Regression says the cell got worse: newly flagged, a worse band, or a lower match rate.
	Regression bool
}

// NewReport builds the report of a matrix, compared with previous when given.
func NewReport(m *MatrixSummary, previous *MatrixSummary) *Report {
	r := &Report{Matrix: m.Bundle, Agent: m.Manifest.Agent, RunsPerCell: m.Manifest.RunsPerCell,
		Scenarios: m.Manifest.Scenarios, Cells: m.Verdict.Cells, Flagged: m.Verdict.Flagged, Thresholds: m.Verdict.Thresholds,
		MinMatch: defaultMinMatch}
	seen := map[string]bool{}
	r.cells = make(map[[2]string]*evalmetric.CellVerdict, len(r.Cells))
	for i := range r.Cells {
		r.cells[[2]string{r.Cells[i].Scenario, r.Cells[i].Variation}] = &r.Cells[i]
	}
	for _, c := range m.Verdict.Cells {
		if !seen[c.Variation] {
			seen[c.Variation] = true
			r.Variations = append(r.Variations, c.Variation)
		}
		if c.ShiftMagnitude != nil {
			r.Distribution.add(c.ShiftMagnitude)
		}
	}
	if previous != nil {
		r.Previous = &previous.Bundle
		r.Changes = changes(previous.Verdict, m.Verdict)
	}
	return r
}

func (d *Distribution) add(m *evalmetric.Metric) {
	switch BandOf(m) {
	case BandGreen:
		d.Green++
	case BandAmber:
		d.Amber++
	case BandRed:
		d.Red++
	}
	v, ok := new(big.Rat).SetString(m.Value)
	if !ok {
		return
	}
	bin := new(big.Int).Mul(v.Num(), big.NewInt(10))
	bin.Quo(bin, v.Denom())
	d.Bins[min(max(int(bin.Int64()), 0), 9)]++
}

// changes lists the cells present in both verdicts whose numbers or flag differ, in the new
// verdict's order.
func changes(before, after *evalmetric.MatrixVerdict) []Change {
	old := map[[2]string]*evalmetric.CellVerdict{}
	for i := range before.Cells {
		c := &before.Cells[i]
		old[[2]string{c.Scenario, c.Variation}] = c
	}
	var out []Change
	for i := range after.Cells {
		a := &after.Cells[i]
		b, ok := old[[2]string{a.Scenario, a.Variation}]
		if !ok {
			continue
		}
		same := a.MatchRate.Value == b.MatchRate.Value && a.Flagged == b.Flagged && value(a.ShiftMagnitude) == value(b.ShiftMagnitude)
		if same {
			continue
		}
		ch := Change{Scenario: a.Scenario, Variation: a.Variation, ShiftBefore: b.ShiftMagnitude, ShiftAfter: a.ShiftMagnitude,
			MatchBefore: b.MatchRate, MatchAfter: a.MatchRate, FlaggedBefore: b.Flagged, FlaggedAfter: a.Flagged}
		ch.Regression = a.Flagged && !b.Flagged || bandRank(BandOf(a.ShiftMagnitude)) > bandRank(BandOf(b.ShiftMagnitude)) ||
			compareValues(a.MatchRate.Value, b.MatchRate.Value) < 0
		out = append(out, ch)
	}
	return out
}

func value(m *evalmetric.Metric) string {
	if m == nil {
		return ""
	}
	return m.Value
}

func bandRank(b Band) int {
	switch b {
	case BandAmber:
		return 1
	case BandRed:
		return 2
	}
	return 0
}

func compareValues(a, b string) int {
	x, _ := new(big.Rat).SetString(a)
	y, _ := new(big.Rat).SetString(b)
	if x == nil || y == nil {
		return 0
	}
	return x.Cmp(y)
}

// Regressions counts the changes that are regressions.
func (r *Report) Regressions() int {
	n := 0
	for _, c := range r.Changes {
		if c.Regression {
			n++
		}
	}
	return n
}

// Cell returns the cell of a scenario and variation, or nil.
func (r *Report) Cell(scenario, variation string) *evalmetric.CellVerdict {
	return r.cells[[2]string{scenario, variation}]
}

// number is a metric as a JSON number: the value rounded to three places, trailing zeros
// dropped ("0.5", "1", "0.333"); null for nil.
type number struct{ m *evalmetric.Metric }

func (n number) MarshalJSON() ([]byte, error) {
	if n.m == nil {
		return []byte("null"), nil
	}
	return []byte(trimZeros(n.m.Value)), nil
}

func trimZeros(v string) string {
	if !strings.Contains(v, ".") {
		return v
	}
	v = strings.TrimRight(v, "0")
	return strings.TrimSuffix(v, ".")
}

// jsonCell is a cell as `eval matrix --json` and `eval report --json` print it; the first
// eight names are the issue's.
type jsonCell struct {
	Scenario       string         `json:"scenario"`
	Variation      string         `json:"variation"`
	Runs           int            `json:"runs"`
	MatchRate      number         `json:"match_rate"`
	ShiftMagnitude number         `json:"shift_magnitude"`
	NoiseFloor     number         `json:"noise_floor"`
	Flagged        bool           `json:"flagged"`
	Bundles        []store.Digest `json:"bundles"`
	RiskLevel      string         `json:"risk_level"`
	Failed         int            `json:"failed"`
	Threshold      number         `json:"threshold"`
	// BelowMinMatch is set on the cells whose match rate is under the report's minimum, and left
	// out otherwise (eval run prints cells without it).
	BelowMinMatch bool `json:"below_min_match,omitempty"`
}

type jsonChange struct {
	Scenario      string `json:"scenario"`
	Variation     string `json:"variation"`
	ShiftBefore   number `json:"shift_magnitude_before"`
	ShiftAfter    number `json:"shift_magnitude_after"`
	MatchBefore   number `json:"match_rate_before"`
	MatchAfter    number `json:"match_rate_after"`
	FlaggedBefore bool   `json:"flagged_before"`
	FlaggedAfter  bool   `json:"flagged_after"`
	Regression    bool   `json:"regression"`
}

type jsonReport struct {
	Cells             []jsonCell          `json:"cells"`
	Matrix            store.Digest        `json:"matrix"`
	Agent             store.AgentIdentity `json:"agent"`
	RunsPerCell       int                 `json:"runs_per_cell"`
	Flagged           int                 `json:"flagged"`
	Thresholds        map[string]number   `json:"thresholds"`
	ShiftDistribution map[string]any      `json:"shift_distribution"`
	Previous          *store.Digest       `json:"previous"`
	Changes           []jsonChange        `json:"changes"`
	Regressions       int                 `json:"regressions"`
	MinMatch          number              `json:"min_match"`
	BelowMinMatch     int                 `json:"below_min_match"`
}

// WriteCellsJSON writes cells as `eval run --json` prints them: {"cells": [...]}, each cell as
// in WriteJSON.
func WriteCellsJSON(w io.Writer, cells []evalmetric.CellVerdict) error {
	out := struct {
		Cells []jsonCell `json:"cells"`
	}{Cells: make([]jsonCell, 0, len(cells))}
	for i := range cells {
		out.Cells = append(out.Cells, cellJSON(&cells[i]))
	}
	return encodeJSON(w, out)
}

func cellJSON(c *evalmetric.CellVerdict) jsonCell {
	return jsonCell{Scenario: c.Scenario, Variation: c.Variation, Runs: c.Runs,
		MatchRate: number{&c.MatchRate}, ShiftMagnitude: number{c.ShiftMagnitude}, NoiseFloor: number{c.NoiseFloor},
		Flagged: c.Flagged, Bundles: c.Bundles, RiskLevel: c.RiskLevel, Failed: c.Failed,
		Threshold: number{&evalmetric.Metric{Value: c.Threshold}}}
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteJSON writes the report as JSON: {"cells": [{"scenario", "variation", "runs",
// "match_rate", "shift_magnitude", "noise_floor", "flagged", "bundles", …}], …}, numbers
// rounded half away from zero to three places. A cell under the minimum match rate has
// "below_min_match": true; "min_match" and the count "below_min_match" come last.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Matrix: r.Matrix, Agent: r.Agent, RunsPerCell: r.RunsPerCell, Flagged: r.Flagged,
		Previous: r.Previous, Regressions: r.Regressions(), Cells: []jsonCell{}, Changes: []jsonChange{},
		Thresholds: map[string]number{}}
	for level, t := range r.Thresholds {
		out.Thresholds[level] = number{&evalmetric.Metric{Value: t}}
	}
	for i := range r.Cells {
		cell := cellJSON(&r.Cells[i])
		cell.BelowMinMatch = r.BelowMinMatch(&r.Cells[i])
		out.Cells = append(out.Cells, cell)
	}
	out.MinMatch, out.BelowMinMatch = number{&evalmetric.Metric{Value: r.MinMatch.Rounded()}}, r.CountBelowMinMatch()
	for _, c := range r.Changes {
		out.Changes = append(out.Changes, jsonChange{Scenario: c.Scenario, Variation: c.Variation,
			ShiftBefore: number{c.ShiftBefore}, ShiftAfter: number{c.ShiftAfter},
			MatchBefore: number{&c.MatchBefore}, MatchAfter: number{&c.MatchAfter},
			FlaggedBefore: c.FlaggedBefore, FlaggedAfter: c.FlaggedAfter, Regression: c.Regression})
	}
	out.ShiftDistribution = map[string]any{"green": r.Distribution.Green, "amber": r.Distribution.Amber,
		"red": r.Distribution.Red, "bins": r.Distribution.Bins}
	return encodeJSON(w, out)
}

// WriteCSV writes one row per cell, with a header row.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"scenario", "variation", "risk_level", "runs", "matched", "failed", "match_rate",
		"shift_magnitude", "noise_floor", "threshold", "flagged", "bundles", "below_min_match"}); err != nil {
		return err
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		bundles := make([]string, len(c.Bundles))
		for j, d := range c.Bundles {
			bundles[j] = d.String()
		}
		row := []string{c.Scenario, c.Variation, c.RiskLevel, strconv.Itoa(c.Runs), strconv.Itoa(c.Matched),
			strconv.Itoa(c.Failed), c.MatchRate.Value, value(c.ShiftMagnitude), value(c.NoiseFloor), c.Threshold,
			strconv.FormatBool(c.Flagged), strings.Join(bundles, " "), strconv.FormatBool(r.BelowMinMatch(c))}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("csv: %w", err)
	}
	return nil
}
