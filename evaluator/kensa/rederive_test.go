package kensa

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// A check this evaluator cannot evaluate as Kensa would makes the differences it decides
// not-re-derivable, with their cause, never a mismatch; a difference elsewhere still is one.
func TestCompareNotReDerivable(t *testing.T) {
	unsupported := CheckResult{Check: "output_matches", Detail: "Unsupported regex '(?<=a)b': lookbehind", Unsupported: true,
		Diagnostics: pyvalue.NewDict(nil, nil)}
	other := CheckResult{Check: "max_turns", Passed: true, Detail: "2 LLM calls <= 5", Diagnostics: pyvalue.NewDict(nil, nil)}
	msg := "a check could not be evaluated as Kensa would (see its detail)"
	derived := &Result{ScenarioID: "s", Status: StatusError, Error: &msg, CheckResults: []CheckResult{unsupported, other}}
	kensaSays := func(edit map[string]pyvalue.Value) pyvalue.Value {
		clean := &Result{ScenarioID: "s", Status: StatusPass, CheckResults: []CheckResult{
			{Check: "output_matches", Passed: true, Detail: "Matched: /(?<=a)b/", Diagnostics: pyvalue.NewDict(nil, nil)}, other}}
		return asKensaResult(clean, edit)
	}
	cases := []struct {
		name    string
		claimed pyvalue.Value
		outcome string
		// mismatch is the field of the one difference that stays a mismatch, "" for none.
		mismatch string
	}{
		{"Kensa's pass", kensaSays(nil), OutcomeNotReDerivable, ""},
		{"Kensa's fail of that check", kensaSays(map[string]pyvalue.Value{"status": pyvalue.NewStr("fail"), "passed": pyvalue.NewBool(false)}), OutcomeNotReDerivable, ""},
		{"a scenario id that differs", kensaSays(map[string]pyvalue.Value{"scenario_id": pyvalue.NewStr("t")}), OutcomeMismatch, "scenario_id"},
	}
	for _, c := range cases {
		diffs := Compare(derived, c.claimed)
		if got := Outcome(diffs); got != c.outcome {
			t.Errorf("%s: outcome %s, want %s (%+v)", c.name, got, c.outcome, diffs)
		}
		if Reproduced(diffs) {
			t.Errorf("%s: a result not re-derived is reported reproduced", c.name)
		}
		for _, d := range diffs {
			switch {
			case d.Field == c.mismatch:
				if d.NotReDerivable != "" {
					t.Errorf("%s: %s marked not re-derivable", c.name, d.Field)
				}
			case d.NotReDerivable == "":
				t.Errorf("%s: %s: a mismatch where the evaluator cannot re-derive (%+v)", c.name, d.Field, d)
			case !strings.Contains(d.NotReDerivable, "lookbehind"):
				t.Errorf("%s: %s: cause %q does not name what could not be evaluated", c.name, d.Field, d.NotReDerivable)
			}
		}
	}
	if got := Outcome(nil); got != OutcomeReproduced {
		t.Errorf("no differences: %s", got)
	}
	if got := Outcome([]Difference{{Field: "error", Wording: "w"}}); got != OutcomeReproduced {
		t.Errorf("wording only: %s", got)
	}
}

// A search stopped by the regular expression step budget (a deterministic bound, here lowered
// to reach it) leaves Kensa's result not re-derivable, never contradicted: what Kensa recorded
// for the run (the pattern matched) is compared with the evaluation and the outcome says so.
func TestSpentBudgetIsNotReDerivable(t *testing.T) {
	defer func(b int) { regexBudget = b }(regexBudget)
	regexBudget = 10
	spans, err := kensa.ReadTrace("t", []byte(refundTrace))
	if err != nil {
		t.Fatal(err)
	}
	sc := scenarioOf(t, "checks:\n  - type: output_matches\n    params: {pattern: \"(?<=A-)2(0)\\\\1\"}\n")
	r := Evaluate(&Evidence{Scenario: sc, HasTrace: true, Spans: spans, TracePath: "t"})
	if r.Status != StatusError || !r.CheckResults[0].Unsupported || !strings.Contains(r.CheckResults[0].Detail, "matcher steps") {
		t.Fatalf("status %s, check %+v", r.Status, r.CheckResults[0])
	}
	kensaResult := &Result{ScenarioID: sc.ID, Status: StatusPass, Trace: r.Trace, CheckResults: []CheckResult{
		{Check: "output_matches", Passed: true, Detail: `Matched: /(?<=A-)2(0)\1/`, Diagnostics: pyvalue.NewDict(nil, nil)}}}
	diffs := Compare(r, asKensaResult(kensaResult, nil))
	if got := Outcome(diffs); got != OutcomeNotReDerivable {
		t.Errorf("outcome %s: %+v", got, diffs)
	}
}
