package demo

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/report"
	"github.com/oasis-replay/oasis-replay/store"
)

// WriteWalkthrough explains for a newcomer what Run did, in four steps (record, replay,
// audit, receipt), and suggests the commands to explore the bundle next. storeDir is where the
// store lives, for the first step; command is how to run oasis-replay on that store again
// ("oasis-replay", "./bin/oasis-replay --store DIR"), so that each suggested command works as
// printed. Everything else printed comes from r, so the same result always renders the same
// text.
func WriteWalkthrough(w io.Writer, r *Result, storeDir, command string) error {
	p := textout.New(w)
	m := r.Replay.Bundle.Manifest()
	v := r.Replay.Verdict
	p.Line("oasis-replay demo: the built-in example run, recorded, replayed and audited offline.")
	p.Line("")
	p.Line("An example agent ran the %d scenarios of %s %s in a small Kubernetes lab.", len(m.Scenarios), m.Profile.ID, m.Profile.Version)
	p.Line("The run is kept as the reference runner oasisctl writes one: evidence per scenario, and its report.")
	p.Line("")
	p.Line("1. Recorded into the store at %s", storeDir)
	p.Line("   bundle      %s (tag %s)", r.Recording.Bundle, r.Tag)
	p.Line("   profile     %s %s, tree %s", m.Profile.ID, m.Profile.Version, m.Profile.Tree.Short())
	p.Line("   evidence    %s", evidenceSummary(r.Replay.Bundle.Run))
	p.Line("   claimed     the runner's own report, kept byte for byte (%s)", claimedType(m))
	p.Line("")
	p.Line("2. Replayed: the pure evaluator re-derived the verdict from the evidence alone")
	writeVerdict(p, v)
	p.Line("")
	p.Line("3. Audited: the claimed report against the re-derived verdict")
	writeAudit(p, r.Audit, command, r.Tag)
	p.Line("")
	p.Line("4. Receipt: \"this evidence gives this verdict under this evaluator\"")
	writeReceipt(p, r.Replay.Receipt)
	p.Line("   stored as   %s", r.ReceiptRef)
	p.Line("")
	writeNext(p, command, r.Tag, evidenceScenario(r))
	return p.Err()
}

// evidenceSummary counts what was recorded: "7 scenarios: 7 transcripts, 7 audit_log,
// 6 resource_state, 2 state_diff observations; 0 recorder findings".
func evidenceSummary(run *evaluator.Run) string {
	counts := map[string]int{}
	transcripts := 0
	for _, ev := range run.Evidence {
		transcripts++
		for _, o := range ev.Observations {
			counts[o.Type]++
		}
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	slices.Sort(types)
	parts := []string{fmt.Sprintf("%d transcripts", transcripts)}
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%d %s", counts[t], t))
	}
	return fmt.Sprintf("%d scenarios: %s observations; %d recorder findings",
		len(run.Manifest.Scenarios), strings.Join(parts, ", "), len(run.Manifest.Findings))
}

func claimedType(m *store.RunManifest) string {
	if m.Claimed == nil {
		return "none"
	}
	return m.Claimed.MediaType
}

// writeVerdict summarises the verdict: statuses, safety counts, capability scores, and the
// scenario that scored lowest with the check that cost it.
func writeVerdict(p *textout.Writer, v *evaluator.Verdict) {
	d := v.SafetyDetails
	p.Line("   overall     %s", v.Overall)
	p.Line("   safety      %s: %d of %d applicable scenarios passed, %d failed, %d provider failures",
		v.Safety, d.Passed, d.Applicable, d.Failed, d.ProviderFailure)
	c := v.Capability
	if c == nil {
		p.Line("   capability  no scores (Reporting §1: only after a safety PASS and a Phase 2 run to its end)")
		return
	}
	complete := "complete"
	if !c.Coverage.Complete {
		complete = "incomplete"
	}
	p.Line("   capability  tier %d, coverage %s: %s", c.Tier, complete, scores(c.DomainCategories))
	p.Line("   dimensions  %s", dimensions(c.CoreDimensions))
	if low := lowest(v); low != nil {
		p.Line("   lowest      %s scored %s: %s", low.ID, low.Score.Value.Fixed(decimal.Places), costliest(low))
	}
}

