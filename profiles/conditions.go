package profiles

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Condition is one key of an applicability or conditional `when` block (Scenarios §1.9): the
// agent's effective value for Dimension must equal one of Values.
type Condition struct {
	Dimension string
	// Values holds one value for an exact match (`dim: value`) and the listed values for an
	// any-of match (`dim: [a, b]`).
	Values []*doc.Node
	// AnyOf is true when the condition was written as a list.
	AnyOf    bool
	Position Position
}

// Conditions are the keys of one applicability or `when` block, in document order. All must
// match (Scenarios §1.9).
type Conditions []Condition

// accepts reports whether value satisfies the condition.
func (c *Condition) accepts(value string) bool {
	return slices.ContainsFunc(c.Values, func(v *doc.Node) bool { return ConfigValue(v) == value })
}

// wanted renders the accepted values for messages: `"a"` or `one of "a", "b"`.
func (c *Condition) wanted() string {
	vals := make([]string, 0, len(c.Values))
	for i := range c.Values {
		vals = append(vals, ConfigValue(c.Values[i]))
	}
	if c.AnyOf {
		return "one of " + quoteList(vals)
	}
	return strconv.Quote(vals[0])
}

// Match checks the conditions against an effective agent configuration (reported values with
// schema defaults applied, see AgentConfigSchema.Effective). It returns every failing
// condition's reason, in document order.
func (cs Conditions) Match(effective map[string]string) (bool, []string) {
	var reasons []string
	for i := range cs {
		c := &cs[i]
		got, reported := effective[c.Dimension]
		switch {
		case !reported:
			// Scenarios §1.9: an unreported dimension without a schema default excludes the
			// scenario.
			reasons = append(reasons, fmt.Sprintf("%s is not reported by the agent and has no default in the agent configuration schema", c.Dimension))
		case !c.accepts(got):
			reasons = append(reasons, fmt.Sprintf("%s is %q, the scenario requires %s", c.Dimension, got, c.wanted()))
		}
	}
	return len(reasons) == 0, reasons
}

// ConfigType is the type of an agent configuration dimension (Profiles §2.16.1).
type ConfigType string

// The dimension types.
const (
	ConfigEnum    ConfigType = "enum"
	ConfigBoolean ConfigType = "boolean"
)

// ConfigDimension is one axis of the agent configuration schema (Profiles §2.16.1).
type ConfigDimension struct {
	ID   string
	Type ConfigType
	// Values are the valid values of an enum dimension.
	Values      []string
	Description string
	// Default is the assumed value when the agent does not report the dimension; meaningful
	// only when HasDefault is true. Booleans are "true" or "false".
	Default    string
	HasDefault bool
	Position   Position
}

// Valid reports whether value is a valid value of the dimension.
func (c *ConfigDimension) Valid(value string) bool {
	if c.Type == ConfigBoolean {
		return value == "true" || value == "false"
	}
	return slices.Contains(c.Values, value)
}

// AgentConfigSchema is a profile's agent configuration schema (Profiles §2.16). Profiles MUST
// declare one; the SI profile at 0.2.0-rc3 does not, and then the schema is empty:
// every dimension a scenario conditions on must be reported by the agent, or the scenario is
// NOT_APPLICABLE.
type AgentConfigSchema struct {
	Dimensions []ConfigDimension
	// Declared is false when the profile ships no schema.
	Declared bool
	Position Position
}

// Dimension returns the dimension named id.
func (s *AgentConfigSchema) Dimension(id string) (*ConfigDimension, bool) {
	for i := range s.Dimensions {
		if s.Dimensions[i].ID == id {
			return &s.Dimensions[i], true
		}
	}
	return nil, false
}

// Effective returns the agent's effective configuration: the reported values, plus the schema
// default of every dimension the agent did not report (Scenarios §1.9, Profiles §2.16.1).
// config is not modified.
func (s *AgentConfigSchema) Effective(config map[string]string) map[string]string {
	eff := make(map[string]string, len(config)+len(s.Dimensions))
	for k, v := range config {
		eff[k] = v
	}
	for _, d := range s.Dimensions {
		if _, reported := eff[d.ID]; !reported && d.HasDefault {
			eff[d.ID] = d.Default
		}
	}
	return eff
}

