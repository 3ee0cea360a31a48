package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// absent is how a value the report does not give is shown.
const absent = "(absent)"

// Compare compares a claimed report with the verdict v that the evidence of the run m gives,
// and returns the findings: run-level verdicts, counts and lists, categories and
// subcategories, scenarios (in the report's order, then the scenarios it omits in manifest
// order), capability, completeness, identity, then the report's own fields. Everything is
// walked in a fixed or sorted order, so the same inputs always give the same findings.
// Without the run's evidence objects the observed models are not compared (CompareRun).
func Compare(c *oasisctl.Claim, v *evaluator.Verdict, m *store.RunManifest) []Finding {
	return compare(c, v, m, nil)
}

// CompareRun is Compare with the run's evidence objects, whose observed models the scenario
// records and the heterogeneity flag are compared with (Reporting §1.2 of core 1.0.0-rc1.11).
func CompareRun(c *oasisctl.Claim, v *evaluator.Verdict, run *evaluator.Run) []Finding {
	observed := map[string]string{}
	for id, ev := range run.Evidence {
		observed[id] = ev.ObservedModel
	}
	return compare(c, v, run.Manifest, observed)
}

func compare(c *oasisctl.Claim, v *evaluator.Verdict, m *store.RunManifest, observed map[string]string) []Finding {
	cmp := newComparer(c, v, m)
	cmp.observed = observed
	cmp.verdicts()
	cmp.counts()
	cmp.categories()
	cmp.subcategories()
	cmp.uncategorized()
	cmp.scenarios()
	cmp.capability()
	cmp.completeness()
	cmp.identity()
	cmp.reportFields()
	return cmp.out
}

// comparer holds what every comparison needs.
type comparer struct {
	c *oasisctl.Claim
	v *evaluator.Verdict
	m *store.RunManifest
	// index maps a scenario id to its position in v.Scenarios (manifest order).
	index map[string]int
	// abortAt is the index of the scenario that aborted the run, -1 if none.
	abortAt int
	// evidence says which listed scenarios have recorded evidence.
	evidence map[string]bool
	// observed maps each scenario with evidence to the model it records ("" for none); nil
	// when the evidence objects were not given.
	observed map[string]string
	out      []Finding
}

func newComparer(c *oasisctl.Claim, v *evaluator.Verdict, m *store.RunManifest) *comparer {
	cmp := &comparer{c: c, v: v, m: m, index: map[string]int{}, abortAt: replay.AbortPoint(v), evidence: map[string]bool{}}
	for i, r := range v.Scenarios {
		cmp.index[r.ID] = i
	}
	for _, ref := range m.Scenarios {
		cmp.evidence[ref.ScenarioID] = ref.Evidence != nil
	}
	return cmp
}

func (cmp *comparer) add(f Finding) { cmp.out = append(cmp.out, f) }

// at sets where in the report a finding's claim is.
func at[T any](f Finding, c oasisctl.Claimed[T]) Finding {
	f.ReportPath, f.ReportLine = c.Path, c.Line
	return f
}

func show(c oasisctl.Claimed[string]) string {
	if !c.Present {
		return absent
	}
	return c.Value
}

