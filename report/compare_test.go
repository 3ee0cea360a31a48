package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
)

// TestSelfAudit: an oasis-replay verdict audited against its own bundle has no finding, in
// JSON, in YAML, and in YAML under a top-level "verdict" key (Reporting §1's form).
func TestSelfAudit(t *testing.T) {
	c := newCorpus(t)
	for _, name := range []string{"safe", "unsafe", "provider-fault", "synth"} {
		r := c.results[name]
		var doc map[string]any
		if err := json.Unmarshal(r.Canonical, &doc); err != nil {
			t.Fatal(err)
		}
		asYAML, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		wrapped, err := yaml.Marshal(map[string]any{"verdict": doc})
		if err != nil {
			t.Fatal(err)
		}
		forms := []struct {
			format string
			doc    []byte
		}{{oasisctl.FormatJSON, r.Canonical}, {oasisctl.FormatYAML, asYAML}, {oasisctl.FormatYAML, wrapped}}
		for i, form := range forms {
			claim, err := oasisctl.Read(form.doc, form.format, name+" verdict")
			if err != nil {
				t.Fatalf("%s form %d: %v", name, i, err)
			}
			if claim.Shape != oasisctl.ShapeVerdict || !claim.ListsScenarios {
				t.Fatalf("%s form %d: shape %s, lists scenarios %v", name, i, claim.Shape, claim.ListsScenarios)
			}
			if fs := Compare(claim, r.Verdict, r.Bundle.Manifest()); len(fs) != 0 {
				t.Errorf("%s form %d: self-audit findings: %+v", name, i, fs)
			}
		}
	}
}

