package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/replay"
)

// scenarios compares per-scenario claims. A report with a scenario list is compared entry by
// entry; a report without one (the spec's verdict object) is compared through its failure
// lists, so that a scenario the evidence fails is still named with its deciding evidence.
func (cmp *comparer) scenarios() {
	if !cmp.c.ListsScenarios {
		cmp.scenariosFromLists()
		return
	}
	seen := map[string]bool{}
	for _, sc := range cmp.c.Scenarios {
		if seen[sc.ID] {
			cmp.add(Finding{Code: CodeScenarioDuplicate, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Path,
				Claimed: show(sc.Status), Derived: "(listed once in the run)", ReportPath: sc.Path, ReportLine: sc.Line,
				Message: "the report lists the scenario more than once"})
			continue
		}
		seen[sc.ID] = true
		cmp.scenario(sc)
	}
	for i := range cmp.v.Scenarios {
		r := &cmp.v.Scenarios[i]
		if !seen[r.ID] && r.State == evaluator.StateEvaluated {
			cmp.add(Finding{Code: CodeScenarioOmitted, Severity: SeverityMismatch, Scenario: r.ID, Subject: "scenario " + r.ID,
				Claimed: "(not listed)", Derived: replay.ScenarioOutcome(r), Evidence: replay.Evidence(r),
				Message: "the report omits a scenario the evidence gives a result for (Reporting §2.3 and §2.6 require every executed scenario)"})
		}
	}
}

// scenario compares one listed scenario.
func (cmp *comparer) scenario(sc oasisctl.ScenarioClaim) {
	i, ok := cmp.index[sc.ID]
	if !ok {
		cmp.add(Finding{Code: CodeScenarioUnknown, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Path,
			Claimed: claimedOutcome(sc), Derived: "(not in the bundle)", ReportPath: sc.Path, ReportLine: sc.Line,
			Message: "the report gives a result for a scenario the recorded run does not list: no evidence can support it"})
		return
	}
	r := &cmp.v.Scenarios[i]
	cmp.outcome(sc, i, r)
	cmp.records(sc, r)
	sameAccount := sc.Status.Value == string(r.Status) && sc.Reason == r.Reason
	if !cmp.evidence[sc.ID] && r.State == evaluator.StateEvaluated && !sameAccount {
		// A scenario the evaluation never reaches needs no evidence; a claim that gives the
		// evidence's own status and reason already says why it has none.
		cmp.withoutEvidence(sc, r)
	}
}

// outcome compares what the report says of a listed scenario with what became of it.
func (cmp *comparer) outcome(sc oasisctl.ScenarioClaim, i int, r *evaluator.ScenarioResult) {
	switch {
	case sc.Status.Present && sc.Status.Value == r.State:
		// An oasis-replay verdict states what became of a scenario without a status
		// (not_run, not_applicable, not_selected); the same state is no difference.
	case r.State == evaluator.StateNotRun && cmp.abortAt >= 0 && i > cmp.abortAt:
		cmp.add(Finding{Code: CodeScenarioAfterAbort, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Path,
			Claimed: claimedOutcome(sc), Derived: "not run: " + cmp.v.Scenarios[cmp.abortAt].ID + " aborted the run before it",
			ReportPath: sc.Path, ReportLine: sc.Line, Evidence: []string{"aborted at " + cmp.v.Scenarios[cmp.abortAt].ID + ": " + cmp.v.Metadata.AbortReason},
			Message: "the report lists a scenario after the abort point; Core §3.7 aborts the run immediately at a runtime PROVIDER_FAILURE, so no later scenario is evaluated (Reporting §3.1)"})
	case r.State == evaluator.StateNotRun:
		cmp.add(Finding{Code: CodeScenarioNotRun, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Path,
			Claimed: claimedOutcome(sc), Derived: "not run", ReportPath: sc.Path, ReportLine: sc.Line, Evidence: []string{r.Reason},
			Message: "the report lists a result for a scenario the evaluation does not run: Phase 2 runs only after a Phase 1 PASS (Core §2)"})
	case r.State == evaluator.StateNotApplicable:
		if sc.Status.Present && sc.Status.Value != "NOT_APPLICABLE" && sc.Status.Value != evaluator.StateNotApplicable {
			cmp.add(Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Status.Path,
				Claimed: sc.Status.Value, Derived: "NOT_APPLICABLE: " + r.Reason, ReportPath: sc.Status.Path, ReportLine: sc.Status.Line,
				Message: "the scenario is excluded for the agent's configuration: NOT_APPLICABLE is an exclusion, not a result (Core §3.6.1)"})
		}
	case r.State == evaluator.StateEvaluated && r.Classification == string(profiles.Capability):
		cmp.capabilityScenario(sc, r)
	case r.State == evaluator.StateEvaluated:
		cmp.safetyScenario(sc, r)
	}
}

