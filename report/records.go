package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/replay"
)

// What a report of core 1.0.0-rc1.11 or later claims beside the verdict, compared with the
// evidence whatever core version the report declares: these are claims about the evidence,
// and no verdict rule moves with them (docs/decisions.md, "Vacuity, audit scope and agent
// identity in the audit").

// records compares a listed scenario's assertion results (vacuity and audit scope) and its
// observed model.
func (cmp *comparer) records(sc oasisctl.ScenarioClaim, r *evaluator.ScenarioResult) {
	if r.State == evaluator.StateEvaluated {
		cmp.assertionResults(sc, r)
	}
	cmp.observedModel(sc)
}

// assertionResults pairs each claimed assertion result with the re-derived check of the same
// text (must, must_not and value containment entries, in order) and compares, where both
// hold, the vacuity (Core §3.6.3 of core 1.0.0-rc1.12) and, once per scenario, the audit
// scope. Whether a check holds is a status question, decided at the scenario's level
// (scenario-status); vacuity is compared only where the report and the evidence both say it
// held.
func (cmp *comparer) assertionResults(sc oasisctl.ScenarioClaim, r *evaluator.ScenarioResult) {
	var checks []evaluator.Check
	for _, c := range slices.Concat(r.Assertions, r.Verification) {
		if c.Block == profiles.BlockMust || c.Block == profiles.BlockMustNot || c.Block == profiles.BlockContainment {
			checks = append(checks, c)
		}
	}
	used := make([]bool, len(checks))
	scopeCompared := false
	for _, a := range sc.Assertions {
		i := -1
		for j, c := range checks {
			if !used[j] && c.Text == a.Text {
				i = j
				break
			}
		}
		if i < 0 {
			continue
		}
		used[i] = true
		chk := checks[i]
		if a.Status.Value == string(evaluator.Pass) && chk.Outcome == evaluator.Satisfied {
			cmp.vacuity(sc.ID, a, chk)
		}
		if a.Scope != nil && chk.Scope != nil && !scopeCompared {
			scopeCompared = cmp.auditScope(sc.ID, a, chk)
		}
	}
}

// vacuity compares a PASS's claimed vacuity with the re-derived check's. A report that says
// the check examined something where the evidence held nothing to examine is a mismatch: the
// absence Core §3.6.3 asks to report is hidden. Calling a PASS vacuous that the evidence's
// check decided on entries, or naming another absence, is a note: both PASSes stand, and
// the difference lies in the action bridges (docs/decisions.md, "Action grammar vs Kubernetes
// audit events").
func (cmp *comparer) vacuity(scenario string, a oasisctl.AssertionClaim, chk evaluator.Check) {
	if !a.Vacuous.Present {
		return
	}
	claimed, derived := a.Vacuous.Value, chk.Vacuity
	f := Finding{Code: CodeAssertionVacuity, Scenario: scenario, Subject: a.Vacuous.Path,
		Claimed: vacuityText(claimed, a.VacuityReason.Value), Derived: vacuityText(derived != "", derived),
		Evidence: append([]string{replay.DescribeCheck(chk)}, cites(chk)...), ReportPath: a.Vacuous.Path, ReportLine: a.Vacuous.Line}
	switch {
	case !claimed && derived != "":
		f.Severity = SeverityMismatch
		f.Message = fmt.Sprintf("the report presents the PASS of %q as resting on evidence; the check had nothing to examine (%s), and Core §3.6.3 (core 1.0.0-rc1.12) reports such a PASS as vacuous beside its verdict", a.Text, derived)
	case claimed && derived == "":
		f.Severity = SeverityNote
		f.Message = fmt.Sprintf("the report calls the PASS of %q vacuous (%s); re-derived, the check had %s to examine, so the PASS rests on evidence; it stands either way%s",
			a.Text, orNone(a.VacuityReason.Value, "no reason given"), examined(chk), bridged(a.VacuityReason.Value))
	case claimed && a.VacuityReason.Value != derived:
		f.Severity = SeverityNote
		f.Message = fmt.Sprintf("both call the PASS of %q vacuous, for different absences (the closed vocabulary is oasisctl's, evaluator/evidence)%s", a.Text, unknownReason(a.VacuityReason.Value))
	default:
		return
	}
	cmp.add(f)
}

// examined says what a check that is not vacuous read.
func examined(chk evaluator.Check) string {
	if s := chk.Scope; s != nil {
		return fmt.Sprintf("the agent's %d of %d audit entries (principal %s)", s.AgentEntries, s.TotalEntries, orNone(s.Principal, "none declared"))
	}
	return "the evidence its rule reads (" + chk.Rule + ")"
}

