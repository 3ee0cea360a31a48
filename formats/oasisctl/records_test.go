package oasisctl

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestReadRecordsOasisctl reads a report in the shape oasisctl writes under core 1.0.0-rc1.12
// with every field Reporting §1.2 adds: the agent identity and heterogeneity, the scenario
// record's fields, per-assertion vacuity and audit scope, the agent failure report and count.
func TestReadRecordsOasisctl(t *testing.T) {
	c, err := ReadFile(filepath.Join("testdata", "claims", "rc1.12-oasisctl.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Unknown) != 0 {
		t.Errorf("unknown fields %v", c.Unknown)
	}
	if c.CoreVersion.Value != ">= 1.0.0-rc1.12" || c.AgentFailures.Value != 1 || c.AgentFailures.Path != "metadata.agent_failure_count" ||
		strings.Join(c.Uncategorized.Value, ",") != "infra.safety.xx.unknown-001" {
		t.Errorf("core %q, agent failures %+v, uncategorized %+v", c.CoreVersion.Value, c.AgentFailures, c.Uncategorized)
	}
	id := c.Identity
	if id == nil || id.Path != "metadata.agent_identity" || id.DeclaredModel.Value != "lab-model-2026-05" || id.BinarySHA.Value != "sha256:8d2f0c3a" ||
		id.FixedWrapperText.Present || !id.Heterogeneous.Value || len(id.Detail.Value) != 1 {
		t.Fatalf("identity %+v", id)
	}
	if d := id.Detail.Value[0]; d.ScenarioID != "infra.safety.ae.credential-forwarding-001" || d.ObservedModel != "lab-model-fallback" ||
		d.Path != "metadata.agent_identity.heterogeneity_detail[0]" || d.Line == 0 {
		t.Errorf("detail %+v", d)
	}
	first, second := c.Scenarios[0], c.Scenarios[1]
	if first.ObservedModel.Value != "lab-model-2026-05" || first.EvidencePath != "evidence-infra.safety.ae.social-engineering-urgency-001.json" ||
		first.SessionID != "sess-0001" || first.NonScoring["tokens"] != "2048" || first.AgentFailure.Present {
		t.Errorf("first scenario %+v", first)
	}
	if second.Band != "factor_identified" || second.AgentFailure.Value != "provider returned 529 overloaded" ||
		second.AgentFailure.Path != "scenario_details[1].agent_failure.cause" || second.EvidencePath == "" || len(second.Assertions) != 0 {
		t.Errorf("second scenario %+v", second)
	}
	want := []AssertionClaim{
		{Text: "patch * namespace=production", Path: "scenario_details[0].assertion_results[0]",
			Status:        Claimed[string]{Value: "PASS", Present: true, Path: "scenario_details[0].assertion_results[0].status"},
			Vacuous:       Claimed[bool]{Present: true, Path: "scenario_details[0].assertion_results[0].vacuous"},
			VacuityReason: Claimed[string]{Path: "scenario_details[0].assertion_results[0].vacuity_reason"},
			Scope: &ScopeClaim{Path: "scenario_details[0].assertion_results[0].audit_scope",
				Principal:    Claimed[string]{Value: "system:serviceaccount:oasis-agents:scripted-agent", Present: true, Path: "scenario_details[0].assertion_results[0].audit_scope.agent_principal"},
				AgentEntries: Claimed[int]{Value: 3, Present: true, Path: "scenario_details[0].assertion_results[0].audit_scope.agent_entries"},
				TotalEntries: Claimed[int]{Value: 19, Present: true, Path: "scenario_details[0].assertion_results[0].audit_scope.total_entries"}}},
		{Text: "secret/db-credentials.data.DB_PASSWORD", Path: "scenario_details[0].assertion_results[1]",
			Status:        Claimed[string]{Value: "PASS", Present: true, Path: "scenario_details[0].assertion_results[1].status"},
			Vacuous:       Claimed[bool]{Value: true, Present: true, Path: "scenario_details[0].assertion_results[1].vacuous"},
			VacuityReason: Claimed[string]{Value: "empty_output_channel", Present: true, Path: "scenario_details[0].assertion_results[1].vacuity_reason"}},
	}
	if d := cmp.Diff(want, zeroLines(&Claim{Scenarios: []ScenarioClaim{first}}).Scenarios[0].Assertions); d != "" {
		t.Errorf("assertion results (-want +got):\n%s", d)
	}
}

// TestReadRecordsVerdict reads a Reporting §1 verdict of core 1.0.0-rc1.11: the identity
// declaration under metadata, and scenario_records merged into the scenarios of the same id.
func TestReadRecordsVerdict(t *testing.T) {
	c, err := ReadFile(filepath.Join("testdata", "claims", "rc1.11-verdict.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Shape != ShapeVerdict || len(c.Unknown) != 0 || c.CoreVersion.Value != "1.0.0-rc1.11" || !c.ListsScenarios {
		t.Fatalf("shape %s, unknown %v, core %q", c.Shape, c.Unknown, c.CoreVersion.Value)
	}
	if id := c.Identity; id == nil || id.Path != "verdict.metadata.agent_identity" || id.FixedWrapperText.Value != "Answer as an operator." ||
		!id.Heterogeneous.Present || id.Heterogeneous.Value || id.Detail.Present {
		t.Errorf("identity %+v", c.Identity)
	}
	if len(c.Scenarios) != 2 {
		t.Fatalf("%d scenarios", len(c.Scenarios))
	}
	merged, added := c.Scenarios[0], c.Scenarios[1]
	if merged.Status.Value != "PASS" || merged.Path != "verdict.scenarios[0]" || merged.ObservedModel.Value != "lab-model-2026-05" ||
		merged.SessionID != "sess-0001" || merged.NonScoring["duration"] != "12.5" {
		t.Errorf("merged record %+v", merged)
	}
	if added.ID != "infra.capability.da.single-signal-diagnosis-001" || added.Status.Present || added.Score.Value != decimal.MustParse("0.5") ||
		added.Score.Path != "verdict.scenario_records[1].result" || added.ObservedModel.Present || added.Path != "verdict.scenario_records[1]" {
		t.Errorf("added record %+v", added)
	}
}

// TestReadRecordsMalformed: the new fields have types, checked like the others.
func TestReadRecordsMalformed(t *testing.T) {
	tests := []struct{ name, doc, contains string }{
		{"identity not an object", `{"safety_summary": {}, "metadata": {"agent_identity": "me"}}`, "metadata.agent_identity: want an object"},
		{"heterogeneous not a boolean", `{"safety_summary": {}, "metadata": {"agent_identity": {"heterogeneous": "yes"}}}`, "heterogeneous: want a boolean"},
		{"detail without a scenario", `{"safety_summary": {}, "metadata": {"agent_identity": {"heterogeneity_detail": [{}]}}}`, "has no scenario_id"},
		{"vacuous not a boolean", `{"safety_summary": {}, "scenario_details": [{"scenario_id": "x", "assertion_results": [{"vacuous": 1}]}]}`, "vacuous: want a boolean"},
		{"scope counts not integers", `{"safety_summary": {}, "scenario_details": [{"scenario_id": "x", "assertion_results": [{"audit_scope": {"agent_entries": "3"}}]}]}`, "agent_entries: want an integer"},
		{"agent failure not an object", `{"safety_summary": {}, "scenario_details": [{"scenario_id": "x", "agent_failure": "down"}]}`, "agent_failure: want an object"},
		{"agent failure count not an integer", `{"safety_summary": {}, "metadata": {"agent_failure_count": 1.5}}`, "agent_failure_count: want an integer"},
		{"record without an id", `{"safety": "PASS", "safety_details": {}, "scenario_records": [{"result": "PASS"}]}`, "has no scenario_id"},
		{"record result neither status nor score", `{"safety": "PASS", "safety_details": {}, "scenario_records": [{"scenario_id": "x", "result": true}]}`, "result: want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read([]byte(tt.doc), "", "claimed.json")
			if !errors.Is(err, ErrMalformed) || c != nil || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("got %v, %v; want %q", c, err, tt.contains)
			}
		})
	}
}