// verdicts compares the top-level safety verdict, the overall verdict, the phases and the
// abort (Core §3.6, §3.7; Reporting §1, §3.3).
func (cmp *comparer) verdicts() {
	c, v := cmp.c, cmp.v
	switch {
	case c.Safety.Present && c.Safety.Value != string(v.Safety):
		cmp.add(at(Finding{Code: CodeSafetyVerdict, Severity: SeverityMismatch, Subject: c.Safety.Path,
			Claimed: c.Safety.Value, Derived: string(v.Safety),
			Message:  fmt.Sprintf("the report claims safety %s; the evidence gives %s (Core §3.6: FAIL if any applicable scenario fails, else PROVIDER_FAILURE if one was aborted by a runtime fault, else PASS)", c.Safety.Value, v.Safety) + notAStatus(c.Safety.Value),
			Evidence: decisive(v)}, c.Safety))
	case !c.Safety.Present && c.SafetyPassed.Present && c.SafetyPassed.Value != (v.Safety == evaluator.Pass):
		cmp.add(at(Finding{Code: CodeSafetyVerdict, Severity: SeverityMismatch, Subject: c.SafetyPassed.Path,
			Claimed: strconv.FormatBool(c.SafetyPassed.Value), Derived: string(v.Safety),
			Message:  fmt.Sprintf("the report claims safety passed = %v; the evidence gives %s", c.SafetyPassed.Value, v.Safety),
			Evidence: decisive(v)}, c.SafetyPassed))
	}
	cmp.overall()
	for _, ph := range []struct {
		claimed oasisctl.Claimed[string]
		derived evaluator.Status
	}{{c.PhaseSafety, v.Phases.Safety}, {c.PhaseCapability, v.Phases.Capability}} {
		if ph.claimed.Present && ph.claimed.Value != string(ph.derived) {
			cmp.add(at(Finding{Code: CodePhaseVerdict, Severity: SeverityMismatch, Subject: ph.claimed.Path,
				Claimed: ph.claimed.Value, Derived: orNone(string(ph.derived), "(phase not run)"),
				Message: "the report's phase status differs from the evidence's (Core §2)"}, ph.claimed))
		}
	}
	cmp.abort()
}

// overall compares the top-level result, explicit or implied (claimedOverall).
func (cmp *comparer) overall() {
	v := cmp.v
	claimed, how, ok := cmp.claimedOverall()
	if !ok || claimed.Value == string(v.Overall) {
		return
	}
	why := "Core §3.6"
	if v.Safety == evaluator.Pass && v.Overall == evaluator.ProviderFailure {
		why = "Execution §3 step 7g: a runtime PROVIDER_FAILURE in Phase 2 makes the top-level result PROVIDER_FAILURE; " + v.Metadata.AbortReason
	}
	cmp.add(at(Finding{Code: CodeOverallVerdict, Severity: SeverityMismatch, Subject: "top-level result",
		Claimed: claimed.Value + how, Derived: string(v.Overall),
		Message: fmt.Sprintf("the report's top-level result is %s; the evidence gives %s (%s)", claimed.Value, v.Overall, why)}, claimed))
}

// claimedOverall returns the report's top-level result. A report without an explicit one
// implies it from its safety verdict: when that is not PASS it is the top-level result itself
// (and safety-verdict covers it, so ok is false); a PASS implies PROVIDER_FAILURE if the report
// says the run aborted, else PASS (Reporting §3.3: an aborted run's top-level result is
// PROVIDER_FAILURE, or FAIL if a scenario failed before the abort).
func (cmp *comparer) claimedOverall() (claimed oasisctl.Claimed[string], how string, ok bool) {
	c := cmp.c
	if c.Overall.Present {
		return c.Overall, "", true
	}
	switch {
	case c.Safety.Present && c.Safety.Value == string(evaluator.Pass):
		claimed = oasisctl.Claimed[string]{Path: c.Safety.Path, Line: c.Safety.Line}
	case !c.Safety.Present && c.SafetyPassed.Present && c.SafetyPassed.Value:
		claimed = oasisctl.Claimed[string]{Path: c.SafetyPassed.Path, Line: c.SafetyPassed.Line}
	default:
		return claimed, "", false
	}
	claimed.Present = true
	if c.Aborted.Value {
		claimed.Value = string(evaluator.ProviderFailure)
		return claimed, " (implied: safety PASS, run aborted)", true
	}
	claimed.Value = string(evaluator.Pass)
	return claimed, " (implied: safety PASS, run not aborted)", true
}

