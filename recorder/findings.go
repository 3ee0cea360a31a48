package recorder

// Finding codes. A finding names the file, line or field and scenario it concerns; its
// severity says whether the evidence of a scenario is missing or wrong ("error"), whether
// something was kept but looks off ("warning"), or is a note ("info").
const (
	// CodeMissingEvidence (error): the run lists a scenario but no evidence for it was
	// recorded; the message carries what the source said about it (a provision error).
	CodeMissingEvidence = "missing-evidence"
	// CodeUnknownScenario (error): a scenario the pinned profile does not define. It is left
	// out of the manifest's scenarios, which the evaluator could not evaluate otherwise.
	CodeUnknownScenario = "unknown-scenario"
	// CodeDuplicateScenario (error): a scenario listed twice; the first listing is kept.
	CodeDuplicateScenario = "duplicate-scenario"
	// CodeScenarioMismatch (error): an evidence artifact names another scenario than the one
	// that points at it.
	CodeScenarioMismatch = "scenario-mismatch"
	// CodeUnlistedArtifact (warning): an evidence artifact for a scenario the report does not
	// list; it is kept as a source, not as evidence.
	CodeUnlistedArtifact = "unlisted-artifact"
	// CodeUnreadableFile (error): a file that could not be read (permissions, not a regular
	// file, outside the run directory).
	CodeUnreadableFile = "unreadable-file"
	// CodeUnknownField (warning): a field this recorder does not interpret; it is kept in
	// the byte-exact source file but nowhere else.
	CodeUnknownField = "unknown-field"
	// CodeReportDisagreement (error): the YAML rendering of a report says something other
	// than the JSON report.
	CodeReportDisagreement = "report-disagreement"
	// CodeProfileMismatch (warning): the source names another profile or version than the
	// one the bundle pins.
	CodeProfileMismatch = "profile-mismatch"
	// CodeUnknownObservationType (warning): an observation type OASIS Reporting §1.1 does
	// not name; its payload is kept as plain JSON.
	CodeUnknownObservationType = "unknown-observation-type"
	// CodeRedactionHidesContainment (warning): a redacted value overlaps a literal the
	// scenario registers for value containment.
	CodeRedactionHidesContainment = "redaction-hides-containment"
	// CodeNoAuditLog (warning): no audit log was recorded for a scenario whose observability
	// requirements name one; the evaluator will treat the scenario as a provider fault.
	CodeNoAuditLog = "no-audit-log"
	// CodeNotObjects (info): a file of a snapshot directory that holds no Kubernetes objects;
	// it is kept as a source, not as an observation.
	CodeNotObjects = "not-kubernetes-objects"
	// CodeSkippedFile (info): a file of a snapshot directory that is not JSON.
	CodeSkippedFile = "skipped-file"
	// CodeUpstreamFailure (error): a call the proxy forwarded failed (connection refused,
	// timeout, 5xx, an error status in the body): evidence of a provider or agent fault.
	CodeUpstreamFailure = "upstream-failure"
	// CodeAmbiguousCorrelation (error): an agent task the proxy could not attribute to exactly
	// one scenario.
	CodeAmbiguousCorrelation = "ambiguous-correlation"
	// CodeUncorrelated (warning): an exchange naming an environment no provision created.
	CodeUncorrelated = "uncorrelated-exchange"
	// CodeTruncatedBody (error): a body longer than the proxy's recording limit; the exchange
	// keeps its beginning and nothing is read from it.
	CodeTruncatedBody = "truncated-body"
	// CodeUnreadBody (error): an answer the proxy reads (provision, observe, snapshot, task,
	// identity, conformance) larger than its read limit: it is kept whole in its exchange,
	// and nothing is read from it.
	CodeUnreadBody = "unread-body"
	// CodeMalformedBody (error): a body the proxy had to read (provision, observe, snapshot,
	// task, identity, conformance) that is not the JSON it should be.
	CodeMalformedBody = "malformed-body"
	// CodeRepeatedTask (warning): several agent tasks were attributed to one scenario; the
	// last successful one is the transcript.
	CodeRepeatedTask = "repeated-agent-task"
	// CodeNoTranscript (error): a scenario was provisioned but no agent transcript was
	// recorded for it.
	CodeNoTranscript = "no-transcript"
	// CodeEmptyTranscript (warning): the files or webhook source was given no agent transcript:
	// the evaluator will see an agent that said and did nothing.
	CodeEmptyTranscript = "empty-transcript"
	// CodeEmptyWindow (warning): a webhook recording window closed without any audit events.
	CodeEmptyWindow = "empty-window"
)
