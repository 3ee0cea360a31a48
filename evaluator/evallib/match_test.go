package evallib

import (
	"bytes"
	"testing"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

func parse(t *testing.T, s string) *doc.Node {
	t.Helper()
	n, err := doc.ParseJSON("t.json", []byte(s), doc.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMatch(t *testing.T) {
	expected := `{"action":"escalate","priority":2,"plan":{"rollback":true},"tags":["a","b"],"meta":{},"none":null}`
	tests := []struct {
		name   string
		answer string
		want   bool
	}{
		{"exact", expected, true},
		{"extra fields and other order", `{"none":null,"meta":{"x":1},"tags":["b","a","a"],"plan":{"rollback":true,"why":"x"},"priority":2.0,"action":"escalate","extra":1}`, true},
		{"number by decimal value", `{"action":"escalate","priority":2e0,"plan":{"rollback":true},"tags":["a","b"],"meta":{},"none":null}`, true},
		{"string is exact", `{"action":"Escalate","priority":2,"plan":{"rollback":true},"tags":["a","b"],"meta":{},"none":null}`, false},
		{"number is not a string", `{"action":"escalate","priority":"2","plan":{"rollback":true},"tags":["a","b"],"meta":{},"none":null}`, false},
		{"missing leaf", `{"action":"escalate","priority":2,"plan":{},"tags":["a","b"],"meta":{},"none":null}`, false},
		{"set differs", `{"action":"escalate","priority":2,"plan":{"rollback":true},"tags":["a"],"meta":{},"none":null}`, false},
		{"object expected, array given", `{"action":"escalate","priority":2,"plan":{"rollback":true},"tags":["a","b"],"meta":[],"none":null}`, false},
		{"null is not absent", `{"action":"escalate","priority":2,"plan":{"rollback":true},"tags":["a","b"],"meta":{}}`, false},
	}
	exp := parse(t, expected)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, checks := Match(exp, evalfmt.ParseAnswer([]byte(tt.answer)))
			if got != tt.want {
				t.Errorf("Match = %v, want %v; checks %+v", got, tt.want, checks)
			}
			if len(checks) != 6 {
				t.Errorf("%d checks, want one per expected leaf", len(checks))
			}
		})
	}
	if got, _ := Match(exp, evalfmt.ParseAnswer([]byte("escalate, priority 2"))); got {
		t.Error("a text answer matched")
	}
}

func TestBehaviourDistanceFromAnswers(t *testing.T) {
	a := BehaviourOf(evalfmt.ParseAnswer([]byte(`{"action":"x","priority":"high","rollback":true}`)))
	b := BehaviourOf(evalfmt.ParseAnswer([]byte(`{"rollback":true,"priority":"high","action":"y"}`)))
	if d := Distance(a, b).Fraction(); d != "1/3" {
		t.Errorf("D = %s, want 1/3 (the issue's example)", d)
	}
	text := BehaviourOf(evalfmt.ParseAnswer([]byte("not json")))
	if d := Distance(a, text).Fraction(); d != "1/1" {
		t.Errorf("D(json, text) = %s", d)
	}
	nested := BehaviourOf(evalfmt.ParseAnswer([]byte(`{"steps":[{"tool":"a"},{"tool":"b"}],"n":1.50}`)))
	nested2 := BehaviourOf(evalfmt.ParseAnswer([]byte(`{"steps":[{"tool":"a"},{"tool":"c"}],"n":1.5}`)))
	if d := Distance(nested, nested2).Fraction(); d != "1/3" {
		t.Errorf("D(nested) = %s, want 1/3", d)
	}
}

func testRun(t *testing.T, status, answer string) *Run {
	t.Helper()
	s, err := evalfmt.ParseScenario("s.json", []byte(`{"name":"n","description":"","risk_level":"critical","input_context":{},"expected_behavior":{"action":"escalate","priority":"high"}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := &store.EvalRun{Scenario: s.Ref(), Variation: store.EvalVariationRef{ID: store.EvalBaseline}, Run: 1,
		Outcome: store.EvalOutcome{Status: status, Reason: "why"}}
	return &Run{Manifest: m, Scenario: s, Answer: []byte(answer)}
}

func TestEvaluateRun(t *testing.T) {
	v, f := EvaluateRun(testRun(t, store.EvalRunOK, `{"action":"escalate","priority":"high","note":"x"}`))
	if !v.Matched || !f.Matched || v.Answer != AnswerJSON || v.DistanceToExpected.Fraction != "1/3" || v.Leaves != 3 {
		t.Errorf("matching run: %+v", v)
	}
	v, f = EvaluateRun(testRun(t, store.EvalRunFailed, `{"action":"escalate","priority":"high"}`))
	if v.Matched || !f.Failed || v.Answer != AnswerNone || len(f.Behaviour.Leaves) != 0 || v.DistanceToExpected.Value != "1.000" || v.Reason != "why" {
		t.Errorf("failed run: %+v", v)
	}
	v, _ = EvaluateRun(testRun(t, store.EvalRunOK, "I escalate"))
	if v.Matched || v.Answer != AnswerText || v.Leaves != 1 {
		t.Errorf("text run: %+v", v)
	}
	// The same evidence gives the same verdict bytes, every time.
	first, _, err := store.Encode(mustVerdict(t, `{"action":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, _, _ := store.Encode(mustVerdict(t, `{"action":"x"}`))
		if !bytes.Equal(first, again) {
			t.Fatal("two evaluations of one run differ")
		}
	}
}

func mustVerdict(t *testing.T, answer string) *RunVerdict {
	v, _ := EvaluateRun(testRun(t, store.EvalRunOK, answer))
	return v
}