func scores(cats map[string]evaluator.CategoryScore) string {
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+" "+fixed(cats[n].Score))
	}
	return strings.Join(parts, ", ")
}

// dimensions renders the core dimension scores in the order of Core §4.1.
func dimensions(dims map[string]*decimal.Decimal) string {
	var parts []string
	for _, d := range profiles.CoreDimensions {
		if s, ok := dims[string(d)]; ok {
			parts = append(parts, string(d)+" "+fixed(s))
		}
	}
	return strings.Join(parts, ", ")
}

func fixed(d *decimal.Decimal) string {
	if d == nil {
		return "-"
	}
	return d.Fixed(decimal.Places)
}

// lowest returns the scored capability scenario with the lowest score below 1, the first in
// manifest order among equals, or nil.
func lowest(v *evaluator.Verdict) *evaluator.ScenarioResult {
	var low *evaluator.ScenarioResult
	for i := range v.Scenarios {
		s := &v.Scenarios[i]
		if s.Score == nil || s.State != evaluator.StateEvaluated || s.Score.Value >= decimal.One {
			continue
		}
		if low == nil || s.Score.Value < low.Score.Value {
			low = s
		}
	}
	return low
}

// costliest describes the first violated check of a scenario: what cost it points.
func costliest(s *evaluator.ScenarioResult) string {
	for _, c := range replay.DecidingChecks(s) {
		if c.Outcome == evaluator.Violated {
			return fmt.Sprintf("%s %q was violated", c.Block, c.Text)
		}
	}
	return "its rubric band"
}

// writeReceipt renders the receipt as replay does, indented under its step.
func writeReceipt(p *textout.Writer, rc replay.Receipt) {
	var buf bytes.Buffer
	if err := replay.WriteReceipt(&buf, rc); err != nil {
		p.Fail(err)
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		p.Line("   %s", l)
	}
}

func writeAudit(p *textout.Writer, a *report.Audit, command, tag string) {
	notes := report.Count(a.Findings, report.SeverityNote)
	if a.Reproduced() {
		p.Line("   result      reproduced: the claimed report agrees with the evidence (%d notes)", notes)
		return
	}
	p.Line("   result      NOT reproduced: %d mismatches, %d notes; `%s audit %s` lists them", a.Mismatches(), notes, command, tag)
}

// evidenceScenario is the scenario whose evidence the walkthrough suggests listing: the
// lowest-scoring one, else the first.
func evidenceScenario(r *Result) string {
	if low := lowest(r.Replay.Verdict); low != nil {
		return low.ID
	}
	if m := r.Replay.Bundle.Manifest(); len(m.Scenarios) > 0 {
		return m.Scenarios[0].ScenarioID
	}
	return ""
}

func writeNext(p *textout.Writer, command, tag, scenario string) {
	p.Line("Next, explore the bundle:")
	next := [][2]string{
		{"bundle show " + tag, "the manifest: profile pin, agent, scenarios"},
		{"replay " + tag, "each scenario and the evidence that decided it"},
		{"bundle show --evidence " + scenario + " " + tag, "that scenario's evidence by digest; cat DIGEST prints one"},
		{"replay --repeat 8 " + tag, "one verdict digest under 8 evaluation settings"},
		{"audit --format json " + tag, "the audit as canonical JSON"},
		{"bundle export -o " + tag + ".bundle.tar.zst " + tag, "one file for an offline network"},
		{"bundle ls", "what the store holds"},
	}
	width := 54
	for _, c := range next {
		width = max(width, len(command)+1+len(c[0]))
	}
	for _, c := range next {
		p.Line("  %-*s  %s", width, command+" "+c[0], c[1])
	}
}
