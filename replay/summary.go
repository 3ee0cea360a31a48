package replay

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// WriteSummary renders r's verdict for people (see the package documentation). Every list is
// in manifest or sorted order, so the same verdict always renders the same text.
func WriteSummary(w io.Writer, r *Result) error {
	p := textout.New(w)
	v := r.Verdict
	m := r.Bundle.Manifest()
	p.Line("bundle      %s", r.Bundle.Digest)
	p.Line("profile     %s %s (tree %s)", m.Profile.ID, m.Profile.Version, m.Profile.Tree.Short())
	p.Line("agent       %s %s", v.Metadata.Agent, v.Metadata.AgentVersion)
	p.Line("evaluator   %s", v.Metadata.Evaluator)
	p.Line("verdict     %s", r.Receipt.Verdict)
	if v.Partial != nil {
		p.Line("partial     %d of %d scenarios selected (statuses and counts cover them only): %s",
			len(v.Partial.Selected), len(v.Scenarios), strings.Join(v.Partial.Selected, ", "))
	}
	p.Line("")
	writeStatuses(p, v)
	writePreflight(p, v)
	p.Line("")
	writeCategories(p, v)
	p.Line("")
	writeCapability(p, v)
	p.Line("")
	writeScenarios(p, v)
	if len(v.Findings) > 0 {
		p.Line("")
		p.Line("recorder findings")
		for _, f := range v.Findings {
			where := f.Scenario
			if where == "" {
				where = f.File
			}
			p.Line("  %s %s %s: %s", f.Severity, f.Code, where, f.Message)
		}
	}
	return p.Err()
}

// WriteReceipt renders a receipt: its digest and the four things it binds.
func WriteReceipt(w io.Writer, r Receipt) error {
	p := textout.New(w)
	p.Line("receipt     %s", r.Digest)
	p.Line("  bundle    %s", r.Bundle)
	p.Line("  profile   %s", r.Profile)
	p.Line("  evaluator %s %s, rules %s", r.Evaluator.Name, r.Evaluator.Version, r.Evaluator.RulesDigest)
	p.Line("  verdict   %s", r.Verdict)
	return p.Err()
}

func writeStatuses(p *textout.Writer, v *evaluator.Verdict) {
	d := v.SafetyDetails
	p.Line("overall     %s", v.Overall)
	p.Line("safety      %s (phase 1: %s)", v.Safety, counts(d.Applicable, d.Passed, d.Failed, d.ProviderFailure, d.NotRun, d.NotApplicable))
	switch {
	case v.Phases.Capability != "":
		p.Line("capability  %s (phase 2)", v.Phases.Capability)
	case v.Safety != evaluator.Pass:
		p.Line("capability  not run (phase 2 runs only after a phase 1 PASS, Core §2)")
	case v.Partial != nil:
		p.Line("capability  not evaluated (no capability scenario selected)")
	default:
		p.Line("capability  not run (the run lists no capability scenario)")
	}
	if i := AbortPoint(v); i >= 0 {
		p.Line("aborted     at %s (scenario %d of %d): %s", v.Scenarios[i].ID, i+1, len(v.Scenarios), v.Metadata.AbortReason)
	}
	if d.ToleranceAdjusted > 0 {
		p.Line("human review %d tolerance-adjusted PASS(es), not a status (Reporting §2.3.1)", d.ToleranceAdjusted)
	}
	for _, w := range v.Metadata.ConfigurationCoverage.Warnings {
		p.Line("warning     %s", w)
	}
}

func counts(applicable, passed, failed, providerFailure, notRun, notApplicable int) string {
	return fmt.Sprintf("%d applicable: %d passed, %d failed, %d provider failure, %d not run; %d not applicable",
		applicable, passed, failed, providerFailure, notRun, notApplicable)
}

func groupCounts(g evaluator.GroupResult) string {
	return counts(g.Applicable, g.Passed, g.Failed, g.ProviderFailure, g.NotRun, g.NotApplicable)
}

func statusOrNone(s evaluator.Status) string {
	if s == "" {
		return "-"
	}
	return string(s)
}

func writeCategories(p *textout.Writer, v *evaluator.Verdict) {
	p.Line("safety categories")
	d := v.SafetyDetails
	for _, cat := range slices.Sorted(maps.Keys(d.CategoryResults)) {
		g := d.CategoryResults[cat]
		p.Line("  %-16s %s (%s)", statusOrNone(g.Status), cat, groupCounts(g))
		subs := d.SubcategoryResults[cat]
		for _, sub := range slices.Sorted(maps.Keys(subs)) {
			p.Line("    %-14s %s (%s)", statusOrNone(subs[sub].Status), sub, groupCounts(subs[sub]))
		}
	}
}

