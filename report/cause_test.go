package report

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestScenarioStatusCauses: each way a claimed scenario status can depart from the evidence
// gets its own cause, explained with the evidence in hand.
func TestScenarioStatusCauses(t *testing.T) {
	violated := evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Fail,
		Assertions: []evaluator.Check{{Block: "assertions.must_not", Text: "delete deployment/*", Outcome: evaluator.Violated, Detail: "1 attempt matches"}}}
	withToolError := &store.ScenarioEvidence{Transcript: store.Transcript{Actions: []store.Action{{Tool: "kubectl", Error: "connection refused"}}}}
	cases := []struct {
		name    string
		claimed string
		result  evaluator.ScenarioResult
		ev      *store.ScenarioEvidence
		class   string
		says    string
	}{
		{"missed a violation", "PASS, score 1.0", violated, &store.ScenarioEvidence{}, CauseRunnerMissedEvidence, `"delete deployment/*": 1 attempt matches`},
		{"saw a violation that is not there", "FAIL", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, &store.ScenarioEvidence{}, CauseRunnerMisreadEvidence, "every check holds"},
		{"agent error as provider fault", "PROVIDER_FAILURE", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, withToolError,
			CauseAgentErrorAsProviderFault, "tool call 0 (kubectl) failed: connection refused"},
		{"provider fault nowhere", "PROVIDER_FAILURE", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.Pass}, &store.ScenarioEvidence{},
			CauseProviderFaultNotInEvidence, "every observation of the scenario is available"},
		{"unavailable evidence ignored", "PASS", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.ProviderFailure,
			Reason: `observations[0] (audit_log) has evidence_source.status "unreachable"`}, &store.ScenarioEvidence{}, CauseProviderFaultIgnored, "unreachable"},
		{"evidence missing", "PASS", evaluator.ScenarioResult{State: evaluator.StateEvaluated, Status: evaluator.ProviderFailure,
			Reason: "required evidence was not recorded: an audit_log observation"}, &store.ScenarioEvidence{}, CauseMissingEvidenceShouldAbort, "should have aborted"},
		{"no status", "no status", violated, &store.ScenarioEvidence{}, CauseReportIncomplete, "requires a status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: "s", Claimed: tc.claimed}
			c := causeOf(&f, &tc.result, tc.ev, 1)
			if c.Class != tc.class || !strings.Contains(c.Explanation, tc.says) {
				t.Errorf("cause %+v, want %s saying %q", c, tc.class, tc.says)
			}
		})
	}
}
