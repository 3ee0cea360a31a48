package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/store"
)

// fuzzRun is a small verdict and manifest to compare fuzzed claims with: an aborted run with a
// pass, a provider failure, a scenario not run and a scored capability scenario.
func fuzzRun() (*evaluator.Verdict, *store.RunManifest) {
	score := decimal.MustParse("0.5")
	ev := &store.Descriptor{MediaType: store.MediaTypeScenarioEvidence, Digest: store.Sum([]byte("e")), Size: 1}
	v := &evaluator.Verdict{Safety: evaluator.ProviderFailure, Overall: evaluator.ProviderFailure,
		Phases: evaluator.Phases{Safety: evaluator.ProviderFailure},
		SafetyDetails: evaluator.SafetyDetails{TotalScenarios: 3, Applicable: 3, Passed: 1, ProviderFailure: 1, NotRun: 1,
			ProviderFailures:   []evaluator.ProviderFailed{{ID: "s.b", Cause: "unreachable"}},
			CategoryResults:    map[string]evaluator.GroupResult{"cat": {Status: evaluator.ProviderFailure, Total: 3}},
			SubcategoryResults: map[string]map[string]evaluator.GroupResult{"cat": {"sub": {Status: evaluator.ProviderFailure, Total: 3}}}},
		Capability: &evaluator.Capability{Tier: 1, DomainCategories: map[string]evaluator.CategoryScore{"cap": {Score: &score}},
			CoreDimensions: map[string]*decimal.Decimal{"reasoning": &score}, Archetypes: map[string]evaluator.ArchetypeScore{"C-1": {Score: score}}},
		Metadata: evaluator.Metadata{Agent: "a", AgentVersion: "1", OASISCoreVersion: "1.0.0-rc1.5", Aborted: true, AbortReason: "at s.b",
			AgentConfiguration: map[string]string{"zone_model": "true"}},
		Scenarios: []evaluator.ScenarioResult{
			{ID: "s.a", Classification: "safety", Category: "cat", Subcategory: "sub", State: evaluator.StateEvaluated, Status: evaluator.Pass},
			{ID: "s.b", Classification: "safety", Category: "cat", Subcategory: "sub", State: evaluator.StateEvaluated, Status: evaluator.ProviderFailure, Reason: "unreachable"},
			{ID: "s.c", Classification: "safety", Category: "cat", State: evaluator.StateNotRun},
			{ID: "c.a", Classification: "capability", Category: "cap", State: evaluator.StateEvaluated, Status: evaluator.Pass, Score: &evaluator.Score{Value: score}},
		}}
	m := &store.RunManifest{Profile: store.ProfileRef{ID: "p", Version: "1", Tree: store.Sum([]byte("t"))},
		Scenarios: []store.ScenarioRef{{ScenarioID: "s.a", Evidence: ev}, {ScenarioID: "s.b"}, {ScenarioID: "s.c", Evidence: ev}, {ScenarioID: "c.a", Evidence: ev}}}
	return v, m
}

// FuzzRead feeds arbitrary documents to the report reader, and every claim it accepts to the
// comparison and the three writers: no input may panic, the writers never fail, and the JUnit
// output is well-formed XML whatever the report's strings hold.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"safety_summary":{"safety":"PASS","passed":true,"category_results":{"cat":true}},"scenario_details":[{"scenario_id":"s.a","status":"PASS","score":1}]}`), false)
	f.Add([]byte("verdict:\n  safety: FAIL\n  safety_details: {failures: [{id: s.a}]}\n  metadata: {oasis_core_version: \">=1.0.0\"}\n"), true)
	f.Add([]byte(`{"safety":"PASS","safety_details":{},"capability":{"core_dimensions":{"reasoning":0.49999999}}}`), false)
	v, m := fuzzRun()
	f.Fuzz(func(t *testing.T, doc []byte, yaml bool) {
		format := oasisctl.FormatJSON
		if yaml {
			format = oasisctl.FormatYAML
		}
		claim, err := oasisctl.Read(doc, format, "fuzz")
		if err != nil {
			if claim != nil {
				t.Fatal("a claim and an error")
			}
			return
		}
		a := &Audit{Claim: claim, Verdict: v, Findings: Compare(claim, v, m)}
		var text, js, junit bytes.Buffer
		if err := errors.Join(a.WriteText(&text), a.WriteJSON(&js), a.WriteJUnit(&junit)); err != nil {
			t.Fatalf("writer: %v", err)
		}
		var suites junitSuites
		if err := xml.Unmarshal(junit.Bytes(), &suites); err != nil {
			t.Fatalf("the JUnit output is not well-formed XML: %v", err)
		}
	})
}
