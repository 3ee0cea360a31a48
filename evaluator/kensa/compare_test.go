package kensa

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// asKensaResult is the result Kensa would have written for r, with edit applied to its
// fields: what an audit compares r with.
func asKensaResult(r *Result, edit map[string]pyvalue.Value) pyvalue.Value {
	checks := make([]pyvalue.Value, len(r.CheckResults))
	for i, c := range r.CheckResults {
		detail := pyvalue.NewStr(c.Detail)
		if d, ok := edit["detail"]; ok && i == 0 {
			detail = d
		}
		passed := pyvalue.NewBool(c.Passed)
		if p, ok := edit["passed"]; ok && i == 0 {
			passed = p
		}
		checks[i] = pyvalue.NewDict([]string{"check", "passed", "detail", "scores", "diagnostics"},
			[]pyvalue.Value{pyvalue.NewStr(c.Check), passed, detail, scoresValue(c.Scores), c.Diagnostics})
	}
	fields := map[string]pyvalue.Value{"scenario_id": pyvalue.NewStr(r.ScenarioID), "status": pyvalue.NewStr(AsKensa(r.Status)),
		"expected": optStr(r.Expected), "check_results": pyvalue.NewList(checks), "metrics": metricsValue(r),
		"trace": traceValue(r.Trace), "error": optStr(r.Error)}
	for k, v := range edit {
		if _, ok := fields[k]; ok {
			fields[k] = v
		}
	}
	keys := []string{"scenario_id", "status", "expected", "check_results", "trace", "metrics", "error"}
	vals := make([]pyvalue.Value, len(keys))
	for i, k := range keys {
		vals[i] = fields[k]
	}
	return pyvalue.NewDict(keys, vals)
}

func scenarioOf(t *testing.T, yaml string) *kensa.Scenario {
	t.Helper()
	sc, err := kensa.ParseScenario("s.yaml", []byte("id: s\nname: s\nrun_command: [agent]\n"+yaml))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Differences of wording only — Python's error text where this evaluator has Go's, Kensa's
// "No judge model" error where the run is pending — leave the result reproduced; anything
// else that differs (an outcome, a number, a text of Kensa's own) does not.
func TestCompareWording(t *testing.T) {
	spans, err := kensa.ReadTrace("t", []byte(refundTrace))
	if err != nil {
		t.Fatal(err)
	}
	criteria := scenarioOf(t, "checks:\n  - type: tools_called\n    params: {tools: [refund_order]}\ncriteria: Polite.\n")
	badRegex := scenarioOf(t, "checks:\n  - type: output_matches\n    params: {pattern: \"(refunded\"}\n")
	plain := scenarioOf(t, "checks:\n  - type: tools_called\n    params: {tools: [refund_order]}\n")
	judgeFailed := &Evidence{Scenario: criteria, HasTrace: true, Spans: spans, Judgement: &Judgement{Source: "judge-cmd", Failed: "judge command exited with status 4"}}
	noJudge := "Judge error: No judge model available. Set one of: …"
	str := pyvalue.NewStr
	tests := []struct {
		name       string
		ev         *Evidence
		edit       map[string]pyvalue.Value
		reproduced bool
		wording    int // differences of wording only
	}{
		{"identical", &Evidence{Scenario: plain, HasTrace: true, Spans: spans}, nil, true, 0},
		{"pending, Kensa had no judge", &Evidence{Scenario: criteria, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"error": str(noJudge)}, true, 1},
		{"pending, Kensa passed it", &Evidence{Scenario: criteria, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"status": str("pass")}, false, 0},
		{"pending, another error", &Evidence{Scenario: criteria, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"error": str("Scenario subprocess exited with code 3.")}, false, 0},
		{"invalid regex in Python's words", &Evidence{Scenario: badRegex, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"detail": str("Invalid regex '(refunded': missing ), unterminated subpattern at position 0")}, true, 0},
		{"invalid regex in another Python's words", &Evidence{Scenario: badRegex, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"detail": str("Invalid regex '(refunded': missing ), unterminated subpattern")}, true, 1},
		{"invalid regex, another pattern", &Evidence{Scenario: badRegex, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"detail": str("Invalid regex '(refund': missing ), unterminated subpattern at position 0")}, false, 0},
		{"invalid regex, Kensa passed it", &Evidence{Scenario: badRegex, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"passed": pyvalue.NewBool(true), "status": str("pass"),
				"detail": str("Invalid regex '(refunded': missing ), unterminated subpattern at position 0")}, false, 0},
		{"a detail of Kensa's own words", &Evidence{Scenario: plain, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"detail": str("All expected tools called: ['refund']")}, false, 0},
		{"unreadable trace in Python's words", &Evidence{Scenario: plain, HasTrace: true, TracePath: "t.jsonl", TraceError: "t.jsonl:2:1: invalid character"},
			map[string]pyvalue.Value{"error": str("Failed to read trace 't.jsonl': Expecting value: line 1 column 1 (char 0)")}, true, 1},
		{"the judge command failed, Kensa's client too", judgeFailed,
			map[string]pyvalue.Value{"error": str("Judge error: Connection error.")}, true, 1},
		{"a number", &Evidence{Scenario: plain, HasTrace: true, Spans: spans},
			map[string]pyvalue.Value{"trace": pyvalue.NewDict([]string{"path", "llm_calls", "tool_calls", "total_tokens", "cost_usd", "duration_seconds"},
				[]pyvalue.Value{str(""), pyvalue.NewInt(3), pyvalue.NewInt(2), pyvalue.NewInt(480), pyvalue.NewFloat(0.002), pyvalue.NewFloat(1.5)})}, false, 0},
	}
	for _, tt := range tests {
		r := Evaluate(tt.ev)
		diffs := Compare(r, asKensaResult(r, tt.edit))
		wording := 0
		for _, d := range diffs {
			if d.Wording != "" {
				wording++
				if d.Decisive {
					t.Errorf("%s: a decisive difference is never wording: %+v", tt.name, d)
				}
			}
		}
		if Reproduced(diffs) != tt.reproduced || wording != tt.wording {
			t.Errorf("%s: reproduced %v with %d of wording, want %v with %d: %+v", tt.name, Reproduced(diffs), wording, tt.reproduced, tt.wording, diffs)
		}
	}
}
