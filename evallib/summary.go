package evallib

import (
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// RunRow is one run of a matrix, as the API lists runs.
type RunRow struct {
	Scenario       string       `json:"scenario"`
	Variation      string       `json:"variation"`
	Run            int          `json:"run"`
	Bundle         store.Digest `json:"bundle"`
	Status         string       `json:"status"`
	Matched        bool         `json:"matched"`
	Flagged        bool         `json:"flagged"`
	MatchRate      number       `json:"match_rate"`
	ShiftMagnitude number       `json:"shift_magnitude"`
}

// RunFilter selects runs; empty fields select everything.
type RunFilter struct {
	Scenario, Variation string
	// Flagged is "true" or "false" (the run's cell is flagged or not), Status "ok" or "failed".
	Flagged, Status string
}

// Runs lists the runs of a matrix that pass the filter, in cell order then run order.
func (m *MatrixSummary) Runs(f RunFilter) []RunRow {
	rows := []RunRow{}
	for i := range m.Verdict.Cells {
		c := &m.Verdict.Cells[i]
		if f.Scenario != "" && c.Scenario != f.Scenario || f.Variation != "" && c.Variation != f.Variation ||
			f.Flagged != "" && (f.Flagged == "true") != c.Flagged {
			continue
		}
		for j, d := range c.Bundles {
			status := store.EvalRunOK
			if j < len(c.RunFailed) && c.RunFailed[j] {
				status = store.EvalRunFailed
			}
			if f.Status != "" && f.Status != status {
				continue
			}
			rows = append(rows, RunRow{Scenario: c.Scenario, Variation: c.Variation, Run: j + 1, Bundle: d, Status: status,
				Matched: j < len(c.RunMatched) && c.RunMatched[j], Flagged: c.Flagged,
				MatchRate: number{&c.MatchRate}, ShiftMagnitude: number{c.ShiftMagnitude}})
		}
	}
	return rows
}

// Summary is the dashboard of a matrix: match rates, the shift distribution, the flagged
// count and the review queue's states. Matrix and Agent are null before the store holds a
// matrix (EmptySummary). Match rates are fractions from 0 to 1, not percentages
// (docs/decisions.md, "Eval Library API: numbers and units").
type Summary struct {
	Matrix            *store.Digest        `json:"matrix"`
	Agent             *store.AgentIdentity `json:"agent"`
	Scenarios         int                  `json:"scenarios"`
	Cells             int                  `json:"cells"`
	Runs              int                  `json:"runs"`
	MatchRate         summaryRates         `json:"match_rate"`
	ShiftDistribution map[string]any       `json:"shift_distribution"`
	Flagged           int                  `json:"flagged"`
	Review            map[string]int       `json:"review"`
}

type summaryRates struct {
	Overall     number            `json:"overall"`
	Baseline    number            `json:"baseline"`
	Variations  number            `json:"variations"`
	ByVariation map[string]number `json:"by_variation"`
}

// Summarize builds the dashboard of m; reviews are every review item.
func Summarize(m *MatrixSummary, reviews []ReviewItem) *Summary {
	r := NewReport(m, nil)
	s := emptySummary(reviews)
	s.Matrix, s.Agent, s.Scenarios, s.Cells = &m.Bundle, &m.Manifest.Agent, len(m.Manifest.Scenarios), len(m.Verdict.Cells)
	s.Flagged = m.Verdict.Flagged
	s.ShiftDistribution = map[string]any{"green": r.Distribution.Green, "amber": r.Distribution.Amber, "red": r.Distribution.Red, "bins": r.Distribution.Bins}
	var all, base, vars tally
	by := map[string]*tally{}
	for i := range m.Verdict.Cells {
		c := &m.Verdict.Cells[i]
		s.Runs += c.Runs
		all.add(c)
		if c.Variation == store.EvalBaseline {
			base.add(c)
		} else {
			vars.add(c)
		}
		if by[c.Variation] == nil {
			by[c.Variation] = &tally{}
		}
		by[c.Variation].add(c)
	}
	s.MatchRate = summaryRates{Overall: all.rate(), Baseline: base.rate(), Variations: vars.rate(), ByVariation: map[string]number{}}
	for v, t := range by {
		s.MatchRate.ByVariation[v] = t.rate()
	}
	return s
}

// EmptySummary is the dashboard of a store without a matrix: no matrix, zero counts, null
// rates, an empty distribution, and the review queue as it is (a dashboard's first call on a
// fresh store answers, as the runs list does).
func EmptySummary(reviews []ReviewItem) *Summary {
	return emptySummary(reviews)
}

func emptySummary(reviews []ReviewItem) *Summary {
	s := &Summary{Review: map[string]int{store.EvalReviewOpen: 0, store.EvalReviewAcknowledged: 0, store.EvalReviewResolved: 0},
		ShiftDistribution: map[string]any{"green": 0, "amber": 0, "red": 0, "bins": [10]int{}},
		MatchRate:         summaryRates{ByVariation: map[string]number{}}}
	for _, it := range reviews {
		s.Review[it.State]++
	}
	return s
}

// tally counts matched runs over runs.
type tally struct{ matched, runs int }

func (t *tally) add(c *evalmetric.CellVerdict) { t.matched += c.Matched; t.runs += c.Runs }

func (t *tally) rate() number {
	if t.runs == 0 {
		return number{}
	}
	q := evalmetric.NewRatio(int64(t.matched), int64(t.runs))
	return number{&evalmetric.Metric{Value: q.Rounded(), Fraction: q.Fraction()}}
}
