package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// TestNotReDerivable generates verdicts whose scenarios (two classifications, three
// categories) are, by a seeded draw, not re-derivable, with a mismatch about every scenario,
// every category and every run-level code, and checks the rule: each scenario not
// re-derivable has one not-re-derivable finding naming its cause; the mismatches resting on
// one (about it, or over a group holding one) are not re-derivable; every other mismatch stays
// a mismatch; the outcome follows (mismatch, not-re-derivable, reproduced).
func TestNotReDerivable(t *testing.T) {
	var runLevel []string
	for _, g := range checkGroups {
		if g.name != "categories" {
			runLevel = append(runLevel, g.codes...)
		}
	}
	seed := uint64(21)
	draw := func(n uint64) uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return (seed >> 33) % n
	}
	categories := []string{"access", "data", "ops"}
	for round := range 200 {
		v := &evaluator.Verdict{}
		var findings []Finding
		nrd := map[string]bool{}
		nrdCat := map[string]bool{}
		for i := range 2 + int(draw(8)) {
			class := profiles.Safety
			if draw(3) == 0 {
				class = profiles.Capability
			}
			r := evaluator.ScenarioResult{ID: fmt.Sprintf("s%d", i), Classification: string(class), Category: categories[draw(3)],
				State: evaluator.StateEvaluated, Status: evaluator.Pass}
			if draw(4) == 0 {
				r.State, r.Status, r.Reason = evaluator.StateNotReDerivable, "", "cause of "+r.ID
				nrd[r.ID], nrdCat[r.Category] = true, true
			}
			v.Scenarios = append(v.Scenarios, r)
			findings = append(findings, Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: r.ID, Subject: "status"})
		}
		for _, c := range categories {
			findings = append(findings, Finding{Code: CodeCategoryResult, Severity: SeverityMismatch, Subject: "category " + c})
		}
		for _, code := range runLevel {
			findings = append(findings, Finding{Code: code, Severity: SeverityMismatch, Subject: code})
		}
		findings = append(findings, Finding{Code: CodeProfileName, Severity: SeverityNote, Subject: "name"})
		got := notReDerivable(slices.Clone(findings), v, map[string]string{"s0": "PASS"}, nil)

		if len(got) != len(findings)+len(nrd) {
			t.Fatalf("round %d: %d findings, want %d", round, len(got), len(findings)+len(nrd))
		}
		for i, f := range got[:len(findings)] {
			want := findings[i].Severity
			if want == SeverityMismatch && len(nrd) > 0 {
				switch {
				case f.Scenario != "":
					if nrd[f.Scenario] {
						want = SeverityNotReDerivable
					}
				case f.Code == CodeCategoryResult:
					if nrdCat[f.Subject[len("category "):]] {
						want = SeverityNotReDerivable
					}
				default:
					if slices.Contains(aggregateGroups, groupOf(f.Code)) {
						want = SeverityNotReDerivable
					}
				}
			}
			if f.Severity != want {
				t.Errorf("round %d: %s %s is %s, want %s", round, f.Code, f.Subject, f.Severity, want)
			}
		}
		for _, f := range got[len(findings):] {
			if f.Code != CodeNotReDerivable || !nrd[f.Scenario] || f.Evidence[0] != "cause of "+f.Scenario || f.Cause.Explanation != "cause of "+f.Scenario {
				t.Errorf("round %d: %+v", round, f)
			}
			if want := map[bool]string{true: "PASS", false: "(not listed)"}[f.Scenario == "s0"]; f.Claimed != want {
				t.Errorf("round %d: %s claimed %q, want %q", round, f.Scenario, f.Claimed, want)
			}
		}
		a := &Audit{Findings: got}
		want := "mismatch"
		if len(nrd) > 0 && Count(got, SeverityMismatch) == 0 {
			want = "not-re-derivable"
		}
		if a.Outcome() != want || a.Reproduced() {
			t.Errorf("round %d: outcome %s, want %s", round, a.Outcome(), want)
		}
	}
	// Nothing else in a clean audit: reproduced.
	if a := (&Audit{Findings: notReDerivable(nil, &evaluator.Verdict{}, nil, nil)}); a.Outcome() != "reproduced" || !a.Reproduced() {
		t.Errorf("an empty audit is %s", a.Outcome())
	}
}

// groupOf is the check group of a run-level code.
func groupOf(code string) string {
	for _, g := range checkGroups {
		if slices.Contains(g.codes, code) {
			return g.name
		}
	}
	return ""
}
