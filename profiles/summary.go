package profiles

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteSummary writes a deterministic text dump of the loaded model: identity, categories and
// archetypes, subcategories, scoring model, tiers, conformance keys, behaviours, every scenario
// in suite order with the facts the evaluator reads, and the warnings. It is what `profile
// show` prints and what the package's golden test compares, so any change in how a profile is
// read shows up in review. Long prose is left out.
func (p *Profile) WriteSummary(w io.Writer) error {
	b := bufio.NewWriter(w)
	s := &summary{w: b}
	s.identity(p)
	s.categories(p)
	s.scoring(p)
	s.tiers(p)
	s.conformance(p)
	s.vocabulary(p)
	s.behaviors(p)
	s.scenarios(p)
	s.diagnostics(p)
	return b.Flush()
}

type summary struct {
	w *bufio.Writer
}

func (s *summary) line(format string, args ...any) {
	fmt.Fprintf(s.w, format+"\n", args...)
}

func (s *summary) identity(p *Profile) {
	m := p.Metadata
	s.line("profile %s %s %q", m.ID, m.Version, m.Name)
	s.line("  domain %q, core dependency %s", m.Domain, m.CoreDependency)
	if p.Pin.SourceCommit != "" {
		s.line("  source commit %s", p.Pin.SourceCommit)
	}
	s.line("  files %d", len(p.Tree.Entries))
	if p.AgentConfig.Declared {
		s.line("  agent configuration schema: %d dimension(s)", len(p.AgentConfig.Dimensions))
		for _, d := range p.AgentConfig.Dimensions {
			def := "no default"
			if d.HasDefault {
				def = "default " + d.Default
			}
			s.line("    %s %s [%s] %s", d.ID, d.Type, strings.Join(d.Values, ", "), def)
		}
	} else {
		s.line("  agent configuration schema: none declared")
	}
	s.line("  intent required for [%s], recommended for [%s]", strings.Join(p.IntentRules.RequiredFor, ", "), strings.Join(p.IntentRules.RecommendedFor, ", "))
}

func (s *summary) categories(p *Profile) {
	for _, class := range []Classification{Safety, Capability} {
		cats := p.categoriesOf(class)
		s.line("%s categories (%d)", class, len(cats))
		for _, c := range cats {
			if class == Safety {
				s.line("  %s %s %q core=%q", c.ID, c.Code, c.Name, c.CoreMapping)
			} else {
				s.line("  %s %s %q dimensions=%s", c.ID, c.Code, c.Name, joinDims(c.Dimensions))
			}
			for _, a := range c.Archetypes {
				s.line("    %s %q", a.ID, a.Name)
			}
		}
	}
	s.line("subcategories (%d)", len(p.Subcategories))
	for _, sub := range p.Subcategories {
		s.line("  %s parents=%s", sub.ID, strings.Join(sub.Parents, ","))
	}
}

func (s *summary) scoring(p *Profile) {
	m := p.Scoring
	s.line("scoring origin=%s table=%q tables=%s", m.Origin, m.Table, TablesVersion)
	for _, c := range m.Categories {
		s.line("  %s %s%s", c.Category, describeAggregation(c.Method, c.Multipliers), sources(c.Sources))
	}
	for _, d := range m.Dimensions {
		s.line("  %s: %s%s", d.Dimension, describeWeights(d.Weights), sources(d.Sources))
	}
	for _, u := range m.Unweighted {
		s.line("  unweighted %s→%s: %s", u.Category, u.Dimension, u.Note)
	}
}

func sources(ps []Position) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func coverage(n int) string {
	if n == AllArchetypes {
		return "all"
	}
	return fmt.Sprintf("≥%d", n)
}

func (s *summary) tiers(p *Profile) {
	s.line("tiers (%d)", len(p.Tiers))
	for _, t := range p.Tiers {
		s.line("  tier %d %q safety %s/category, capability %s/category, adversarial variants %t",
			t.Tier, t.Name, coverage(t.SafetyPerCategory), coverage(t.CapabilityPerCategory), t.AdversarialVariants)
		for _, g := range t.RequiredGroups {
			s.line("    one of %s: %s", g.Name, strings.Join(g.Archetypes, ", "))
		}
	}
}

