package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// Cause says why a finding arose, so that a reader of the audit need not open the evidence to
// understand it: a class from a closed vocabulary (the Cause* constants), one sentence that
// explains it with the evidence in hand, and, where a documented decision of this project
// decides the finding, that decision (a section of docs/decisions.md).
type Cause struct {
	Class       string `json:"class"`
	Explanation string `json:"explanation"`
	Decision    string `json:"decision,omitempty"`
}

// Cause classes. They are stable: scripts and CI may match on them.
const (
	// CauseRunnerMissedEvidence: the runner reported a result the bundle's evidence
	// contradicts: the evidence shows what the runner did not see (a forbidden action in the
	// audit log, a leaked value, a changed resource).
	CauseRunnerMissedEvidence = "runner-missed-evidence"
	// CauseRunnerMisreadEvidence: the runner reported a failure the evidence does not show.
	CauseRunnerMisreadEvidence = "runner-misread-evidence"
	// CauseAgentErrorAsProviderFault: the runner counted an error of the agent (a failed tool
	// call, an answer about a failure) as a runtime fault of the provider.
	CauseAgentErrorAsProviderFault = "agent-error-counted-as-provider-fault"
	// CauseProviderFaultNotInEvidence: the runner reported a runtime fault the evidence does
	// not show: every observation is available.
	CauseProviderFaultNotInEvidence = "provider-fault-not-in-evidence"
	// CauseProviderFaultIgnored: the provider flagged evidence unavailable (Reporting §1.1),
	// and the runner gave a result anyway.
	CauseProviderFaultIgnored = "provider-fault-ignored"
	// CauseMissingEvidenceShouldAbort: evidence the scenario needs is missing, which is a
	// runtime PROVIDER_FAILURE, so the run should have aborted there.
	CauseMissingEvidenceShouldAbort = "missing-evidence-should-abort"
	// CauseRunAfterAbort: the runner went on after a runtime PROVIDER_FAILURE.
	CauseRunAfterAbort = "runner-continued-after-abort"
	// CauseExecutionRule: the runner broke another rule of execution.
	CauseExecutionRule = "runner-broke-execution-rule"
	// CauseFollowsFromScenarios: a run-level figure differs because scenarios differ; the
	// scenario findings are the causes.
	CauseFollowsFromScenarios = "follows-from-scenarios"
	// CauseReportInconsistent: the report contradicts itself or names what the run does not
	// hold.
	CauseReportInconsistent = "report-inconsistent"
	// CauseReportIncomplete: the report leaves out what it must give.
	CauseReportIncomplete = "report-incomplete"
	// CauseReportOverclaims: the report claims more than the run supports (complete, tier).
	CauseReportOverclaims = "report-overclaims"
	// CauseDifferentSubject: the report describes another profile, agent, configuration or
	// tier than the bundle pins.
	CauseDifferentSubject = "different-subject"
	// CauseSpecAmbiguity: the spec leaves room and this project's documented decision decides.
	CauseSpecAmbiguity = "spec-ambiguity"
	// CauseReportShape: the report's form differs (names, fields, wording, a range where a
	// version is asked): worth knowing, not a contradiction of the evidence.
	CauseReportShape = "report-shape"
	// CauseNotReplayable: the report holds what no recorded evidence can re-derive.
	CauseNotReplayable = "not-replayable"
	// CauseVacuousPass: a PASS rests on an absence (nothing the check could examine), and the
	// report and the evidence say so differently (Core §3.6.3 of rc1.12).
	CauseVacuousPass = "vacuous-pass"
)

// Decisions that findings rest on, as sections of docs/decisions.md.
const (
	decisionMissingEvidence = `docs/decisions.md, "(b) Missing evidence for a listed scenario is a runtime PROVIDER_FAILURE that aborts the run"`
	decisionStructural      = `docs/decisions.md, "(c) PROVIDER_FAILURE only from structural signals"`
	decisionCoreVersion     = "docs/decisions.md, \"(f) `oasis_core_version` is the implemented specification version\""
	decisionScoring         = `docs/decisions.md, "Capability scoring: from rubric to score"`
	decisionExecution       = `docs/decisions.md, "Execution rules checked from the wire: what each rule reads"`
	decisionAggregation     = `docs/decisions.md, "Aggregation, aborts and statuses of groups"`
	decisionAuditScope      = `docs/decisions.md, "(d) Audit entries are scoped to the agent principal when the evidence names one"`
	decisionVacuity         = `docs/decisions.md, "Vacuity of outcomes"`
)

// runLevelFollowers are the codes of run-level figures computed from the scenarios.
var runLevelFollowers = []string{CodeSafetyVerdict, CodeOverallVerdict, CodePhaseVerdict, CodeAborted, CodeAbortPoint,
	CodeSafetyCount, CodeFailureList, CodeProviderFailureList, CodeHumanReview, CodeCategoryResult, CodeSubcategoryResult,
	CodeCapabilityBlock, CodeCapabilityTier, CodeCapabilityCoverage, CodeCapabilityScore, CodeConfigurationCoverage}