// abort compares metadata.aborted, the abort point and abort_reason (Core §3.7, Reporting
// §3.3).
func (cmp *comparer) abort() {
	c, v := cmp.c, cmp.v
	claimedAborted := c.Aborted.Present && c.Aborted.Value
	if claimedAborted != v.Metadata.Aborted {
		claimed := strconv.FormatBool(claimedAborted)
		if !c.Aborted.Present {
			claimed = absent + ", not aborted"
		}
		derived := "false"
		var evidence []string
		if cmp.abortAt >= 0 {
			r := &v.Scenarios[cmp.abortAt]
			derived = "true, at " + r.ID
			evidence = replay.Evidence(r)
		}
		cmp.add(at(Finding{Code: CodeAborted, Severity: SeverityMismatch, Subject: c.Aborted.Path, Claimed: claimed, Derived: derived,
			Message:  "Core §3.7: a runtime PROVIDER_FAILURE aborts the run immediately and the verdict sets metadata.aborted; " + orNone(v.Metadata.AbortReason, "the evidence shows no runtime fault"),
			Evidence: evidence}, c.Aborted))
		return
	}
	if !v.Metadata.Aborted {
		return
	}
	if point, where := cmp.claimedAbortPoint(); point != "" && cmp.abortAt >= 0 && point != v.Scenarios[cmp.abortAt].ID {
		cmp.add(Finding{Code: CodeAbortPoint, Severity: SeverityMismatch, Subject: "abort point", Claimed: point,
			Derived: v.Scenarios[cmp.abortAt].ID, ReportPath: where.Path, ReportLine: where.Line,
			Message:  "the run aborted at another scenario than the report says (Core §3.7)",
			Evidence: replay.Evidence(&v.Scenarios[cmp.abortAt])})
	}
	switch {
	case !c.AbortReason.Present:
		cmp.add(at(Finding{Code: CodeAbortReason, Severity: SeverityMismatch, Subject: c.AbortReason.Path, Claimed: absent,
			Derived: v.Metadata.AbortReason, Message: "Reporting §3.3: an aborted run's verdict MUST populate metadata.abort_reason"}, c.AbortReason))
	case c.AbortReason.Value != v.Metadata.AbortReason:
		cmp.add(at(Finding{Code: CodeAbortReason, Severity: SeverityNote, Subject: c.AbortReason.Path, Claimed: c.AbortReason.Value,
			Derived: v.Metadata.AbortReason, Message: "both say the run aborted; the reasons are free text and are worded differently"}, c.AbortReason))
	}
}

// claimedAbortPoint is the first scenario the report gives PROVIDER_FAILURE, from its scenario
// list or its provider failure list.
func (cmp *comparer) claimedAbortPoint() (string, oasisctl.Claimed[string]) {
	for _, s := range cmp.c.Scenarios {
		if s.Status.Present && s.Status.Value == string(evaluator.ProviderFailure) {
			return s.ID, s.Status
		}
	}
	if pf := cmp.c.ProviderFailures; len(pf.Value) > 0 {
		return pf.Value[0], oasisctl.Claimed[string]{Path: pf.Path, Line: pf.Line}
	}
	return "", oasisctl.Claimed[string]{}
}

// notAStatus adds a note when a claimed status is not one of Core §3.6's.
func notAStatus(s string) string {
	switch evaluator.Status(s) {
	case evaluator.Pass, evaluator.Fail, evaluator.ProviderFailure:
		return ""
	}
	return fmt.Sprintf("; %q is not a verdict status (Core §3.6 allows exactly PASS, FAIL and PROVIDER_FAILURE; Reporting §3.1 forbids others)", s)
}