// bridged explains an unmatchable_action the evaluator's action bridge does match.
func bridged(reason string) string {
	if reason != "unmatchable_action" {
		return ""
	}
	return "; this evaluator's action bridge maps the action onto Kubernetes audit events (docs/decisions.md, \"Action grammar vs Kubernetes audit events\")"
}

func vacuityText(vacuous bool, reason string) string {
	if !vacuous {
		return "not vacuous"
	}
	return "vacuous: " + orNone(reason, "(no reason)")
}

// unknownReason notes a claimed reason outside the closed vocabulary.
func unknownReason(reason string) string {
	if slices.Contains(evaluator.VacuityReasons(), reason) {
		return ""
	}
	return fmt.Sprintf("; %q is not one of its reasons", reason)
}

// auditScope compares a claimed audit_scope with the scope of the re-derived check: how many
// of the log's entries were the agent's, and under which principal. These are counts of
// recorded evidence, so a difference is a mismatch. It reports whether it compared.
func (cmp *comparer) auditScope(scenario string, a oasisctl.AssertionClaim, chk evaluator.Check) bool {
	s, d := a.Scope, chk.Scope
	if !s.AgentEntries.Present && !s.TotalEntries.Present && !s.Principal.Present {
		return false
	}
	claimed := scopeText(s.Principal.Value, s.AgentEntries, s.TotalEntries)
	derived := scopeText(d.Principal, oasisctl.Claimed[int]{Value: d.AgentEntries, Present: true}, oasisctl.Claimed[int]{Value: d.TotalEntries, Present: true})
	differs := s.Principal.Value != d.Principal ||
		(s.AgentEntries.Present && s.AgentEntries.Value != d.AgentEntries) || (s.TotalEntries.Present && s.TotalEntries.Value != d.TotalEntries)
	if differs {
		cmp.add(Finding{Code: CodeAuditScope, Severity: SeverityMismatch, Scenario: scenario, Subject: s.Path, Claimed: claimed, Derived: derived,
			ReportPath: s.Path, ReportLine: s.Line, Evidence: cites(chk),
			Message: "the report attributes another share of the audit log to the agent than the recorded log gives: the agent's entries are those of the declared agent principal, counted over every audit_log observation of the scenario (docs/decisions.md (d))"})
	}
	return true
}

func scopeText(principal string, agent, total oasisctl.Claimed[int]) string {
	count := func(c oasisctl.Claimed[int]) string {
		if !c.Present {
			return absent
		}
		return strconv.Itoa(c.Value)
	}
	return fmt.Sprintf("principal %s, %s agent entries of %s", orNone(principal, "(none declared)"), count(agent), count(total))
}

// cites renders a check's citations.
func cites(chk evaluator.Check) []string {
	out := make([]string, 0, len(chk.Cites))
	for _, c := range chk.Cites {
		out = append(out, "  "+replay.Cite(c))
	}
	return out
}

// observedModel compares a scenario record's observed model with the model the scenario's
// evidence records (its artifact's observed_model, Reporting §1.2 of core 1.0.0-rc1.11).
func (cmp *comparer) observedModel(sc oasisctl.ScenarioClaim) {
	ev, ok := cmp.observed[sc.ID]
	if !ok || !sc.ObservedModel.Present || sc.ObservedModel.Value == ev {
		return
	}
	msg := "the scenario record names another observed model than the scenario's evidence records (Reporting §1.2: the observed model is read from the evidence a run collects)"
	if ev == "" {
		msg = "the scenario record names an observed model the scenario's evidence does not record (its observed_model is null), so nothing supports it (Reporting §1.2)"
	}
	cmp.add(at(Finding{Code: CodeObservedModel, Severity: SeverityMismatch, Scenario: sc.ID, Subject: sc.ObservedModel.Path,
		Claimed: sc.ObservedModel.Value, Derived: orNone(ev, "(none recorded)"), Message: msg}, sc.ObservedModel))
}

// heterogeneity compares the run's heterogeneity flag and detail with the observed models the
// evidence records against the declared model (Reporting §1.2 of core 1.0.0-rc1.11: an
// observed model that differs from the declared one on any scenario MUST flag the run).
// Scenarios whose evidence records no observed model differ from nothing.
func (cmp *comparer) heterogeneity() {
	if cmp.observed == nil {
		return
	}
	id := cmp.c.Identity
	if id == nil || !id.DeclaredModel.Present {
		cmp.undeclaredModels(id)
		return
	}
	declared := id.DeclaredModel.Value
	var differing []string
	derivedDetail := map[string]string{}
	for _, ref := range cmp.m.Scenarios {
		if model := cmp.observed[ref.ScenarioID]; model != "" && model != declared {
			differing = append(differing, ref.ScenarioID+": observed "+model)
			derivedDetail[ref.ScenarioID] = model
		}
	}
	derived := fmt.Sprintf("%v (%d scenario(s) observed another model than %s)", len(differing) > 0, len(differing), declared)
	if h := id.Heterogeneous; h.Present && h.Value != (len(differing) > 0) {
		msg := "Reporting §1.2: an observed model that differs from the declared one on any scenario MUST flag the run heterogeneous"
		if h.Value {
			msg = "the report flags the run heterogeneous; every observed model the evidence records is the declared one"
		}
		cmp.add(at(Finding{Code: CodeHeterogeneity, Severity: SeverityMismatch, Subject: h.Path, Claimed: strconv.FormatBool(h.Value),
			Derived: derived, Evidence: differing, Message: msg}, h))
	}
	if d := id.Detail; d.Present {
		cmp.heterogeneityDetail(d, declared, derivedDetail)
	}
}

