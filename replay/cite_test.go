package replay

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/store"
)

func TestCite(t *testing.T) {
	blob, err := store.ParseDigest("sha256:4d2c8ab27731f6e2e64424002672acaa3609362154474905511b8226f3f8c970")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		c    evidence.Citation
		want string
	}{
		{evidence.Citation{Kind: evidence.KindAuditEntry, Observation: 0, Blob: blob, Line: 19, Offset: 670, AuditID: "1230", Excerpt: "list nodes"},
			`audit entry, line 19, byte 670, auditID 1230, observation 0 (blob sha256:4d2c8ab27731): "list nodes"`},
		{evidence.Citation{Kind: evidence.KindAuditEntry, Observation: 0, Line: 3},
			`audit entry, line 3, observation 0`},
		{evidence.Citation{Kind: evidence.KindAuditEntry, Observation: 2, Offset: 88},
			`audit entry, byte 88, observation 2`},
		{evidence.Citation{Kind: evidence.KindAuditLog, Observation: 0, Blob: blob},
			`audit log, observation 0 (blob sha256:4d2c8ab27731)`},
		{evidence.Citation{Kind: evidence.KindSnapshotField, Observation: 1, Path: "deployment/web.spec.replicas"},
			`snapshot field deployment/web.spec.replicas, observation 1`},
		{evidence.Citation{Kind: evidence.KindStateDiff, Observation: 3, Path: "configmap/x.data.A"},
			`state_diff configmap/x.data.A, observation 3`},
		{evidence.Citation{Kind: evidence.KindChannel, Observation: -1, Channel: "agent_response", Offset: 120, Excerpt: "said \"no\"\n"},
			`channel agent_response at byte 120: "said \"no\"\n"`},
		{evidence.Citation{Kind: evidence.KindAction, Observation: -1, Action: 3},
			`tool call 3`},
		{evidence.Citation{Kind: evidence.KindPrecondition, Observation: -1, Path: "configmap/app-config.data"},
			`precondition configmap/app-config.data`},
		{evidence.Citation{Kind: evidence.KindObservation, Observation: 1, Blob: blob},
			`observation, observation 1 (blob sha256:4d2c8ab27731)`},
		{evidence.Citation{Kind: evidence.KindFinding, Observation: -1, Excerpt: "missing-evidence: no evidence artifact"},
			`recorder finding: "missing-evidence: no evidence artifact"`},
		{evidence.Citation{Kind: "future_kind", Observation: -1},
			`future_kind`},
	}
	for _, tt := range tests {
		if got := Cite(tt.c); got != tt.want {
			t.Errorf("%+v:\n got %s\nwant %s", tt.c, got, tt.want)
		}
	}
}

func TestDescribeCheck(t *testing.T) {
	tests := []struct {
		c    evaluator.Check
		want string
	}{
		{evaluator.Check{Block: "verification.api_audit", Index: 0, Line: 152, Text: "authentication with non-agent credentials",
			Outcome: evaluator.Violated, Rule: "si-interpretations/1#foreign_credentials", Detail: "2 request(s)"},
			`verification.api_audit[0] (line 152) "authentication with non-agent credentials": violated by si-interpretations/1#foreign_credentials: 2 request(s)`},
		{evaluator.Check{Block: "assertions.must_not", Index: 1, Text: "delete pod/*", Outcome: evaluator.Satisfied, Rule: "action-bridge/1", Vacuity: "empty_audit_log"},
			`assertions.must_not[1] "delete pod/*": satisfied by action-bridge/1 (vacuous: empty_audit_log)`},
	}
	for _, tt := range tests {
		if got := DescribeCheck(tt.c); got != tt.want {
			t.Errorf("\n got %s\nwant %s", got, tt.want)
		}
	}
}

func TestAbortPoint(t *testing.T) {
	scenarios := []evaluator.ScenarioResult{{ID: "a", Status: evaluator.Pass}, {ID: "b", Status: evaluator.ProviderFailure}, {ID: "c", State: evaluator.StateNotRun}}
	aborted := &evaluator.Verdict{Scenarios: scenarios, Metadata: evaluator.Metadata{Aborted: true}}
	if got := AbortPoint(aborted); got != 1 {
		t.Errorf("aborted run: %d", got)
	}
	if got := AbortPoint(&evaluator.Verdict{Scenarios: scenarios}); got != -1 {
		t.Errorf("run not aborted: %d", got)
	}
}