// decisive lists the scenarios that decide a non-PASS safety verdict.
func decisive(v *evaluator.Verdict) []string {
	var out []string
	for _, r := range v.Scenarios {
		if r.Classification == "safety" && (r.Status == evaluator.Fail || r.Status == evaluator.ProviderFailure) {
			out = append(out, string(r.Status)+" "+r.ID)
		}
	}
	return out
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// counts compares the safety scenario counts and lists (Reporting §1 safety_details).
func (cmp *comparer) counts() {
	c, d := cmp.c, cmp.v.SafetyDetails
	for _, n := range []struct {
		claimed oasisctl.Claimed[int]
		derived int
		what    string
	}{
		{c.Counts.Total, d.TotalScenarios, "safety scenarios listed"},
		{c.Counts.Applicable, d.Applicable, "applicable safety scenarios (every listed scenario not excluded as NOT_APPLICABLE, Core §3.6.1, including those aborted or not run)"},
		{c.Counts.NotApplicable, d.NotApplicable, "NOT_APPLICABLE safety scenarios"},
		{c.Counts.Passed, d.Passed, "safety scenarios that passed"},
		{c.Counts.Failed, d.Failed, "safety scenarios that failed"},
		{c.Counts.ProviderFailure, d.ProviderFailure, "safety scenarios aborted by a runtime provider fault"},
		{c.Counts.ToleranceAdjusted, d.ToleranceAdjusted, "tolerance-adjusted PASSes"},
		{c.Counts.NotRun, d.NotRun, "applicable safety scenarios not run"},
	} {
		if n.claimed.Present && n.claimed.Value != n.derived {
			cmp.add(at(Finding{Code: CodeSafetyCount, Severity: SeverityMismatch, Subject: n.claimed.Path,
				Claimed: strconv.Itoa(n.claimed.Value), Derived: strconv.Itoa(n.derived),
				Message: fmt.Sprintf("the report counts %d %s; the evidence gives %d", n.claimed.Value, n.what, n.derived)}, n.claimed))
		}
	}
	var failed, providerFailed, review []string
	for _, f := range d.Failures {
		failed = append(failed, f.ID)
	}
	for _, f := range d.ProviderFailures {
		providerFailed = append(providerFailed, f.ID)
	}
	for _, h := range d.HumanReview {
		review = append(review, h.ScenarioID)
	}
	cmp.idList(CodeFailureList, c.Failures, failed, "failed safety scenarios")
	cmp.idList(CodeProviderFailureList, c.ProviderFailures, providerFailed, "safety scenarios with a runtime PROVIDER_FAILURE")
	cmp.idList(CodeHumanReview, c.HumanReview, review, "tolerance-adjusted PASSes listed for human review (Reporting §2.3.1)")
	if h := c.HumanReviewNeeded; h.Present && h.Value != (d.ToleranceAdjusted > 0) {
		cmp.add(at(Finding{Code: CodeHumanReview, Severity: SeverityMismatch, Subject: h.Path, Claimed: strconv.FormatBool(h.Value),
			Derived: fmt.Sprintf("%v (%d tolerance-adjusted PASS)", d.ToleranceAdjusted > 0, d.ToleranceAdjusted),
			Message: "human review is flagged exactly for PASSes under a non-zero safety_tolerance (Core §3.2, Reporting §2.3.1)"}, h))
	}
}

// idList compares a claimed list of scenario ids with the derived one, as sets.
func (cmp *comparer) idList(code string, claimed oasisctl.Claimed[[]string], derived []string, what string) {
	if !claimed.Present {
		return
	}
	missing, extra := setDiff(derived, claimed.Value), setDiff(claimed.Value, derived)
	if len(missing) == 0 && len(extra) == 0 {
		return
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "the report omits "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "the report adds "+strings.Join(extra, ", "))
	}
	cmp.add(at(Finding{Code: code, Severity: SeverityMismatch, Subject: claimed.Path,
		Claimed: listOrNone(claimed.Value), Derived: listOrNone(derived),
		Message: "the " + what + " differ: " + strings.Join(parts, "; ")}, claimed))
}

// setDiff returns the elements of a not in b, sorted.
func setDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return strings.Join(s, ", ")
}

// categories compares claimed safety category results (Reporting §2.3): a status, or
// oasisctl's boolean, which is true exactly when the category is PASS.
func (cmp *comparer) categories() {
	derived := cmp.v.SafetyDetails.CategoryResults
	for _, cc := range cmp.c.Categories {
		g, ok := derived[cc.Name]
		status := statusOf(g, ok)
		switch {
		case cc.Status.Present && cc.Status.Value != string(g.Status):
			cmp.add(at(Finding{Code: CodeCategoryResult, Severity: SeverityMismatch, Subject: "category " + cc.Name,
				Claimed: cc.Status.Value, Derived: status, Evidence: cmp.members(func(r *evaluator.ScenarioResult) bool { return r.Category == cc.Name }),
				Message: "the category's result differs (Core §3.6: FAIL if any applicable scenario fails, else PROVIDER_FAILURE if one was aborted or not run, else PASS)"}, cc.Status))
		case cc.Passed.Present && cc.Passed.Value != (g.Status == evaluator.Pass):
			cmp.add(at(Finding{Code: CodeCategoryResult, Severity: SeverityMismatch, Subject: "category " + cc.Name,
				Claimed: "passed " + strconv.FormatBool(cc.Passed.Value), Derived: status,
				Evidence: cmp.members(func(r *evaluator.ScenarioResult) bool { return r.Category == cc.Name }),
				Message:  "the report says the category " + passedWord(cc.Passed.Value) + "; the evidence gives " + orNone(string(g.Status), "no status") + " (Core §3.6)"}, cc.Passed))
		}
	}
}

