package report

// Severity says whether a finding changes the audit's outcome.
type Severity string

// Severities.
const (
	// SeverityMismatch: the claim contradicts the evidence (or cannot be supported by it). Any
	// mismatch makes the audit fail (exit status 1).
	SeverityMismatch Severity = "mismatch"
	// SeverityNote: worth knowing, but not a contradiction (a naming difference, an unknown
	// field, a dependency range where a version was expected).
	SeverityNote Severity = "note"
)

// Finding codes. They are stable: scripts and CI may match on them.
const (
	// Run-level verdicts.
	CodeSafetyVerdict  = "safety-verdict"
	CodeOverallVerdict = "overall-verdict"
	CodePhaseVerdict   = "phase-verdict"
	CodeAborted        = "aborted"
	CodeAbortPoint     = "abort-point"
	CodeAbortReason    = "abort-reason"
	// Counts and lists of safety_details / safety_summary.
	CodeSafetyCount         = "safety-count"
	CodeFailureList         = "failure-list"
	CodeProviderFailureList = "provider-failure-list"
	CodeHumanReview         = "human-review"
	// Groups.
	CodeCategoryResult    = "category-result"
	CodeSubcategoryResult = "subcategory-result"
	CodeUncategorized     = "uncategorized-scenario"
	// Scenarios.
	CodeScenarioStatus          = "scenario-status"
	CodeScenarioScore           = "scenario-score"
	CodeScenarioAfterAbort      = "scenario-after-abort"
	CodeScenarioNotRun          = "scenario-not-run"
	CodeScenarioWithoutEvidence = "scenario-without-evidence"
	CodeScenarioUnknown         = "scenario-unknown"
	CodeScenarioDuplicate       = "scenario-duplicate"
	CodeScenarioOmitted         = "scenario-omitted"
	// Assertion results and scenario records (core 1.0.0-rc1.11 and 1.0.0-rc1.12).
	CodeAssertionVacuity = "assertion-vacuity"
	CodeAuditScope       = "audit-scope"
	CodeObservedModel    = "observed-model"
	// Capability.
	CodeCapabilityBlock    = "capability-block"
	CodeCapabilityTier     = "capability-tier"
	CodeCapabilityCoverage = "capability-coverage"
	CodeCapabilityScore    = "capability-score"
	// Completeness and coverage.
	CodeComplete              = "complete-claim"
	CodeConfigurationCoverage = "configuration-coverage"
	CodePartial               = "partial-claim"
	// Identity of what was evaluated.
	CodeProfileVersion     = "profile-version"
	CodeProfileID          = "profile-id"
	CodeProfileName        = "profile-name"
	CodeCoreVersion        = "core-version"
	CodeAgentIdentity      = "agent-identity"
	CodeAgentConfiguration = "agent-configuration"
	CodeTier               = "tier"
	CodeTimestamp          = "timestamp"
	CodeHeterogeneity      = "agent-heterogeneity"
	// The report itself.
	CodeUnknownField = "unknown-field"
	CodeAdversarial  = "adversarial-not-replayed"
	// What the runner did with the provider's conformance answer (Provider Conformance §3.8.3).
	CodePreflightNotConformantExecuted = "preflight-not-conformant-executed"
	CodePreflightConformantAborted     = "preflight-conformant-aborted"
)

// preflightCodes are the codes of PreflightFindings; a JUnit report has their test case
// ("preflight") when the bundle recorded a conformance answer.
var preflightCodes = []string{CodePreflightNotConformantExecuted, CodePreflightConformantAborted}

// scenarioCodes are the codes of findings about one scenario (Finding.Scenario is set).
var scenarioCodes = []string{CodeScenarioStatus, CodeScenarioScore, CodeScenarioAfterAbort, CodeScenarioNotRun,
	CodeScenarioWithoutEvidence, CodeScenarioUnknown, CodeScenarioDuplicate, CodeScenarioOmitted,
	CodeAssertionVacuity, CodeAuditScope, CodeObservedModel, CodeNotReDerivable}

// executionGroup is the check group of the execution rules, present when they were checked.
const executionGroup = "execution"

// Check groups: the run-level checks a JUnit report has one test case for. Scenario findings
// belong to their scenario's test case instead.
var checkGroups = []struct {
	name  string
	codes []string
}{
	{"verdict", []string{CodeSafetyVerdict, CodeOverallVerdict, CodePhaseVerdict, CodeAborted, CodeAbortPoint, CodeAbortReason}},
	{"counts", []string{CodeSafetyCount, CodeFailureList, CodeProviderFailureList, CodeHumanReview}},
	{"categories", []string{CodeCategoryResult, CodeSubcategoryResult, CodeUncategorized}},
	{"capability", []string{CodeCapabilityBlock, CodeCapabilityTier, CodeCapabilityCoverage, CodeCapabilityScore}},
	{"completeness", []string{CodeComplete, CodeConfigurationCoverage, CodePartial}},
	{"identity", []string{CodeProfileVersion, CodeProfileID, CodeProfileName, CodeCoreVersion, CodeAgentIdentity, CodeHeterogeneity, CodeAgentConfiguration, CodeTier, CodeTimestamp}},
	{"report", []string{CodeUnknownField, CodeAdversarial, CodeNotReDerivable}},
	{executionGroup, executionCodes},
}

// Finding is one difference between a claimed report and the verdict the evidence gives.
type Finding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Scenario is the scenario concerned, "" for run-level findings.
	Scenario string `json:"scenario,omitempty"`
	// Subject names what was compared: a report field, a category, a score.
	Subject string `json:"subject"`
	// Claimed is what the report says, Derived what the evidence gives.
	Claimed string `json:"claimed"`
	Derived string `json:"derived"`
	// Message explains the finding in one or two sentences, citing the rule.
	Message string `json:"message"`
	// Evidence is what decides it: the violated checks and their citations, the recorder's
	// findings, the provider failure's signals.
	Evidence []string `json:"evidence,omitempty"`
	// ReportPath and ReportLine locate the claim in the report.
	ReportPath string `json:"report_path,omitempty"`
	ReportLine int    `json:"report_line,omitempty"`
	// Cause says why the finding arose (set by New); nil when Compare or CheckExecution is
	// called alone.
	Cause *Cause `json:"cause,omitempty"`
	// Exchanges are the sequence numbers (store.WireCall.Seq) of the recorded calls that show
	// an execution finding; nil for the others.
	Exchanges []int `json:"exchanges,omitempty"`
}
