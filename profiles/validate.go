package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// validateScenarios applies the rules of Scenarios §1–§3 and Profiles §2 that relate a
// scenario to the rest of the profile or to the other scenarios. Rules that need only the
// scenario itself run while parsing (scenario_parse.go).
func validateScenarios(p *Profile, d *diagnostics) {
	cats := map[string]*Category{}
	archetypes := map[string]*Archetype{}
	for _, c := range p.Categories {
		cats[c.ID] = c
		for _, a := range c.Archetypes {
			archetypes[a.ID] = a
		}
	}
	behaviors := map[string]bool{}
	for _, b := range p.Behaviors {
		behaviors[b.ID] = true
	}
	v := &scenarioValidator{p: p, d: d, cats: cats, archetypes: archetypes, behaviors: behaviors,
		ids: map[string]*Scenario{}, intents: map[string]*Scenario{}}
	for _, s := range p.Scenarios {
		v.identity(s)
	}
	for _, s := range p.Scenarios {
		v.taxonomy(s)
		v.intent(s)
		v.assertions(s)
		v.preconditions(s)
		v.verification(s)
		v.scoring(s)
		v.configuration(s)
	}
	v.archetypeCoverage()
}

type scenarioValidator struct {
	p          *Profile
	d          *diagnostics
	cats       map[string]*Category
	archetypes map[string]*Archetype
	behaviors  map[string]bool
	ids        map[string]*Scenario
	intents    map[string]*Scenario
}

func (v *scenarioValidator) at(s *Scenario, line int, field string) at {
	return at{file: s.Position.File, line: line, scenario: s.ID, field: field}
}

// identity: ids are unique within the profile (Scenarios §1.1).
func (v *scenarioValidator) identity(s *Scenario) {
	if s.ID == "" {
		return
	}
	if first, dup := v.ids[s.ID]; dup {
		v.d.errorf("duplicate-id", v.at(s, s.fieldLine("id"), "id"), "id is already used at %s:%d", first.Position.File, first.Position.Line)
		return
	}
	v.ids[s.ID] = s
}

// taxonomy: category, archetype and subcategory are defined by the profile and fit together
// (Scenarios §1.1; Profiles §2.14).
func (v *scenarioValidator) taxonomy(s *Scenario) {
	c, ok := v.cats[s.Category]
	switch {
	case s.Category == "":
	case !ok:
		v.d.errorf("category-unknown", v.at(s, s.fieldLine("category"), "category"), "%q is not a category of the profile", s.Category)
	case s.Classification != "" && c.Classification != s.Classification:
		v.d.errorf("category-unknown", v.at(s, s.fieldLine("category"), "category"), "%q is a %s category, the scenario is %s", s.Category, c.Classification, s.Classification)
	}
	if a, ok := v.archetypes[s.Archetype]; s.Archetype != "" {
		switch {
		case !ok:
			v.d.errorf("archetype-unknown", v.at(s, s.fieldLine("archetype"), "archetype"), "%q is not an archetype of the profile", s.Archetype)
		case s.Category != "" && a.Category != s.Category:
			v.d.errorf("archetype-category", v.at(s, s.fieldLine("archetype"), "archetype"), "%s belongs to category %s, not %s", a.ID, a.Category, s.Category)
		}
	}
	if s.Subcategory == "" {
		return
	}
	sub, ok := v.p.subcategoryByID(s.Subcategory)
	switch {
	case !ok:
		v.d.errorf("subcategory-unknown", v.at(s, s.fieldLine("subcategory"), "subcategory"), "%q is not a subcategory of the profile (Profiles §2.14)", s.Subcategory)
	case s.Category != "" && !slices.Contains(sub.Parents, s.Category):
		v.d.errorf("subcategory-parent", v.at(s, s.fieldLine("subcategory"), "subcategory"), "%q belongs to category %s, not %s",
			s.Subcategory, strings.Join(sub.Parents, " and "), s.Category)
	}
}

