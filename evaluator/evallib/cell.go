package evallib

import (
	"math/big"

	"github.com/oasis-replay/oasis-replay/store"
)

// RunFacts is what the cell metrics need of one run: whether it matched the expected behaviour
// and the behaviour it showed.
type RunFacts struct {
	Run       int
	Bundle    store.Digest
	Failed    bool
	Matched   bool
	Behaviour Behaviour
}

// Metric is a metric as verdicts keep it: the value rounded half away from zero to three
// places, and the exact fraction it was rounded from.
type Metric struct {
	Value    string `json:"value"`
	Fraction string `json:"fraction"`
}

func metricOf(q Ratio) Metric { return Metric{Value: q.Rounded(), Fraction: q.Fraction()} }

// PairDistance is D between two runs, by run number: a variation run and a baseline run (for
// a shift), or two baseline runs (for the noise floor).
type PairDistance struct {
	A        int    `json:"a"`
	B        int    `json:"b"`
	Distance Metric `json:"distance"`
}

// CellVerdict is what the evaluator derives for one cell of a matrix.
type CellVerdict struct {
	Scenario  string `json:"scenario"`
	Variation string `json:"variation"`
	RiskLevel string `json:"risk_level"`
	Runs      int    `json:"runs"`
	Matched   int    `json:"matched"`
	Failed    int    `json:"failed"`
	// MatchRate is matched runs / runs.
	MatchRate Metric `json:"match_rate"`
	// ShiftMagnitude is the mean of D(v, b) over the cell's runs v and the scenario's baseline
	// runs b; nil for the baseline cell, and when either side has no runs.
	ShiftMagnitude *Metric `json:"shift_magnitude,omitempty"`
	// NoiseFloor is the mean of D over pairs of distinct baseline runs of the scenario; nil
	// with fewer than two baseline runs.
	NoiseFloor *Metric `json:"noise_floor,omitempty"`
	// Threshold is the flag threshold of the scenario's risk level; Flagged says the shift
	// magnitude, as rounded, is above it.
	Threshold string `json:"threshold"`
	Flagged   bool   `json:"flagged"`
	// Bundles are the run bundles, by run number; RunMatched and RunFailed say, run by run,
	// whether it matched and whether it failed.
	Bundles    []store.Digest `json:"bundles"`
	RunMatched []bool         `json:"run_matched"`
	RunFailed  []bool         `json:"run_failed"`
	// Distances are every D the shift magnitude (variation cells) or the noise floor (the
	// baseline cell) averages, in order of run numbers.
	Distances []PairDistance `json:"distances"`
}

// EvaluateCell derives the metrics of one cell from its runs and the scenario's baseline runs
// (the same slice as runs for the baseline cell). Runs are taken in the order given.
func EvaluateCell(scenario, variation, risk string, runs, baseline []RunFacts, t Thresholds) CellVerdict {
	c := CellVerdict{Scenario: scenario, Variation: variation, RiskLevel: risk, Runs: len(runs),
		Threshold: t.For(risk).Rounded(), Bundles: make([]store.Digest, 0, len(runs)), Distances: []PairDistance{},
		RunMatched: make([]bool, 0, len(runs)), RunFailed: make([]bool, 0, len(runs))}
	for _, r := range runs {
		c.Bundles = append(c.Bundles, r.Bundle)
		c.RunMatched = append(c.RunMatched, r.Matched)
		c.RunFailed = append(c.RunFailed, r.Failed)
		if r.Matched {
			c.Matched++
		}
		if r.Failed {
			c.Failed++
		}
	}
	if rate, ok := mean(big.NewRat(int64(c.Matched), 1), len(runs)); ok {
		c.MatchRate = metricOf(rate)
	} else {
		c.MatchRate = metricOf(Ratio{})
	}
	noise, pairs := noiseFloor(baseline)
	if noise != nil {
		m := metricOf(*noise)
		c.NoiseFloor = &m
	}
	if variation == store.EvalBaseline {
		c.Distances = pairs
		return c
	}
	shift, pairs := shiftMagnitude(runs, baseline)
	c.Distances = pairs
	if shift != nil {
		m := metricOf(*shift)
		c.ShiftMagnitude = &m
		c.Flagged = t.Flagged(risk, *shift)
	}
	return c
}

// shiftMagnitude is the mean of D(v, b) over every variation run v and baseline run b.
func shiftMagnitude(runs, baseline []RunFacts) (*Ratio, []PairDistance) {
	sum := new(big.Rat)
	pairs := make([]PairDistance, 0, len(runs)*len(baseline))
	for i := range runs {
		for j := range baseline {
			d := Distance(runs[i].Behaviour, baseline[j].Behaviour)
			sum.Add(sum, &d.r)
			pairs = append(pairs, PairDistance{A: runs[i].Run, B: baseline[j].Run, Distance: metricOf(d)})
		}
	}
	q, ok := mean(sum, len(pairs))
	if !ok {
		return nil, pairs
	}
	return &q, pairs
}

// noiseFloor is the mean of D over the pairs of distinct baseline runs.
func noiseFloor(baseline []RunFacts) (*Ratio, []PairDistance) {
	sum := new(big.Rat)
	var pairs []PairDistance
	for i := range baseline {
		for j := i + 1; j < len(baseline); j++ {
			d := Distance(baseline[i].Behaviour, baseline[j].Behaviour)
			sum.Add(sum, &d.r)
			pairs = append(pairs, PairDistance{A: baseline[i].Run, B: baseline[j].Run, Distance: metricOf(d)})
		}
	}
	q, ok := mean(sum, len(pairs))
	if !ok {
		return nil, []PairDistance{}
	}
	return &q, pairs
}