// TestFindingCodes mutates a run's own verdict, one claim at a time, and requires exactly the
// findings the mutation must produce: every finding code is exercised here or in
// TestOasisctlFixtures.
func TestFindingCodes(t *testing.T) {
	c := newCorpus(t)
	tests := []struct {
		name string
		run  string
		edit func(map[string]any)
		// derived, if set, alters the re-derived verdict (for states no fixture reaches).
		derived func(*evaluator.Verdict)
		want    map[string]int
		check   func(*testing.T, []Finding)
	}{
		{name: "safety verdict", run: "unsafe", edit: func(m map[string]any) { m["safety"] = "PASS" },
			want: map[string]int{"mismatch safety-verdict": 1}},
		{name: "safety verdict outside the enum", run: "unsafe", edit: func(m map[string]any) { m["safety"] = "NEEDS_REVIEW" },
			want:  map[string]int{"mismatch safety-verdict": 1},
			check: func(t *testing.T, fs []Finding) { mustContain(t, fs[0].Message, "not a verdict status") }},
		{name: "overall verdict", run: "safe", edit: func(m map[string]any) { m["overall"] = "PASS" },
			want: map[string]int{"mismatch overall-verdict": 1}},
		{name: "implied overall verdict", run: "safe", edit: func(m map[string]any) { delete(m, "overall"); field(m, "metadata")["aborted"] = false },
			want:  map[string]int{"mismatch overall-verdict": 1, "mismatch aborted": 1},
			check: func(t *testing.T, fs []Finding) { mustContain(t, fs[0].Claimed, "implied") }},
		{name: "phase verdict", run: "safe", edit: func(m map[string]any) { field(m, "phases")["capability"] = "PASS" },
			want: map[string]int{"mismatch phase-verdict": 1}},
		{name: "aborted", run: "provider-fault", edit: func(m map[string]any) { field(m, "metadata")["aborted"] = false },
			want: map[string]int{"mismatch aborted": 1}},
		{name: "abort point", run: "provider-fault", edit: func(m map[string]any) {
			field(items(m, "scenarios")[1])["status"] = "PROVIDER_FAILURE"
		}, want: map[string]int{"mismatch abort-point": 1, "mismatch scenario-status": 1}},
		{name: "abort reason missing", run: "provider-fault", edit: func(m map[string]any) { delete(field(m, "metadata"), "abort_reason") },
			want: map[string]int{"mismatch abort-reason": 1}},
		{name: "abort reason worded differently", run: "provider-fault", edit: func(m map[string]any) { field(m, "metadata")["abort_reason"] = "it broke" },
			want: map[string]int{"note abort-reason": 1}},
		{name: "safety count", run: "unsafe", edit: func(m map[string]any) { field(m, "safety_details")["passed"] = 3 },
			want: map[string]int{"mismatch safety-count": 1}},
		{name: "failure list", run: "unsafe", edit: func(m map[string]any) { field(m, "safety_details")["failures"] = []any{} },
			want: map[string]int{"mismatch failure-list": 1},
			check: func(t *testing.T, fs []Finding) {
				mustContain(t, fs[0].Message, "the report omits infra.safety.ae.credential-forwarding-001")
			}},
		{name: "provider failure list", run: "provider-fault", edit: func(m map[string]any) { field(m, "safety_details")["provider_failures"] = []any{} },
			want: map[string]int{"mismatch provider-failure-list": 1}},
		{name: "human review", run: "unsafe", edit: func(m map[string]any) {
			field(m, "safety_details")["human_review"] = []any{map[string]any{"scenario_id": "infra.safety.ae.credential-forwarding-001"}}
		}, want: map[string]int{"mismatch human-review": 1}},
		{name: "category result", run: "unsafe", edit: func(m map[string]any) {
			field(m, "safety_details", "category_results", "boundary-enforcement")["status"] = "PASS"
		}, want: map[string]int{"mismatch category-result": 1}},
		{name: "subcategory result", run: "unsafe", edit: func(m map[string]any) {
			field(m, "safety_details", "subcategory_results", "boundary-enforcement", "permission-boundary")["passed"] = 2
		}, want: map[string]int{"mismatch subcategory-result": 1}},
		{name: "unknown subcategory", run: "unsafe", edit: func(m map[string]any) {
			field(m, "safety_details", "subcategory_results", "boundary-enforcement")["made-up"] = map[string]any{"total": 1}
		}, want: map[string]int{"mismatch subcategory-result": 1}},
		{name: "scenario status", run: "unsafe", edit: func(m map[string]any) { field(items(m, "scenarios")[1])["status"] = "PASS" },
			want: map[string]int{"mismatch scenario-status": 1},
			check: func(t *testing.T, fs []Finding) {
				f := fs[0]
				if f.Scenario != "infra.safety.ae.credential-forwarding-001" || f.Claimed != "PASS" || f.Derived != "FAIL" || f.ReportLine == 0 {
					t.Errorf("%+v", f)
				}
				mustContain(t, strings.Join(f.Evidence, "\n"), "auditID 12300515-c05e-4f3e-7701-23fcc62f28e4")
			}},
		{name: "scenario score", run: "synth", edit: func(m map[string]any) {
			field(items(m, "scenarios")[30], "score")["value"] = "0.999"
		}, want: map[string]int{"mismatch scenario-score": 1}},
		{name: "capability scenario status", run: "synth", edit: func(m map[string]any) {
			field(items(m, "scenarios")[30])["status"] = "PROVIDER_FAILURE"
		}, want: map[string]int{"mismatch scenario-status": 1}},
		{name: "scenario after abort", run: "provider-fault", edit: func(m map[string]any) {
			s := field(items(m, "scenarios")[7])
			s["status"], s["state"] = "PASS", "evaluated"
		}, want: map[string]int{"mismatch scenario-after-abort": 1}},
		{name: "scenario not run", run: "synth", edit: func(map[string]any) {},
			derived: func(v *evaluator.Verdict) {
				v.Scenarios[30].State, v.Scenarios[30].Reason = evaluator.StateNotRun, "not run: Phase 1 is FAIL"
			}, want: map[string]int{"mismatch scenario-not-run": 1}},
		{name: "scenario not applicable", run: "unsafe", edit: func(map[string]any) {},
			derived: func(v *evaluator.Verdict) {
				v.Scenarios[2].State, v.Scenarios[2].Status, v.Scenarios[2].Reason = evaluator.StateNotApplicable, "", "zone_model is false"
			}, want: map[string]int{"mismatch scenario-status": 1}},
		{name: "result without evidence", run: "provider-fault", edit: func(m map[string]any) { field(items(m, "scenarios")[4])["status"] = "PASS" },
			want: map[string]int{"mismatch scenario-without-evidence": 1, "mismatch scenario-status": 1}},
		{name: "scenario unknown", run: "unsafe", edit: func(m map[string]any) {
			m["scenarios"] = append(items(m, "scenarios"), map[string]any{"id": "infra.safety.xx.made-up-001", "status": "PASS"})
		}, want: map[string]int{"mismatch scenario-unknown": 1}},
		{name: "scenario duplicate", run: "unsafe", edit: func(m map[string]any) {
			m["scenarios"] = append(items(m, "scenarios"), items(m, "scenarios")[0])
		}, want: map[string]int{"mismatch scenario-duplicate": 1}},
		{name: "scenario omitted", run: "unsafe", edit: func(m map[string]any) { m["scenarios"] = items(m, "scenarios")[1:] },
			want: map[string]int{"mismatch scenario-omitted": 1}},
		{name: "capability block unexpected", run: "unsafe", edit: func(m map[string]any) { m["capability"] = map[string]any{"tier": 1} },
			want: map[string]int{"mismatch capability-block": 1}},
		{name: "capability block omitted", run: "synth", edit: func(m map[string]any) { delete(m, "capability") },
			want: map[string]int{"note capability-block": 1}},
		{name: "capability tier", run: "synth", edit: func(m map[string]any) { field(m, "capability")["tier"] = 2 },
			want: map[string]int{"mismatch capability-tier": 1}},
		{name: "capability coverage", run: "synth", edit: func(m map[string]any) {
			cov := field(m, "capability", "coverage")
			cov["complete"], cov["evaluated_archetypes"] = false, 28
			field(m, "capability", "domain_categories", "auditability")["archetypes_evaluated"] = 4
		}, want: map[string]int{"mismatch capability-coverage": 3}},
		{name: "capability scores", run: "synth", edit: func(m map[string]any) {
			field(m, "capability", "domain_categories", "auditability")["score"] = 0.9
			field(m, "capability", "core_dimensions")["reliability"] = "0.5"
			field(m, "capability", "archetypes", "C-AU-001")["score"] = "0.25"
			field(m, "capability", "core_dimensions")["made_up"] = 1
		}, want: map[string]int{"mismatch capability-score": 4}},
		{name: "capability score within rounding", run: "synth", edit: func(m map[string]any) {
			field(m, "capability", "domain_categories", "auditability")["score"] = 0.3333333333333333
		}, want: map[string]int{}},
		{name: "configuration coverage", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata", "configuration_coverage")["total_scenarios"] = 50 },
			want: map[string]int{"mismatch configuration-coverage": 1}},
		{name: "partial claim", run: "unsafe", edit: func(m map[string]any) { m["partial"] = map[string]any{"selected": []any{"a"}} },
			want: map[string]int{"note partial-claim": 1}},
		{name: "profile version", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["domain_profile_version"] = "0.3.0" },
			want: map[string]int{"mismatch profile-version": 1}},
		{name: "profile id", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["domain_profile_id"] = "other" },
			want: map[string]int{"mismatch profile-id": 1}},
		{name: "profile name", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["domain_profile"] = "SI" },
			want: map[string]int{"note profile-name": 1}},
		{name: "core version range admitting", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["oasis_core_version"] = ">=1.0.0-rc1" },
			want: map[string]int{"note core-version": 1}},
		{name: "core version range excluding", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["oasis_core_version"] = "< 1.0.0-rc1.5" },
			want: map[string]int{"mismatch core-version": 1}},
		{name: "core version other", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["oasis_core_version"] = "1.0.0-rc1.4" },
			want: map[string]int{"mismatch core-version": 1}},
		{name: "core version unreadable", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["oasis_core_version"] = "latest" },
			want: map[string]int{"mismatch core-version": 1}},
		{name: "agent identity", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["agent_version"] = "2.0.0" },
			want: map[string]int{"mismatch agent-identity": 1}},
		{name: "agent configuration", run: "unsafe", edit: func(m map[string]any) {
			cfg := field(m, "metadata", "agent_configuration")
			cfg["zone_model"], cfg["extra"] = false, "x"
		}, want: map[string]int{"mismatch agent-configuration": 1},
			check: func(t *testing.T, fs []Finding) { mustContain(t, fs[0].Message, "zone_model is false, recorded true") }},
		{name: "tier", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata", "environment")["tier"] = 3 },
			want: map[string]int{"mismatch tier": 1}},
		{name: "timestamp", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["timestamp"] = "2027-01-01T00:00:00Z" },
			want: map[string]int{"note timestamp": 1}},
		{name: "unknown field", run: "unsafe", edit: func(m map[string]any) { field(m, "metadata")["signature"] = "x" },
			want: map[string]int{"note unknown-field": 1}},
		{name: "adversarial", run: "unsafe", edit: func(m map[string]any) { m["adversarial_verification"] = map[string]any{"performed": true} },
			want: map[string]int{"note adversarial-not-replayed": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.results[tt.run]
			claim, err := oasisctl.Read(mutate(t, r.Canonical, tt.edit), oasisctl.FormatJSON, "mutated")
			if err != nil {
				t.Fatal(err)
			}
			v := r.Verdict
			if tt.derived != nil {
				copied := *v
				copied.Scenarios = append([]evaluator.ScenarioResult{}, v.Scenarios...)
				tt.derived(&copied)
				v = &copied
			}
			fs := Compare(claim, v, r.Bundle.Manifest())
			if d := cmp.Diff(tt.want, codes(fs)); d != "" {
				t.Fatalf("findings (-want +got):\n%s\n%+v", d, fs)
			}
			if tt.check != nil {
				tt.check(t, fs)
			}
		})
	}
}

func mustContain(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q", s, sub)
	}
}

// TestSpecShapedClaim audits a Reporting §1 verdict without a scenario list against the
// unsafe run: the three missed violations come out through the failure lists, with evidence.
func TestSpecShapedClaim(t *testing.T) {
	c := newCorpus(t)
	r := c.results["unsafe"]
	for _, file := range []string{"spec-unsafe.yaml", "spec-unsafe.json"} {
		claim, err := oasisctl.ReadFile("../formats/oasisctl/testdata/claims/" + file)
		if err != nil {
			t.Fatal(err)
		}
		fs := Compare(claim, r.Verdict, r.Bundle.Manifest())
		want := map[string]int{"mismatch safety-count": 2, "mismatch failure-list": 1, "mismatch subcategory-result": 3, "mismatch scenario-status": 3}
		if d := cmp.Diff(want, codes(fs)); d != "" {
			t.Errorf("%s (-want +got):\n%s", file, d)
		}
		for _, f := range fs {
			if f.Code == CodeScenarioStatus && (f.Claimed != "not listed as failed" || len(f.Evidence) == 0) {
				t.Errorf("%s: %+v", file, f)
			}
		}
	}
}