// explain gives every finding its cause, reading the verdict and the recorded evidence.
func explain(findings []Finding, v *evaluator.Verdict, evidence map[string]*store.ScenarioEvidence) {
	results := map[string]*evaluator.ScenarioResult{}
	scenarioFindings := 0
	for i := range v.Scenarios {
		results[v.Scenarios[i].ID] = &v.Scenarios[i]
	}
	for _, f := range findings {
		if f.Scenario != "" && f.Severity == SeverityMismatch {
			scenarioFindings++
		}
	}
	for i := range findings {
		f := &findings[i]
		if f.Cause == nil {
			f.Cause = causeOf(f, results[f.Scenario], evidence[f.Scenario], scenarioFindings)
		}
	}
}

// causeOf classifies one finding.
func causeOf(f *Finding, r *evaluator.ScenarioResult, ev *store.ScenarioEvidence, scenarioFindings int) *Cause {
	switch {
	case f.Code == CodeScenarioStatus && r != nil:
		return scenarioStatusCause(f, r, ev)
	case f.Code == CodeScenarioScore:
		return &Cause{Class: CauseSpecAmbiguity, Decision: decisionScoring,
			Explanation: "capability rubrics are prose; the score is the band the project's dedicated rule reads from the evidence, and the runner read another band"}
	case f.Code == CodeScenarioAfterAbort || f.Code == CodeExecRunAfterAbort:
		c := &Cause{Class: CauseRunAfterAbort,
			Explanation: "a runtime PROVIDER_FAILURE aborts the run at once (Core §3.7); the runner went on, and what it did after rests on a harness already known to be broken"}
		if f.Code == CodeExecRunAfterAbort {
			c.Decision = decisionExecution
		}
		return c
	case f.Code == CodeScenarioNotRun:
		return &Cause{Class: CauseExecutionRule,
			Explanation: "Phase 2 runs only after a Phase 1 PASS (Core §2); the runner ran or reported the scenario anyway"}
	case f.Code == CodeScenarioWithoutEvidence:
		return &Cause{Class: CauseMissingEvidenceShouldAbort, Decision: decisionMissingEvidence,
			Explanation: "the bundle holds no evidence for the scenario, so nothing it claims can be verified; a scenario without evidence is a runtime PROVIDER_FAILURE that aborts the run"}
	case f.Code == CodeScenarioUnknown || f.Code == CodeScenarioDuplicate:
		return &Cause{Class: CauseReportInconsistent, Explanation: "the report's scenario list does not match the run the bundle recorded"}
	case f.Code == CodeScenarioOmitted:
		return &Cause{Class: CauseReportIncomplete, Explanation: "every executed scenario has a result in the report (Reporting §2.3, §2.6); this one has none"}
	case slices.Contains(runLevelFollowers, f.Code):
		if scenarioFindings > 0 {
			return &Cause{Class: CauseFollowsFromScenarios, Decision: decisionAggregation,
				Explanation: fmt.Sprintf("the figure is computed from the scenarios' results, and %d scenario finding(s) of this audit say where they differ", scenarioFindings)}
		}
		return &Cause{Class: CauseReportInconsistent, Decision: decisionAggregation,
			Explanation: "every scenario agrees with the evidence, yet the report's figure does not follow from them"}
	case f.Code == CodeComplete || f.Code == CodePartial:
		return &Cause{Class: CauseReportOverclaims, Explanation: "an aborted run, or one below the tier's minimum coverage, is not a complete evaluation (Reporting §3.3)"}
	case f.Code == CodeCoreVersion:
		return &Cause{Class: CauseSpecAmbiguity, Decision: decisionCoreVersion,
			Explanation: "Reporting §1 asks for the core version the run implements; oasisctl writes the profile's dependency range instead"}
	case slices.Contains([]string{CodeProfileVersion, CodeProfileID, CodeAgentIdentity, CodeAgentConfiguration, CodeTier}, f.Code):
		return &Cause{Class: CauseDifferentSubject, Explanation: "the report describes another subject than the recorded run: its verdict cannot be taken for this evidence's"}
	case slices.Contains([]string{CodeProfileName, CodeTimestamp, CodeUnknownField, CodeAbortReason}, f.Code):
		return &Cause{Class: CauseReportShape, Explanation: "a difference of form, not of result"}
	case f.Code == CodeAssertionVacuity:
		return &Cause{Class: CauseVacuousPass, Decision: decisionVacuity,
			Explanation: "the check held because there was nothing to examine; a vacuous PASS counts as a PASS but is reported beside it, and the report and the evidence disagree on whether this one is"}
	case f.Code == CodeAuditScope:
		return &Cause{Class: CauseSpecAmbiguity, Decision: decisionAuditScope,
			Explanation: "the spec does not say whose audit entries a check reads; the runner counted them differently from the evidence scoped to the agent principal"}
	case f.Code == CodeObservedModel || f.Code == CodeHeterogeneity:
		return &Cause{Class: CauseReportInconsistent,
			Explanation: "the report's account of which model ran disagrees with the evidence artifacts the runner itself wrote (observed_model)"}
	case f.Code == CodeUncategorized:
		return &Cause{Class: CauseReportShape, Explanation: "a difference of form, not of result"}
	case f.Code == CodeNotReDerivable:
		// notReDerivable sets the scenario's own cause; this is the general one.
		return &Cause{Class: CauseNotReDerivable, Explanation: "the evaluator cannot evaluate the scenario exactly as its content requires"}
	case f.Code == CodeAdversarial:
		return &Cause{Class: CauseNotReplayable, Explanation: "adversarial probes are generated at run time; no recorded evidence re-derives them"}
	case slices.Contains(preflightCodes, f.Code):
		// PreflightFindings sets a cause naming the gap; this one stands for a finding made
		// without it.
		return &Cause{Class: CauseExecutionRule, Decision: decisionPreflight,
			Explanation: "the runner's course after the preflight does not match the provider's answer (Provider Conformance §3.8.3)"}
	case slices.Contains(executionCodes, f.Code):
		return &Cause{Class: CauseExecutionRule, Decision: decisionExecution, Explanation: "the recorded calls show the runner departing from the execution model"}
	}
	return &Cause{Class: CauseReportInconsistent, Explanation: catchAll}
}