// Applies reports whether scenario s is included for an agent with the given reported
// configuration (Scenarios §1.9). config values are JSON/YAML literal text ("true", "api").
// When it is not, reason says which conditions failed, in document order; the scenario is
// then NOT_APPLICABLE, an exclusion, not a verdict (Core §3.6.1).
func (p *Profile) Applies(s *Scenario, config map[string]string) (bool, string) {
	if len(s.Applicability) == 0 {
		return true, ""
	}
	ok, reasons := s.Applicability.Match(p.AgentConfig.Effective(config))
	for i := range reasons {
		reasons[i] = "applicability." + reasons[i]
	}
	return ok, strings.Join(reasons, "; ")
}

// MatchConditional returns the conditional assertion block of s that matches the agent's
// configuration, or nil if none does. More than one match makes the scenario malformed
// (Scenarios §1.10) and is ErrAmbiguousConditional naming the blocks.
func (p *Profile) MatchConditional(s *Scenario, config map[string]string) (*Conditional, error) {
	if s.Assertions == nil {
		return nil, nil
	}
	eff := p.AgentConfig.Effective(config)
	var matched []*Conditional
	for i := range s.Assertions.Conditional {
		c := &s.Assertions.Conditional[i]
		if ok, _ := c.When.Match(eff); ok {
			matched = append(matched, c)
		}
	}
	switch len(matched) {
	case 0:
		return nil, nil
	case 1:
		return matched[0], nil
	}
	lines := make([]string, 0, len(matched))
	for _, c := range matched {
		lines = append(lines, strconv.Itoa(c.Position.Line))
	}
	return nil, fmt.Errorf("%w: %s:%d: %s: conditional blocks at lines %s all match",
		ErrAmbiguousConditional, s.Position.File, s.Position.Line, s.ID, strings.Join(lines, ", "))
}

// EffectiveAssertions returns the must and must_not entries that apply to an agent with the
// given configuration: the top-level entries, then those of the matching conditional block
// (Scenarios §1.10: conditional entries are merged with, never replace, the top level).
func (p *Profile) EffectiveAssertions(s *Scenario, config map[string]string) (must, mustNot []Assertion, err error) {
	if s.Assertions == nil {
		return nil, nil, nil
	}
	c, err := p.MatchConditional(s, config)
	if err != nil {
		return nil, nil, err
	}
	must = slices.Clone(s.Assertions.Must)
	mustNot = slices.Clone(s.Assertions.MustNot)
	if c != nil {
		must = append(must, c.Must...)
		mustNot = append(mustNot, c.MustNot...)
	}
	return must, mustNot, nil
}

// conditionsOverlap reports whether some configuration satisfies both a and b: every dimension
// they both constrain must admit a common value (dimensions only one constrains can always be
// reported so as to satisfy it). This is the static form of the Scenarios §1.10 rule.
func conditionsOverlap(a, b Conditions) bool {
	for i := range a {
		for j := range b {
			if a[i].Dimension != b[j].Dimension {
				continue
			}
			common := slices.ContainsFunc(a[i].Values, func(v *doc.Node) bool { return b[j].accepts(ConfigValue(v)) })
			if !common {
				return false
			}
		}
	}
	return true
}

// modeOperationalMode relates preconditions.agent.mode to the operational_mode dimension of
// the example schema of Profiles §2.16.1; §2.16.3 calls a read_write applicability with a
// read-only mode malformed. This table is project-kept: the spec gives only that example.
var modeOperationalMode = map[string]string{
	"read-only":  "read_only",
	"supervised": "read_write",
	"autonomous": "read_write",
}

// knownAgentModes are the operating modes Scenarios §1.3 names.
var knownAgentModes = []string{"read-only", "supervised", "autonomous"}
