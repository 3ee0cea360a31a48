package evallib

import (
	"fmt"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// Answer kinds of a run verdict.
const (
	AnswerJSON = "json"
	AnswerText = "text"
	AnswerNone = "none" // a failed run: no behaviour
)

// RunVerdict is what the evaluator derives from one run bundle.
type RunVerdict struct {
	store.Header
	Scenario  string `json:"scenario"`
	Variation string `json:"variation"`
	Run       int    `json:"run"`
	// Status is the run's outcome: "ok", or "failed" (the agent did not answer within its
	// limits), in which case the run has no behaviour and does not match.
	Status string `json:"status"`
	// Reason says why a failed run failed, as recorded.
	Reason string `json:"reason,omitempty"`
	// Answer is AnswerJSON, AnswerText (an answer that is not JSON, kept as a string) or
	// AnswerNone.
	Answer  string      `json:"answer"`
	Matched bool        `json:"matched"`
	Checks  []LeafCheck `json:"checks"`
	// Leaves is the number of leaves of the answer.
	Leaves int `json:"leaves"`
	// DistanceToExpected is D(answer, expected_behavior): how far the answer is from the
	// contract, extra fields counted.
	DistanceToExpected Metric `json:"distance_to_expected"`
}

// ObjectKind implements store.Object: verdicts are stored as verdict objects.
func (*RunVerdict) ObjectKind() store.Kind { return store.KindVerdict }

// References implements store.Object: a verdict refers to nothing.
func (*RunVerdict) References() []store.Descriptor { return nil }

// Run is one recorded run as the evaluator reads it.
type Run struct {
	Bundle   store.Digest
	Manifest *store.EvalRun
	// Scenario is the scenario the run pins (from its definition).
	Scenario *evalfmt.Scenario
	// Answer is the answer's bytes, as recorded.
	Answer []byte
}

// EvaluateRun derives the verdict of one run, and the facts the matrix metrics need.
func EvaluateRun(r *Run) (*RunVerdict, RunFacts) {
	m := r.Manifest
	v := &RunVerdict{Scenario: m.Scenario.ID, Variation: m.Variation.ID, Run: m.Run, Status: m.Outcome.Status,
		Reason: m.Outcome.Reason, Answer: AnswerNone, Checks: []LeafCheck{}}
	facts := RunFacts{Run: m.Run, Bundle: r.Bundle, Failed: m.Outcome.Status != store.EvalRunOK}
	expected := behaviourOfNode(r.Scenario.ExpectedBehavior)
	var answer evalfmt.Answer
	if !facts.Failed {
		answer = evalfmt.ParseAnswer(r.Answer)
		v.Answer = AnswerJSON
		if answer.Node == nil {
			v.Answer = AnswerText
		}
		facts.Behaviour = BehaviourOf(answer)
	}
	matched, checks := Match(r.Scenario.ExpectedBehavior, answer)
	v.Checks = checks
	v.Matched = matched && !facts.Failed
	facts.Matched = v.Matched
	v.Leaves = len(facts.Behaviour.Leaves)
	v.DistanceToExpected = metricOf(Distance(facts.Behaviour, expected))
	return v, facts
}

// MatrixVerdict is what the evaluator derives from a matrix bundle: every cell's metrics, in
// the matrix's cell order.
type MatrixVerdict struct {
	store.Header
	Thresholds map[string]string `json:"thresholds"`
	Cells      []CellVerdict     `json:"cells"`
	// Flagged counts the flagged cells.
	Flagged int `json:"flagged"`
}

// ObjectKind implements store.Object.
func (*MatrixVerdict) ObjectKind() store.Kind { return store.KindVerdict }

// References implements store.Object.
func (*MatrixVerdict) References() []store.Descriptor { return nil }

// EvaluateMatrix derives the metrics of every cell of matrix m from its runs (every run of
// every cell, by bundle digest). Each variation cell is compared with the baseline cell of its
// scenario.
func EvaluateMatrix(m *store.EvalMatrix, runs map[store.Digest]*Run) (*MatrixVerdict, error) {
	t, err := ParseThresholds(m.Thresholds)
	if err != nil {
		return nil, err
	}
	risk := make(map[string]string, len(m.Scenarios))
	for _, s := range m.Scenarios {
		risk[s.ID] = s.RiskLevel
	}
	facts := make([][]RunFacts, len(m.Cells))
	baseline := map[string][]RunFacts{}
	for i, c := range m.Cells {
		for _, d := range c.Runs {
			r, ok := runs[d.Digest]
			if !ok {
				return nil, fmt.Errorf("%w: cell %s/%s: run %s was not given", ErrInput, c.Scenario, c.Variation, d.Digest)
			}
			if r.Manifest.Scenario.ID != c.Scenario || r.Manifest.Variation.ID != c.Variation {
				return nil, fmt.Errorf("%w: cell %s/%s lists run %s of %s/%s", ErrInput, c.Scenario, c.Variation,
					d.Digest, r.Manifest.Scenario.ID, r.Manifest.Variation.ID)
			}
			_, f := EvaluateRun(r)
			facts[i] = append(facts[i], f)
		}
		if c.Variation == store.EvalBaseline {
			baseline[c.Scenario] = facts[i]
		}
	}
	v := &MatrixVerdict{Thresholds: t.Map(), Cells: make([]CellVerdict, len(m.Cells))}
	for i, c := range m.Cells {
		v.Cells[i] = EvaluateCell(c.Scenario, c.Variation, risk[c.Scenario], facts[i], baseline[c.Scenario], t)
		if v.Cells[i].Flagged {
			v.Flagged++
		}
	}
	return v, nil
}