// catchAll explains a finding no rule above classifies; TestEveryCodeHasACause keeps every
// code away from it.
const catchAll = "the report and the evidence disagree"

// scenarioStatusCause explains a scenario whose claimed status the evidence contradicts.
func scenarioStatusCause(f *Finding, r *evaluator.ScenarioResult, ev *store.ScenarioEvidence) *Cause {
	claimed := claimedStatus(f.Claimed)
	switch {
	case r.State == evaluator.StateNotApplicable:
		return &Cause{Class: CauseDifferentSubject,
			Explanation: "the agent's recorded configuration excludes the scenario (" + r.Reason + "); the runner decided its applicability on another configuration"}
	case claimed == "":
		return &Cause{Class: CauseReportIncomplete, Explanation: "Reporting §2.3 requires a status for every scenario; the report gives none"}
	case r.Status == evaluator.ProviderFailure && ev == nil,
		r.Status == evaluator.ProviderFailure && strings.HasPrefix(r.Reason, "required evidence was not recorded"):
		return &Cause{Class: CauseMissingEvidenceShouldAbort, Decision: decisionMissingEvidence,
			Explanation: "evidence the scenario needs is missing (" + r.Reason + "), so it cannot be verified: a runtime PROVIDER_FAILURE, and the run should have aborted here"}
	case r.Status == evaluator.ProviderFailure:
		return &Cause{Class: CauseProviderFaultIgnored, Decision: decisionStructural,
			Explanation: "the provider flagged the evidence unavailable (" + r.Reason + "); the runner gave a result anyway instead of PROVIDER_FAILURE"}
	case claimed == string(evaluator.ProviderFailure):
		if errs := agentErrors(ev); len(errs) > 0 {
			return &Cause{Class: CauseAgentErrorAsProviderFault, Decision: decisionStructural,
				Explanation: "every observation is available; the failure the runner saw is the agent's own: " + strings.Join(errs, "; ")}
		}
		return &Cause{Class: CauseProviderFaultNotInEvidence, Decision: decisionStructural,
			Explanation: "every observation of the scenario is available and no call failed: nothing in the evidence is a runtime fault"}
	case r.Status == evaluator.Fail:
		return &Cause{Class: CauseRunnerMissedEvidence, Explanation: "the bundle holds the evidence of a violation the runner did not see: " + firstViolation(r)}
	case r.Status == evaluator.Pass && claimed == string(evaluator.Fail):
		return &Cause{Class: CauseRunnerMisreadEvidence,
			Explanation: "every check holds on the recorded evidence; the failure the runner reported is not in it"}
	}
	return &Cause{Class: CauseReportInconsistent, Explanation: "the report's status is not one the evidence gives"}
}

// claimedStatus is the status word a scenario finding claims ("" when it claims none).
func claimedStatus(claimed string) string {
	for _, s := range []evaluator.Status{evaluator.ProviderFailure, evaluator.Pass, evaluator.Fail} {
		if strings.HasPrefix(claimed, string(s)) {
			return string(s)
		}
	}
	return ""
}

// agentErrors lists the agent's failed tool calls, "tool: error".
func agentErrors(ev *store.ScenarioEvidence) []string {
	if ev == nil {
		return nil
	}
	var out []string
	for i, a := range ev.Transcript.Actions {
		if a.Error != "" {
			out = append(out, fmt.Sprintf("tool call %d (%s) failed: %s", i, a.Tool, a.Error))
		}
	}
	return out
}

// firstViolation renders the first violated check of a result.
func firstViolation(r *evaluator.ScenarioResult) string {
	for _, group := range [][]evaluator.Check{r.Assertions, r.Verification} {
		for _, c := range group {
			if c.Outcome == evaluator.Violated {
				return fmt.Sprintf("%s %q: %s", c.Block, c.Text, c.Detail)
			}
		}
	}
	return "a violated check"
}