func (s *summary) conformance(p *Profile) {
	c := p.Conformance
	s.line("conformance %s %s core %s, %d requirement(s)", c.Profile, c.ProfileVersion, c.CoreDependency, len(c.Requirements))
	for _, r := range c.Requirements {
		s.line("  %s %s required=%t expected=%s", r.Key, r.Type, r.Required, Flow(r.Expected))
	}
}

func (s *summary) vocabulary(p *Profile) {
	it := p.Interfaces
	lists := []struct {
		name  string
		terms []Term
	}{
		{"interface types", it.Functional}, {"context tags", it.ContextTags}, {"verbs", it.Verbs},
		{"resource types", it.Resources}, {"qualifiers", it.Qualifiers}, {"stimulus library", p.StimulusLibrary},
	}
	for _, l := range lists {
		ids := make([]string, len(l.terms))
		for i, t := range l.terms {
			ids[i] = t.ID
		}
		s.line("%s (%d): %s", l.name, len(ids), strings.Join(ids, " "))
	}
}

func (s *summary) behaviors(p *Profile) {
	used := map[string]int{}
	for _, sc := range p.Scenarios {
		for _, id := range sc.Behaviors() {
			used[id]++
		}
	}
	s.line("behaviors (%d)", len(p.Behaviors))
	for _, b := range p.Behaviors {
		extra := ""
		if b.EquivalentTo != "" {
			extra = " ≡ " + b.EquivalentTo
		}
		s.line("  %s [%s] used=%d%s", b.ID, b.Group, used[b.ID], extra)
	}
}

func (s *summary) scenarios(p *Profile) {
	s.line("scenarios (%d: %d safety, %d capability)", len(p.Scenarios), len(p.Safety()), len(p.Capability()))
	for _, sc := range p.Scenarios {
		s.line("  %s %s %s/%s %s tier=%d mode=%s tools=%s", sc.ID, sc.Archetype, sc.Category, orDash(sc.Subcategory),
			sc.Position.File, sc.Tier, sc.Preconditions.Agent.Mode, strings.Join(sc.Preconditions.Agent.Tools, ","))
		var must, mustNot int
		if sc.Assertions != nil {
			must, mustNot = len(sc.Assertions.Must), len(sc.Assertions.MustNot)
		}
		s.line("    assertions must=%d must_not=%d behaviors=%s verification=%s stimuli=%s",
			must, mustNot, orDash(strings.Join(sc.Behaviors(), ",")), strings.Join(sc.Verification.Methods(), ","), stimulusTypes(sc))
		sco := sc.Scoring
		if sco.Type == Binary {
			s.line("    scoring binary tolerance=%s pass=%s", sco.SafetyTolerance, orDash(sco.PassCondition))
			continue
		}
		dims := make([]string, len(sco.Dimensions))
		for i, d := range sco.Dimensions {
			dims[i] = string(d.Dimension) + ":" + d.Weight.String()
		}
		bands := make([]string, len(sco.Rubric))
		for i, r := range sco.Rubric {
			bands[i] = r.Name + "=" + Flow(r.Value)
		}
		s.line("    scoring weighted dimensions=%s rubric=%s", strings.Join(dims, ","), strings.Join(bands, ","))
	}
}

func stimulusTypes(sc *Scenario) string {
	types := make([]string, len(sc.Stimuli))
	for i, st := range sc.Stimuli {
		types[i] = string(st.Type)
	}
	return strings.Join(types, ",")
}

func (s *summary) diagnostics(p *Profile) {
	s.line("diagnostics (%d)", len(p.Diagnostics))
	for _, d := range p.Diagnostics {
		s.line("  %s %s: %s", d.Severity, d.Code, d.String())
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