// intent: required or recommended per the profile's promotion (Profiles §2.15), and unique
// (Scenarios §1.1). Length is checked while parsing.
func (v *scenarioValidator) intent(s *Scenario) {
	line := s.fieldLine("intent")
	if s.Source.Get("intent") != nil && s.Intent == "" {
		return // present but malformed, already reported while parsing
	}
	if s.Intent == "" {
		rules := &v.p.IntentRules
		switch {
		case rules.Declared && rules.names(s, rules.RequiredFor):
			v.d.errorf("intent-required", v.at(s, line, "intent"), "required for %s scenarios by this profile (Profiles §2.15)", s.Classification)
		case !rules.Declared || rules.names(s, rules.RecommendedFor):
			// Scenarios §1.1: tooling MUST warn when a recommended intent is absent.
			v.d.warnf("intent-recommended", v.at(s, line, "intent"), "missing; recommended for %s scenarios (Scenarios §1.1)", s.Classification)
		}
		return
	}
	key := trimSpace(s.Intent)
	if first, dup := v.intents[key]; dup {
		v.d.errorf("intent-duplicate", v.at(s, line, "intent"), "identical to the intent of %s (Scenarios §1.1)", first.ID)
		return
	}
	v.intents[key] = s
}

// names reports whether a required_for/recommended_for list names the scenario's
// classification or category.
func (r *IntentRules) names(s *Scenario, list []string) bool {
	return slices.Contains(list, string(s.Classification)) || slices.Contains(list, s.Category)
}

// outputShapedVerbs are action verbs that describe output rather than a tool call; Core §3.5.6
// lets an evaluator reject them in must_not.action, and this package does, so the evaluator
// never sees an action that cannot have audit evidence.
var outputShapedVerbs = []string{"output", "expose", "disclose", "reveal"}

// assertions: behaviours are defined (Scenarios §1.5, Profiles §2.3), must_not actions are
// tool-call shaped (Core §3.5.6), and no two conditional blocks can match one configuration
// (Scenarios §1.10).
func (v *scenarioValidator) assertions(s *Scenario) {
	if s.Assertions == nil {
		return
	}
	check := func(list []Assertion, field string, negative bool) {
		for i, a := range list {
			f := fmt.Sprintf("%s[%d]", field, i)
			if a.Behavior != "" && !v.behaviors[a.Behavior] {
				v.d.errorf("behavior-undefined", v.at(s, a.Position.Line, f+".behavior"),
					"behaviour %q is not defined in %s (Scenarios §1.5)", a.Behavior, fileBehaviors)
			}
			if negative && a.Action != "" {
				verb, _, _ := strings.Cut(strings.TrimSpace(a.Action), " ")
				if slices.Contains(outputShapedVerbs, strings.ToLower(verb)) {
					v.d.errorf("output-shaped-action", v.at(s, a.Position.Line, f+".action"),
						"%q describes output, not a tool call; use verification.value_containment (Core §3.5.6)", a.Action)
				}
			}
		}
	}
	check(s.Assertions.Must, "assertions.must", false)
	check(s.Assertions.MustNot, "assertions.must_not", true)
	for i, c := range s.Assertions.Conditional {
		field := fmt.Sprintf("assertions.conditional[%d]", i)
		check(c.Must, field+".must", false)
		check(c.MustNot, field+".must_not", true)
		v.conditions(s, c.When, field+".when")
		for j := range i {
			if conditionsOverlap(s.Assertions.Conditional[j].When, c.When) {
				v.d.errorf("conditional-overlap", v.at(s, c.Position.Line, field),
					"can match the same agent configuration as assertions.conditional[%d] (line %d); at most one may match (Scenarios §1.10)",
					j, s.Assertions.Conditional[j].Position.Line)
			}
		}
	}
}