// withoutEvidence reports a listed scenario the bundle has no evidence for. Claiming PASS,
// FAIL or a score without evidence is unsupported; claiming PROVIDER_FAILURE is consistent
// with having none, but the claimed cause cannot be checked.
func (cmp *comparer) withoutEvidence(sc oasisctl.ScenarioClaim, r *evaluator.ScenarioResult) {
	severity, msg := SeverityNote, "the bundle holds no evidence for this scenario, so the report's account of it (the runtime fault, Reporting §2.3) cannot be checked; "+
		"missing evidence is itself a runtime PROVIDER_FAILURE (docs/decisions.md (b))"
	if assertsResult(sc) && sc.Status.Value != string(evaluator.ProviderFailure) {
		severity, msg = SeverityMismatch, "the report gives a result the bundle holds no evidence for; no result can be verified without it (Core §3.4, Reporting §2.6)"
	}
	var evidence []string
	for _, f := range cmp.m.Findings {
		if f.Scenario == sc.ID {
			evidence = append(evidence, fmt.Sprintf("recorder finding %s %s: %s", f.Severity, f.Code, f.Message))
		}
	}
	if len(evidence) == 0 {
		evidence = []string{"the run manifest lists the scenario without an evidence object"}
	}
	cmp.add(Finding{Code: CodeScenarioWithoutEvidence, Severity: severity, Scenario: sc.ID, Subject: sc.Path,
		Claimed: claimedOutcome(sc), Derived: replay.ScenarioOutcome(r), ReportPath: sc.Path, ReportLine: sc.Line,
		Evidence: evidence, Message: msg})
}

// safetyScenario compares a safety scenario's claimed status with the evidence's.
func (cmp *comparer) safetyScenario(sc oasisctl.ScenarioClaim, r *evaluator.ScenarioResult) {
	if sc.Status.Present && sc.Status.Value == string(r.Status) {
		return
	}
	msg := fmt.Sprintf("the report claims %s; the evidence gives %s", claimedOutcome(sc), r.Status)
	switch {
	case !sc.Status.Present:
		msg = "the report gives no status; Reporting §2.3 requires a result (PASS, FAIL or PROVIDER_FAILURE) for every scenario, and the evidence gives " + string(r.Status)
	case r.Status == evaluator.Fail:
		msg += ": the checks below are violated (Core §3.5.1: what the agent did decides, not what it said)"
	}
	cmp.add(Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Status.Path,
		Claimed: claimedOutcome(sc), Derived: string(r.Status), ReportPath: sc.Status.Path, ReportLine: orLine(sc.Status.Line, sc.Line),
		Evidence: replay.Evidence(r), Message: msg + notAStatus(sc.Status.Value)})
}

// capabilityScenario compares a capability scenario: whether it was scored or stopped by a
// runtime fault, then its score as a decimal (Core §4.3).
func (cmp *comparer) capabilityScenario(sc oasisctl.ScenarioClaim, r *evaluator.ScenarioResult) {
	claimedPF := sc.Status.Value == string(evaluator.ProviderFailure)
	derivedPF := r.Status == evaluator.ProviderFailure
	if claimedPF != derivedPF || (!sc.Status.Present && derivedPF) {
		cmp.add(Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: sc.ID, Subject: orNone(sc.Status.Path, sc.Path),
			Claimed: claimedOutcome(sc), Derived: replay.ScenarioOutcome(r), ReportPath: orNone(sc.Status.Path, sc.Path), ReportLine: orLine(sc.Status.Line, sc.Line),
			Evidence: replay.Evidence(r),
			Message:  "a capability scenario is either scored or stopped by a runtime PROVIDER_FAILURE (Core §2.2, §3.7); the report and the evidence disagree on which"})
		return
	}
	if derivedPF || r.Score == nil {
		return
	}
	switch {
	case !sc.Score.Present:
		cmp.add(Finding{Code: CodeScenarioScore, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Path,
			Claimed: claimedOutcome(sc), Derived: r.Score.Value.String(), ReportPath: sc.Path, ReportLine: sc.Line, Evidence: replay.Evidence(r),
			Message: "the report gives no score; the evidence scores the scenario (Reporting §2.6)"})
	case sc.Score.Value != r.Score.Value:
		cmp.add(Finding{Code: CodeScenarioScore, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.Score.Path,
			Claimed: sc.Score.Value.String(), Derived: r.Score.Value.String(), ReportPath: sc.Score.Path, ReportLine: sc.Score.Line,
			Evidence: replay.Evidence(r),
			Message:  fmt.Sprintf("the scores differ (compared as decimals rounded to %d places)%s", decimal.Places, errorsNote(sc))})
	}
}

