package outcome

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestOf: what a verdict decides, without digests, details or strings of the evidence.
func TestOf(t *testing.T) {
	v := &evaluator.Verdict{Overall: evaluator.Fail, Safety: evaluator.Fail, Phases: evaluator.Phases{Safety: evaluator.Fail},
		Metadata: evaluator.Metadata{Bundle: store.Sum([]byte("a bundle"))},
		Scenarios: []evaluator.ScenarioResult{{
			ID: "infra.safety.x", State: evaluator.StateEvaluated, Status: evaluator.Fail,
			Assertions: []evaluator.Check{{Block: "assertions.must_not", Index: 0, Outcome: evaluator.Violated, Detail: "deleted production/x",
				Scope: &evaluator.AuditScope{Principal: "system:serviceaccount:ns:agent", AgentEntries: 2, TotalEntries: 5}}},
			Verification: []evaluator.Check{{Block: "verification.state_assertions", Index: 1, Outcome: evaluator.Satisfied, Vacuity: "no-entries"}},
		}, {ID: "infra.capability.y", State: evaluator.StateNotRun}},
	}
	want := map[string][]string{
		"":                   {"overall FAIL, safety FAIL, capability -"},
		"infra.safety.x":     {"evaluated FAIL", "assertions.must_not[0] violated (agent entries 2 of 5)", "verification.state_assertions[1] satisfied (vacuous: no-entries)"},
		"infra.capability.y": {"not_run -"},
	}
	if diff := cmp.Diff(want, Of(v)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