// knownChannels are the output channel identifiers Scenarios §1.6 names; the SI profile defines
// no others, and an evaluator cannot search a channel it does not know.
var knownChannels = []string{"agent_response", "tool_call_parameters", "reasoning_trace"}

// preconditions: tools are interface types of the profile, the environment type is the one the
// conformance contract provisions, stimulus library references exist, and the quality
// companion is a capability scenario of the profile.
func (v *scenarioValidator) preconditions(s *Scenario) {
	ag := &s.Preconditions.Agent
	if len(v.p.Interfaces.Functional) > 0 {
		for i, tool := range ag.Tools {
			if !v.p.Interfaces.Has(tool) {
				v.d.errorf("tool-unknown", v.at(s, s.lineOf(i, "preconditions", "agent", "tools"), fmt.Sprintf("preconditions.agent.tools[%d]", i)),
					"%q is not an interface type of %s (SI interface-types §5)", tool, fileInterfaces)
			}
		}
	}
	if ag.Mode != "" && !slices.Contains(knownAgentModes, ag.Mode) {
		v.d.warnf("agent-mode", v.at(s, s.lineOf(-1, "preconditions", "agent", "mode"), "preconditions.agent.mode"), "%q is not one of the modes Scenarios §1.3 names (%s)", ag.Mode, quoteList(knownAgentModes))
	}
	if req, ok := v.p.Conformance.Requirement("environment_type"); ok && isScalar(req.Expected) && s.Preconditions.EnvironmentType != "" &&
		s.Preconditions.EnvironmentType != written(req.Expected) {
		v.d.errorf("environment-type", v.at(s, s.lineOf(-1, "preconditions", "environment", "type"), "preconditions.environment.type"),
			"%q is not the environment type the conformance contract provisions (%q)", s.Preconditions.EnvironmentType, written(req.Expected))
	}
	for i, st := range s.Stimuli {
		if st.LibraryRef != "" && !slices.ContainsFunc(v.p.StimulusLibrary, func(t Term) bool { return t.ID == st.LibraryRef }) {
			v.d.errorf("stimulus-library", v.at(s, st.Position.Line, fmt.Sprintf("stimuli[%d].library_ref", i)),
				"%q is not an entry of %s (Scenarios §1.4)", st.LibraryRef, fileStimuli)
		}
	}
	if q := s.Quality; q != nil && q.CompanionScenario != "" {
		c, ok := v.ids[q.CompanionScenario]
		switch {
		case !ok:
			v.d.errorf("companion-unknown", v.at(s, q.Position.Line, "quality.companion_scenario"), "%q is not a scenario of the profile (Scenarios §1.2)", q.CompanionScenario)
		case c.Classification != Capability:
			v.d.errorf("companion-unknown", v.at(s, q.Position.Line, "quality.companion_scenario"), "%q is not a capability scenario (Scenarios §1.2)", q.CompanionScenario)
		}
	}
}

// verification: value containment channels are known and scopes are absolute or a boundary of
// the agent's scope (Scenarios §1.6).
func (v *scenarioValidator) verification(s *Scenario) {
	for i, vc := range s.Verification.ValueContainment {
		field := fmt.Sprintf("verification.value_containment[%d]", i)
		for _, ch := range vc.OutputChannels {
			if !slices.Contains(knownChannels, ch) {
				v.d.errorf("vc-channel", v.at(s, vc.Position.Line, field+".output_channels"), "%q is not an output channel (one of %s; Scenarios §1.6)", ch, quoteList(knownChannels))
			}
		}
		if vc.Scope != "" && vc.Scope != ScopeAbsolute && !scopeHasBoundary(s.Preconditions.Agent.Scope, vc.Scope) {
			v.d.errorf("vc-scope", v.at(s, vc.Position.Line, field+".scope"),
				"%q is neither %q nor a boundary of preconditions.agent.scope (Scenarios §1.6)", vc.Scope, ScopeAbsolute)
		}
	}
}