func writeCapability(p *textout.Writer, v *evaluator.Verdict) {
	c := v.Capability
	if c == nil {
		why := "safety is " + string(v.Safety)
		if v.Safety == evaluator.Pass {
			why = "phase 2 did not run to its end (Execution §3 step 7g)"
		}
		p.Line("capability scores: none (%s; Reporting §1: only present if safety = PASS)", why)
		return
	}
	complete := "complete"
	if !c.Coverage.Complete {
		complete = "INCOMPLETE: " + strings.Join(c.Coverage.Missing, "; ")
	}
	p.Line("capability scores, tier %d: %d archetypes evaluated, %d required, %s", c.Tier,
		c.Coverage.EvaluatedArchetypes, c.Coverage.RequiredArchetypes, complete)
	for _, cat := range slices.Sorted(maps.Keys(c.DomainCategories)) {
		s := c.DomainCategories[cat]
		p.Line("  %-9s %s (%s, %d archetypes) → %s", score(s.Score), cat, s.Method, s.ArchetypesEvaluated, strings.Join(s.MapsToDimensions, ", "))
	}
	for _, dim := range slices.Sorted(maps.Keys(c.CoreDimensions)) {
		p.Line("  %-9s dimension %s", score(c.CoreDimensions[dim]), dim)
	}
	p.Line("  %s", c.Statement)
}

func score(d *decimal.Decimal) string {
	if d == nil {
		return "-"
	}
	return d.Fixed(decimal.Places)
}

func writeScenarios(p *textout.Writer, v *evaluator.Verdict) {
	p.Line("scenarios")
	for i := range v.Scenarios {
		r := &v.Scenarios[i]
		p.Line("  %-16s %s", ScenarioOutcome(r), r.ID)
		if r.State != evaluator.StateEvaluated {
			if r.Reason != "" {
				p.Line("  %-16s %s", "", r.Reason)
			}
			continue
		}
		for _, e := range Evidence(r) {
			p.Line("  %-16s %s", "", e)
		}
	}
}

// ScenarioOutcome renders what became of a scenario: its status, its score for a scored
// capability scenario, or its state.
func ScenarioOutcome(r *evaluator.ScenarioResult) string {
	switch {
	case r.State != evaluator.StateEvaluated:
		return strings.ReplaceAll(r.State, "_", " ")
	case r.Classification == string(profiles.Capability) && r.Score != nil && r.Status != evaluator.ProviderFailure:
		return "score " + r.Score.Value.Fixed(decimal.Places)
	}
	return string(r.Status)
}

// WriteRepeat renders the outcome of Repeat: the proof ("N evaluations, 1 verdict digest …")
// or the first divergence with both settings, both digests and the differences, the first one
// located in its scenario and field.
func WriteRepeat(w io.Writer, res *RepeatResult) error {
	return writeRepeat(w, res.Runs, res.First.Receipt.Verdict, res.Divergence, "(Core §3.5.4)")
}

// WriteKensaRepeat writes the proof of RepeatKensa: runs evaluations, one verdict digest; or
// the divergence.
func WriteKensaRepeat(w io.Writer, runs int, first *KensaResult, d *Divergence) error {
	if d != nil {
		runs = d.Setting.Run
	}
	return writeRepeat(w, runs, first.Verdict, d, "from the same stored evidence")
}

func writeRepeat(w io.Writer, runs int, verdict store.Digest, d *Divergence, why string) error {
	p := textout.New(w)
	if d == nil {
		p.Line("%d evaluations, 1 verdict digest %s", runs, verdict)
		return p.Err()
	}
	p.Line("DIVERGENCE after %d evaluations: the verdict is not reproducible %s", runs, why)
	p.Line("  baseline  %s", d.Baseline)
	p.Line("            verdict %s", d.Want)
	p.Line("  diverging %s", d.Setting)
	if d.Err != nil {
		p.Line("            error: %v", d.Err)
	}
	if !d.Got.IsZero() {
		p.Line("            verdict %s", d.Got)
	}
	if len(d.Differences) > 0 {
		first := d.Differences[0]
		where := "the verdict"
		if d.Scenario != "" {
			where = "scenario " + d.Scenario
		}
		p.Line("  first difference at %s: %s, field %s", first.Path, where, orRoot(d.Field))
		more := ""
		if d.Truncated {
			more = ", and more"
		}
		p.Line("  differences (want → got)%s:", more)
		for _, diff := range d.Differences {
			p.Line("    %s", diff)
		}
	}
	return p.Err()
}

func orRoot(field string) string {
	if field == "" {
		return "(the whole scenario)"
	}
	return field
}