func errorsNote(sc oasisctl.ScenarioClaim) string {
	if len(sc.Errors) == 0 {
		return ""
	}
	return "; the report's own errors for it: " + strings.Join(sc.Errors, "; ")
}

// assertsResult reports whether a scenario claim asserts a result: a status, or a score not
// accompanied by errors (oasisctl writes score 0 for scenarios it could not evaluate).
func assertsResult(sc oasisctl.ScenarioClaim) bool {
	return sc.Status.Present || (sc.Score.Present && len(sc.Errors) == 0)
}

// claimedOutcome renders what the report says of a scenario.
func claimedOutcome(sc oasisctl.ScenarioClaim) string {
	var parts []string
	if sc.Status.Present {
		parts = append(parts, sc.Status.Value)
	} else {
		parts = append(parts, "no status")
	}
	if sc.Score.Present {
		parts = append(parts, "score "+sc.Score.Value.String())
	}
	s := strings.Join(parts, ", ")
	if len(sc.Errors) > 0 {
		s += " (errors: " + strings.Join(sc.Errors, "; ") + ")"
	}
	return s
}

func orLine(line, fallback int) int {
	if line > 0 {
		return line
	}
	return fallback
}

// scenariosFromLists compares a report without a scenario list through its failure and
// provider failure lists: each scenario the evidence fails or stops must be listed as such,
// and each listed one must be.
func (cmp *comparer) scenariosFromLists() {
	c := cmp.c
	if !c.Failures.Present && !c.ProviderFailures.Present {
		return
	}
	claimed := map[string]oasisctl.Claimed[string]{}
	for _, l := range []struct {
		list   oasisctl.Claimed[[]string]
		status evaluator.Status
	}{{c.ProviderFailures, evaluator.ProviderFailure}, {c.Failures, evaluator.Fail}} {
		for _, id := range l.list.Value {
			claimed[id] = oasisctl.Claimed[string]{Value: string(l.status), Present: true, Path: l.list.Path, Line: l.list.Line}
		}
	}
	for i := range cmp.v.Scenarios {
		r := &cmp.v.Scenarios[i]
		if r.Classification != string(profiles.Safety) {
			continue
		}
		status, listed := claimed[r.ID]
		if !listed && (r.Status == evaluator.Fail || r.Status == evaluator.ProviderFailure) {
			status = oasisctl.Claimed[string]{Value: "not listed as failed", Present: true, Path: c.Failures.Path, Line: c.Failures.Line}
		} else if !listed || status.Value == string(r.Status) {
			continue
		}
		cmp.add(Finding{Code: CodeScenarioStatus, Severity: SeverityMismatch, Scenario: r.ID, Subject: status.Path,
			Claimed: status.Value, Derived: replay.ScenarioOutcome(r), ReportPath: status.Path, ReportLine: status.Line,
			Evidence: replay.Evidence(r), Message: "the report's failure lists and the evidence disagree on this scenario (Reporting §1 failures, provider_failures)"})
	}
	var unknown []string
	for id := range claimed {
		if _, ok := cmp.index[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	for _, id := range unknown {
		cmp.add(Finding{Code: CodeScenarioUnknown, Severity: SeverityMismatch, Scenario: id, Subject: claimed[id].Path,
			Claimed: claimed[id].Value, Derived: "(not in the bundle)", ReportPath: claimed[id].Path, ReportLine: claimed[id].Line,
			Message: "the report names a scenario the recorded run does not list: no evidence can support it"})
	}
}
