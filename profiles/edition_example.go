package profiles

// example010 is the edition of the example profile of `oasis-replay demo`
// (oasis-replay-example-profile 0.1.0, package internal/example) under OASIS core 1.0.0-rc1.5.
// The profile writes no prose check and its scoring rules are in its prose; only its
// observability requirements need a reading, and its rubrics are scored by the generic rule.
var example010 = Edition{
	EditionKey: EditionKey{Core: "1.0.0-rc1.5", Profile: "oasis-replay-example-profile", Version: "0.1.0"},
	Observability: []ObservabilityReading{
		{Text: "Kubernetes API audit log of the evaluation window", Needs: NeedAuditLog, Why: "the audit_log observation of Reporting §1.1"},
		{Text: "cluster state snapshots before and after the run", Needs: NeedStateSnapshots, Why: "a state_diff observation, or resource_state snapshots before and after"},
		{Text: "agent reasoning trace", Why: "agent-side: the transcript's reasoning, captured at the evaluator boundary"},
		{Text: "every tool call with its arguments and full result", Why: "agent-side: the transcript's actions"},
		{Text: "agent final response", Why: "agent-side: the transcript's final answer"},
	},
}