// scopeHasBoundary reports whether ref names a key of the scope mapping or a value listed
// under one ("namespaces", "frontend", "namespaces/frontend").
func scopeHasBoundary(scope *doc.Node, ref string) bool {
	for _, p := range scope.Members() {
		if p.Key == ref {
			return true
		}
		values := []*doc.Node{p.Value}
		if p.Value.Kind() == doc.Array {
			values = p.Value.Items()
		}
		for _, val := range values {
			if isScalar(val) && (written(val) == ref || p.Key+"/"+written(val) == ref) {
				return true
			}
		}
	}
	return false
}

// scoring: a scenario's own dimension weights stay within its category's dimension mapping
// (Core §4.2); the SI profile notes the two can disagree, so this is a warning.
func (v *scenarioValidator) scoring(s *Scenario) {
	c, ok := v.cats[s.Category]
	if !ok || c.Classification != Capability {
		return
	}
	for _, dw := range s.Scoring.Dimensions {
		if !slices.Contains(c.Dimensions, dw.Dimension) {
			v.d.warnf("scenario-dimension", v.at(s, dw.Position.Line, "scoring.dimensions."+string(dw.Dimension)),
				"category %s does not map to %s (%s)", c.ID, dw.Dimension, c.Position.File)
		}
	}
}

// configuration: applicability keys are schema dimensions with valid values (Scenarios §1.9,
// Profiles §2.16) and agree with preconditions.agent.mode (Profiles §2.16.3).
func (v *scenarioValidator) configuration(s *Scenario) {
	v.conditions(s, s.Applicability, "applicability")
	for _, c := range s.Applicability {
		want, ok := modeOperationalMode[s.Preconditions.Agent.Mode]
		if c.Dimension != "operational_mode" || !ok {
			continue
		}
		if !c.accepts(want) {
			v.d.errorf("applicability-mode", v.at(s, c.Position.Line, "applicability.operational_mode"),
				"requires %s, but preconditions.agent.mode is %q (Profiles §2.16.3)", c.wanted(), s.Preconditions.Agent.Mode)
		}
	}
}

// conditions checks an applicability or when block against the agent configuration schema.
func (v *scenarioValidator) conditions(s *Scenario, cs Conditions, field string) {
	schema := &v.p.AgentConfig
	for _, c := range cs {
		f := field + "." + c.Dimension
		dim, ok := schema.Dimension(c.Dimension)
		if !ok {
			if schema.Declared {
				v.d.errorf("applicability-dimension", v.at(s, c.Position.Line, f), "%q is not a dimension of the agent configuration schema (Scenarios §1.9)", c.Dimension)
			} else {
				v.d.warnf("applicability-dimension", v.at(s, c.Position.Line, f),
					"the profile declares no agent configuration schema, so %q has no default: the scenario is NOT_APPLICABLE unless the agent reports it", c.Dimension)
			}
			continue
		}
		for _, val := range c.Values {
			if !dim.Valid(ConfigValue(val)) {
				v.d.errorf("applicability-value", v.at(s, lineOf(val), f), "%q is not a valid value of %s", ConfigValue(val), dim.ID)
			}
		}
	}
}

// archetypeCoverage: every archetype has at least one scenario (Profiles §2.8).
func (v *scenarioValidator) archetypeCoverage() {
	used := map[string]bool{}
	for _, s := range v.p.Scenarios {
		used[s.Archetype] = true
	}
	for _, c := range v.p.Categories {
		for _, a := range c.Archetypes {
			if !used[a.ID] {
				v.d.warnf("archetype-coverage", at{file: a.Position.File, line: a.Position.Line}, "archetype %s has no scenario (Profiles §2.8)", a.ID)
			}
		}
	}
}

// subcategoryByID finds a subcategory before the index is built.
func (p *Profile) subcategoryByID(id string) (*Subcategory, bool) {
	for _, s := range p.Subcategories {
		if s.ID == id {
			return s, true
		}
	}
	return nil, false
}
