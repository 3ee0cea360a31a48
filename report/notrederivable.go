package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
)

// What an audit cannot re-derive. Content valid for its OASIS version that the evaluator
// cannot evaluate exactly (profiles.ErrNotReDerivable: a Form B score, an agent failure
// report, a prose entry without a reading, evidence past a bound of the evaluator) is
// evaluated with evaluator.Options.MarkNotReDerivable: the scenario is in
// evaluator.StateNotReDerivable, the others are evaluated. The audit then says so per
// scenario, and what the claim says of that scenario, or of a group it belongs to, is neither
// confirmed nor contradicted (docs/decisions.md, "Audit: not re-derivable in OASIS and Eval
// Library audits").

// SeverityNotReDerivable: the claim is neither confirmed nor contradicted there: the evaluator
// cannot evaluate what it rests on exactly. No mismatch and at least one such finding makes
// the audit's exit status 3.
const SeverityNotReDerivable Severity = "not-re-derivable"

// CodeNotReDerivable is the finding of a scenario the evaluator cannot evaluate exactly, its
// cause in Evidence and Cause.
const CodeNotReDerivable = "not-re-derivable"

// CauseNotReDerivable: the evaluator cannot evaluate the scenario exactly as its content
// requires; nothing about it was compared.
const CauseNotReDerivable = "not-re-derivable"

// aggregateGroups are the check groups whose findings compare counts, lists or results over
// many scenarios: a scenario left out as not re-derivable changes them by construction.
var aggregateGroups = []string{"verdict", "counts", "categories", "capability", "completeness"}

// notReDerivable adds a finding for each scenario of v the evaluator could not evaluate
// exactly, and turns the mismatches that rest on one into not-re-derivable findings: those
// about the scenario itself, those about its category or subcategory, and every run-level
// comparison of verdicts, counts, lists, capability and coverage (a safety scenario's status
// decides whether Phase 2 runs, so none of them is independent of it). Other findings (other
// scenarios and categories, identity, the report's form, the execution rules) are unchanged.
//
// unsupported adds causes the claim itself gives (agentFailures): by scenario id, and under ""
// one of the whole run, a run-level finding that makes every run-level comparison not
// re-derivable.
func notReDerivable(findings []Finding, v *evaluator.Verdict, claim map[string]string, unsupported map[string]string) []Finding {
	var ids []string
	causes := map[string]string{}
	var categories []string
	for i := range v.Scenarios {
		r := &v.Scenarios[i]
		cause, claimed := unsupported[r.ID]
		if r.State != evaluator.StateNotReDerivable && !claimed {
			continue
		}
		if r.State == evaluator.StateNotReDerivable {
			cause = r.Reason
		}
		ids = append(ids, r.ID)
		causes[r.ID] = cause
		categories = append(categories, r.Category)
		if r.Subcategory != "" {
			categories = append(categories, r.Subcategory)
		}
	}
	run, whole := unsupported[""]
	if len(ids) == 0 && !whole {
		return findings
	}
	depends := fmt.Sprintf("; it depends on %s, which the evaluator cannot re-derive (see the not-re-derivable finding)", strings.Join(ids, ", "))
	if whole {
		depends = "; it depends on the run's agent failure reports, which the evaluator cannot re-derive (see the not-re-derivable finding)"
	}
	for i := range findings {
		f := &findings[i]
		if f.Severity != SeverityMismatch || !restsOn(f, causes, categories, whole) {
			continue
		}
		f.Severity = SeverityNotReDerivable
		f.Message += depends
		f.Cause = &Cause{Class: CauseNotReDerivable, Explanation: "the claim here depends on what the evaluator cannot evaluate exactly, so it is neither confirmed nor contradicted"}
	}
	if whole {
		findings = append(findings, Finding{Code: CodeNotReDerivable, Severity: SeverityNotReDerivable, Subject: "run", Claimed: "agent failure reports",
			Derived: "(not re-derivable)", Evidence: []string{run},
			Message: "the claim applies a rule the evaluator does not implement to the run; its run-level figures are neither confirmed nor contradicted",
			Cause:   &Cause{Class: CauseNotReDerivable, Explanation: run}})
	}
	for _, id := range ids {
		claimed, listed := claim[id]
		if !listed {
			claimed = "(not listed)"
		}
		findings = append(findings, Finding{Code: CodeNotReDerivable, Severity: SeverityNotReDerivable, Scenario: id, Subject: "scenario " + id,
			Claimed: claimed, Derived: "(not re-derivable)", Evidence: []string{causes[id]},
			Message: "the evaluator cannot evaluate this scenario exactly as its content requires; what the claim says of it is neither confirmed nor contradicted, and the other scenarios are compared",
			Cause:   &Cause{Class: CauseNotReDerivable, Explanation: causes[id]}})
	}
	return findings
}

// restsOn reports whether a mismatch rests on a scenario not re-derivable: it is about one,
// or it compares a group that holds one; with whole, on the run: every run-level comparison.
func restsOn(f *Finding, causes map[string]string, categories []string, whole bool) bool {
	if f.Scenario != "" {
		_, ok := causes[f.Scenario]
		return ok
	}
	group := ""
	for _, g := range checkGroups {
		if slices.Contains(g.codes, f.Code) {
			group = g.name
		}
	}
	switch {
	case !slices.Contains(aggregateGroups, group):
		return false
	case !whole && group == "categories" && (f.Code == CodeCategoryResult || f.Code == CodeSubcategoryResult):
		return slices.ContainsFunc(categories, func(c string) bool { return f.Subject == "category "+c || f.Subject == "subcategory "+c })
	}
	return true
}

// NotReDerivable counts the findings the evaluator could not decide.
func (a *Audit) NotReDerivable() int { return Count(a.Findings, SeverityNotReDerivable) }

// Outcome is the audit's conclusion: "mismatch" when a finding is a mismatch, else
// "not-re-derivable" when one is not re-derivable, else "reproduced".
func (a *Audit) Outcome() string {
	switch {
	case a.Mismatches() > 0:
		return "mismatch"
	case a.NotReDerivable() > 0:
		return string(SeverityNotReDerivable)
	}
	return "reproduced"
}