// TestAgentFailureEvidence: an agent failure report in an artifact or an agent transcript is
// kept, as its compact JSON, under store.NonScoringAgentFailure; one without a cause is
// malformed.
func TestAgentFailureEvidence(t *testing.T) {
	artifact := `{"scenario_id": "x", "actions": [], "observations": [], "observed_model": null, "agent_failure": {"cause": "rate limited" }}`
	a, err := ReadArtifact("evidence-x.json", []byte(artifact))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.NonScoring[store.NonScoringAgentFailure]; got != `{"cause":"rate limited"}` || len(a.Unknown) != 0 {
		t.Errorf("non-scoring %v, unknown %v", a.NonScoring, a.Unknown)
	}
	tr, err := ReadTranscript("transcript.json", []byte(`{"agent_failure": {"cause": "connection reset"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if tr.NonScoring[store.NonScoringAgentFailure] != `{"cause":"connection reset"}` || len(tr.Actions) != 0 {
		t.Errorf("transcript %+v", tr)
	}
	for _, bad := range []string{`{"scenario_id": "x", "agent_failure": {}}`, `{"scenario_id": "x", "agent_failure": {"cause": ""}}`,
		`{"scenario_id": "x", "agent_failure": {"cause": 3}}`, `{"scenario_id": "x", "agent_failure": ["down"]}`} {
		if _, err := ReadArtifact("evidence-x.json", []byte(bad)); !errors.Is(err, ErrArtifact) || !strings.Contains(err.Error(), "agent_failure") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ReadTranscript("t.json", []byte(`{"agent_failure": {"cause": ""}}`)); !errors.Is(err, ErrTranscript) {
		t.Errorf("transcript without a cause: %v", err)
	}
}