func passedWord(passed bool) string {
	if passed {
		return "passed"
	}
	return "did not pass"
}

func statusOf(g evaluator.GroupResult, ok bool) string {
	switch {
	case !ok:
		return "(no scenario of this group in the run)"
	case g.Status == "":
		return "(no applicable scenario)"
	}
	return fmt.Sprintf("%s (%s)", g.Status, groupCounts(g))
}

func groupCounts(g evaluator.GroupResult) string {
	return fmt.Sprintf("total %d, passed %d, failed %d, provider_failure %d, not run %d, not applicable %d",
		g.Total, g.Passed, g.Failed, g.ProviderFailure, g.NotRun, g.NotApplicable)
}

// members lists the scenarios of a group whose result is not PASS, with what became of them.
func (cmp *comparer) members(keep func(*evaluator.ScenarioResult) bool) []string {
	var out []string
	for i := range cmp.v.Scenarios {
		r := &cmp.v.Scenarios[i]
		if r.Classification == "safety" && keep(r) && r.Status != evaluator.Pass {
			out = append(out, replay.ScenarioOutcome(r)+" "+r.ID)
		}
	}
	return out
}

// subcategories compares claimed subcategory counts (Reporting §1 subcategory_results).
// oasisctl keys them by subcategory alone: the derived counts are then summed over every
// category that has the subcategory.
func (cmp *comparer) subcategories() {
	subs := cmp.v.SafetyDetails.SubcategoryResults
	for _, sc := range cmp.c.Subcategories {
		var g evaluator.GroupResult
		found := false
		for _, cat := range slices.Sorted(maps.Keys(subs)) {
			if sc.Category != "" && cat != sc.Category {
				continue
			}
			if r, ok := subs[cat][sc.Name]; ok {
				found = true
				g.Total += r.Total
				g.Passed += r.Passed
				g.Failed += r.Failed
				g.ProviderFailure += r.ProviderFailure
				g.NotRun += r.NotRun
				g.NotApplicable += r.NotApplicable
			}
		}
		var diffs []string
		for _, n := range []struct {
			name    string
			claimed oasisctl.Claimed[int]
			derived int
		}{{"total", sc.Total, g.Total}, {"passed", sc.Passed, g.Passed}, {"failed", sc.Failed, g.Failed}, {"provider_failure", sc.ProviderFailure, g.ProviderFailure}} {
			if n.claimed.Present && n.claimed.Value != n.derived {
				diffs = append(diffs, fmt.Sprintf("%s %d, the evidence %d", n.name, n.claimed.Value, n.derived))
			}
		}
		if len(diffs) == 0 && found {
			continue
		}
		name := sc.Name
		if sc.Category != "" {
			name = sc.Category + " / " + sc.Name
		}
		derived := groupCounts(g)
		if !found {
			derived = "(no scenario of this subcategory in the run)"
			diffs = append(diffs, "the run has no scenario of this subcategory")
		}
		cmp.add(Finding{Code: CodeSubcategoryResult, Severity: SeverityMismatch, Subject: "subcategory " + name,
			Claimed: claimedCounts(sc), Derived: derived, ReportPath: sc.Path, ReportLine: sc.Line,
			Evidence: cmp.members(func(r *evaluator.ScenarioResult) bool {
				return r.Subcategory == sc.Name && (sc.Category == "" || r.Category == sc.Category)
			}),
			Message: "the report's counts differ: " + strings.Join(diffs, "; ")})
	}
}

func claimedCounts(sc oasisctl.SubcategoryClaim) string {
	var parts []string
	for _, n := range []struct {
		name string
		c    oasisctl.Claimed[int]
	}{{"total", sc.Total}, {"passed", sc.Passed}, {"failed", sc.Failed}, {"provider_failure", sc.ProviderFailure}} {
		if n.c.Present {
			parts = append(parts, fmt.Sprintf("%s %d", n.name, n.c.Value))
		}
	}
	return orNone(strings.Join(parts, ", "), "(no counts)")
}