// heterogeneityDetail compares heterogeneity_detail with the scenarios the evidence shows
// differing, as a set of (scenario, declared, observed).
func (cmp *comparer) heterogeneityDetail(d oasisctl.Claimed[[]oasisctl.HeterogeneityClaim], declared string, derived map[string]string) {
	var diffs, claimed []string
	listed := map[string]bool{}
	for _, e := range d.Value {
		listed[e.ScenarioID] = true
		claimed = append(claimed, e.ScenarioID+": "+e.DeclaredModel+" → "+e.ObservedModel)
		switch model, ok := derived[e.ScenarioID]; {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s is listed, but its evidence records %s", e.ScenarioID, orNone(cmp.observed[e.ScenarioID], "no observed model")))
		case model != e.ObservedModel:
			diffs = append(diffs, fmt.Sprintf("%s is listed with observed %s, its evidence records %s", e.ScenarioID, e.ObservedModel, model))
		case e.DeclaredModel != declared:
			diffs = append(diffs, fmt.Sprintf("%s is listed with declared %s, the declaration says %s", e.ScenarioID, e.DeclaredModel, declared))
		}
	}
	var want []string
	for _, ref := range cmp.m.Scenarios {
		if model, ok := derived[ref.ScenarioID]; ok {
			want = append(want, ref.ScenarioID+": "+declared+" → "+model)
			if !listed[ref.ScenarioID] {
				diffs = append(diffs, fmt.Sprintf("%s is not listed, but its evidence records %s", ref.ScenarioID, model))
			}
		}
	}
	if len(diffs) == 0 {
		return
	}
	cmp.add(at(Finding{Code: CodeHeterogeneity, Severity: SeverityMismatch, Subject: d.Path, Claimed: listOrNone(claimed), Derived: listOrNone(want),
		Evidence: diffs, Message: "heterogeneity_detail lists every scenario whose observed model differs from the declared one, with both values (Reporting §1.2)"}, d))
}

// undeclaredModels notes a run whose evidence records more than one observed model when the
// report declares no model to compare them with.
func (cmp *comparer) undeclaredModels(id *oasisctl.IdentityClaim) {
	models := map[string][]string{}
	var order []string
	for _, ref := range cmp.m.Scenarios {
		if model := cmp.observed[ref.ScenarioID]; model != "" {
			if _, ok := models[model]; !ok {
				order = append(order, model)
			}
			models[model] = append(models[model], ref.ScenarioID)
		}
	}
	if len(order) < 2 {
		return
	}
	var evidence []string
	for _, m := range order {
		evidence = append(evidence, fmt.Sprintf("%s: %s", m, strings.Join(models[m], ", ")))
	}
	f := Finding{Code: CodeHeterogeneity, Severity: SeverityNote, Subject: "metadata.agent_identity", Claimed: "(no declared model)",
		Derived: fmt.Sprintf("%d observed models: %s", len(order), strings.Join(order, ", ")), Evidence: evidence,
		Message: "the evidence records more than one observed model; Reporting §1.2 (core 1.0.0-rc1.11) declares the model once and flags a run whose scenarios observed another"}
	if id != nil {
		f.ReportPath, f.ReportLine = id.Path, id.Line
	}
	cmp.add(f)
}

// uncategorized notes the scenarios oasisctl could not place in a category, with the category
// the pinned profile files them under.
func (cmp *comparer) uncategorized() {
	u := cmp.c.Uncategorized
	if len(u.Value) == 0 {
		return
	}
	var derived []string
	for _, id := range u.Value {
		if i, ok := cmp.index[id]; ok {
			derived = append(derived, id+" in "+cmp.v.Scenarios[i].Category)
		} else {
			derived = append(derived, id+" (not in the bundle)")
		}
	}
	cmp.add(at(Finding{Code: CodeUncategorized, Severity: SeverityNote, Subject: u.Path, Claimed: listOrNone(u.Value), Derived: strings.Join(derived, "; "),
		Message: "the runner could not place these scenarios in a category; the re-derived category results use the categories the pinned profile gives them"}, u))
}
