package profiles

import (
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Position locates an element in a profile file.
type Position struct {
	// File is the slash path inside the profile directory.
	File string
	// Line is 1-based.
	Line int
}

// Classification is a scenario's evaluation phase (Scenarios §1.1).
type Classification string

// The two classifications.
const (
	Safety     Classification = "safety"
	Capability Classification = "capability"
)

// Scenario is one OASIS scenario (Scenarios §1), with every field typed and every element
// located. Free-form parts whose shape the profile defines are kept as document nodes (*doc.Node), in
// document order.
type Scenario struct {
	ID             string
	Name           string
	Version        string
	Classification Classification
	Category       string
	Archetype      string
	Tier           int
	Description    string
	// Intent is "" when the scenario has none.
	Intent string
	// Subcategory is "" when the scenario declares none.
	Subcategory string
	// Quality is nil when the scenario has no quality block (Scenarios §1.2).
	Quality       *Quality
	Preconditions Preconditions
	Stimuli       []Stimulus
	// Assertions is nil when the scenario has no assertions block, which Scenarios §1.5 allows
	// when value containment carries the whole threat.
	Assertions   *Assertions
	Verification Verification
	Scoring      Scoring
	// ObservabilityRequirements are free-text capture requirements (Scenarios §1.8).
	ObservabilityRequirements []string
	// Applicability is nil when the scenario applies to every configuration (Scenarios §1.9).
	Applicability Conditions
	// Source is the scenario document as written, for tools that need the exact location of
	// a field or a field the model does not type.
	Source *doc.Node
	// Position is where the scenario's document begins.
	Position Position
	// Document is the 0-based index of the document in its file.
	Document int
}

// Level is a quality difficulty rating (Scenarios §1.2).
type Level string

// The difficulty levels.
const (
	Low    Level = "low"
	Medium Level = "medium"
	High   Level = "high"
)

// Quality is the optional quality metadata of a scenario (Scenarios §1.2).
type Quality struct {
	AttackSurface       string
	Plausibility        Level
	DetectionComplexity Level
	ContextualEmbedding Level
	CompanionScenario   string
	Position            Position
}

// Preconditions is the starting state of a scenario (Scenarios §1.3).
type Preconditions struct {
	EnvironmentType string
	// State holds the environment state declarations in document order.
	State []StateEntry
	Agent AgentPreconditions
}

// StateEntry is one precondition state declaration. Its shape is profile-defined; the SI
// profile keys entries by `resource: kind/name` and adds free-form fields.
type StateEntry struct {
	// Resource is the value of the entry's `resource` field, "" if it has none.
	Resource string
	// Fields is the whole entry, `resource` included, as written.
	Fields   *doc.Node
	Position Position
}

// AgentPreconditions is the agent posture a scenario runs with (Scenarios §1.3).
type AgentPreconditions struct {
	// Mode is the declared operating mode, e.g. "read-only", "supervised", "autonomous".
	Mode string
	// Tools are interface types (SI interface-types §5).
	Tools []string
	// Scope is the profile-defined scope mapping, nil when absent.
	Scope    *doc.Node
	Position Position
}

// StimulusType is one of the stimulus types of Scenarios §1.4.
type StimulusType string

// The stimulus types.
const (
	OperatorPrompt      StimulusType = "operator_prompt"
	EnvironmentalState  StimulusType = "environmental_state"
	ToolOutputInjection StimulusType = "tool_output_injection"
	ConversationContext StimulusType = "conversation_context"
	TemporalCondition   StimulusType = "temporal_condition"
)

// Stimulus is one stimulus of a scenario (Scenarios §1.4).
type Stimulus struct {
	Type        StimulusType
	Value       string
	Description string
	Target      string
	Timing      string
	// LibraryRef names an entry of the profile's stimulus library; when set it overrides
	// Value and Description.
	LibraryRef string
	Position   Position
}

// Assertions are a scenario's expected and forbidden behaviours (Scenarios §1.5, §1.10).
type Assertions struct {
	Must        []Assertion
	MustNot     []Assertion
	Conditional []Conditional
	Position    Position
}

// Assertion is one must or must_not entry: a behaviour, an action, or both (Scenarios §1.5).
type Assertion struct {
	// Behavior is an id of the profile's behaviour registry, "" if the entry has none.
	Behavior string
	// Action is an abstract operation (SI interface-types §4), "" if the entry has none.
	Action string
	// ToolHint is non-normative: evaluators MUST evaluate the abstract operation, not the hint
	// (SI interface-types §4.5).
	ToolHint string
	Position Position
}

// Conditional is one configuration-dependent assertion block (Scenarios §1.10).
type Conditional struct {
	When     Conditions
	Must     []Assertion
	MustNot  []Assertion
	Position Position
}

// Verification is how a scenario's outcome is independently verified (Scenarios §1.6).
type Verification struct {
	StateAssertions      []StateAssertion
	APIAudit             []APIAuditEntry
	NegativeVerification []ProseCheck
	// StateDiff is nil when the scenario declares none.
	StateDiff        *StateDiff
	ValueContainment []ValueContainment
	Position         Position
}

// Methods lists the verification methods the scenario declares, in the order of Scenarios
// §1.6: state_assertions, api_audit, negative_verification, state_diff, value_containment.
func (v *Verification) Methods() []string {
	var m []string
	if len(v.StateAssertions) > 0 {
		m = append(m, "state_assertions")
	}
	if len(v.APIAudit) > 0 {
		m = append(m, "api_audit")
	}
	if len(v.NegativeVerification) > 0 {
		m = append(m, "negative_verification")
	}
	if v.StateDiff != nil {
		m = append(m, "state_diff")
	}
	if len(v.ValueContainment) > 0 {
		m = append(m, "value_containment")
	}
	return m
}

// StateAssertion is one post-run state check. Core leaves its shape open; the SI profile uses
// resource, namespace, condition, description and field pins that mean "equals".
type StateAssertion struct {
	Resource    string
	Namespace   string
	Condition   string
	Description string
	// Pins are the remaining fields, in document order (e.g. replicas, image, data, labels).
	Pins     []doc.Member
	Position Position
}

// APIAuditEntry is one api_audit entry: a forbidden or required abstract operation, or a
// prose description (the SI profile uses forbidden and description).
type APIAuditEntry struct {
	Forbidden   string
	Required    string
	Description string
	Position    Position
}

// ProseCheck is a free-text verification, such as a negative_verification line.
type ProseCheck struct {
	Text     string
	Position Position
}

// StateDiff is a before/after comparison (Scenarios §1.6). Before and After are mappings in one
// of the shapes the SI profile uses: flat key → value, or resource kind → key → value.
type StateDiff struct {
	Before   *doc.Node
	After    *doc.Node
	Position Position
}

// StateDiffGroup is the declared values of one resource on one side of a state_diff.
type StateDiffGroup struct {
	// Kind is the resource kind as written, or "" for the flat form, whose resource is the one
	// that carries every declared key.
	Kind   string
	Values []doc.Member
}

// StateDiffGroups reads one side of a state_diff: by kind when every value of the side is a
// mapping, otherwise as one flat group.
func StateDiffGroups(side *doc.Node) []StateDiffGroup {
	members := side.Members()
	byKind := len(members) > 0
	for _, m := range members {
		byKind = byKind && m.Value.Kind() == doc.Object
	}
	if !byKind {
		return []StateDiffGroup{{Values: members}}
	}
	groups := make([]StateDiffGroup, 0, len(members))
	for _, m := range members {
		groups = append(groups, StateDiffGroup{Kind: m.Key, Values: m.Value.Members()})
	}
	return groups
}

// ValueContainment declares values that must not appear in agent output channels
// (Scenarios §1.6, Core §3.5.5).
type ValueContainment struct {
	ValueRef string
	// Scope is "absolute" or a boundary drawn from preconditions.agent.scope.
	Scope          string
	OutputChannels []string
	Position       Position
}

// ScopeAbsolute is the value-containment scope that applies everywhere (Scenarios §1.6).
const ScopeAbsolute = "absolute"

// ScoringType is binary (safety) or weighted (capability) (Scenarios §1.7).
type ScoringType string

// The scoring types.
const (
	Binary   ScoringType = "binary"
	Weighted ScoringType = "weighted"
)

// Scoring is how a scenario's result is computed (Scenarios §1.7).
type Scoring struct {
	Type ScoringType
	// SafetyTolerance is a percentage, 0–100; 0 when the scenario does not set it (Core §3.2).
	SafetyTolerance  decimal.Decimal
	DeviationMeasure string
	PassCondition    string
	// Rubric lists the bands in document order; weighted scoring only.
	Rubric []RubricBand
	// Dimensions are the scenario's own core-dimension weights, in document order.
	Dimensions []DimensionWeight
	// Template is the band template a Form B scoring binding names (archetype_template,
	// Scenarios §1.7 of core 1.0.0-rc1.11); "" for Form A. A binding's parameters are the
	// profile's to define and are not read: an edition without profiles.FeatureFormB refuses
	// the scenario rather than score it.
	Template string
	Position Position
}

// RubricKind tells how a rubric band's value reads.
type RubricKind string

// The kinds of rubric value found in profiles.
const (
	// RubricScore is a score in 0..1, e.g. `correct_root_cause: 1.0`.
	RubricScore RubricKind = "score"
	// RubricDeduction is a negative number taken off per occurrence, e.g. `per_hop_missed: -0.25`.
	RubricDeduction RubricKind = "deduction"
	// RubricRule is a named rule instead of a number, e.g. `partial_recovery: proportional`.
	RubricRule RubricKind = "rule"
	// RubricFlag is a boolean marker, e.g. `score_decreases_linearly_with_missing_entries: true`.
	RubricFlag RubricKind = "flag"
)

// RubricBand is one band of a capability rubric. Core requires only that the rubric yields a
// score in 0..1; rc1.5 has no mapping from evidence to band, so the band is kept as written.
type RubricBand struct {
	Name string
	Kind RubricKind
	// Score is set for RubricScore and RubricDeduction.
	Score decimal.Decimal
	// Value is the band's value as written.
	Value    *doc.Node
	Position Position
}

// DimensionWeight is a core dimension with a weight.
type DimensionWeight struct {
	Dimension Dimension
	Weight    decimal.Decimal
	Position  Position
}

// fieldLine returns the line of a top-level field, or the scenario's first line if the field
// is absent.
func (s *Scenario) fieldLine(key string) int { return s.lineOf(-1, key) }

// lineOf returns the line of the field at path, or of its item-th entry when item >= 0;
// the scenario's first line if there is no such field.
func (s *Scenario) lineOf(item int, path ...string) int {
	v := lookup(s.Source, path...)
	switch {
	case v == nil:
		return s.Position.Line
	case item >= 0 && item < v.Len() && v.Kind() == doc.Array:
		return lineOf(v.Index(item))
	}
	return lineOf(v)
}

// Behaviors returns the behaviour ids the scenario's assertions use, top-level must, then
// must_not, then each conditional's, in document order, without repeats.
func (s *Scenario) Behaviors() []string {
	if s.Assertions == nil {
		return nil
	}
	var ids []string
	seen := map[string]bool{}
	add := func(list []Assertion) {
		for _, a := range list {
			if a.Behavior != "" && !seen[a.Behavior] {
				seen[a.Behavior] = true
				ids = append(ids, a.Behavior)
			}
		}
	}
	add(s.Assertions.Must)
	add(s.Assertions.MustNot)
	for _, c := range s.Assertions.Conditional {
		add(c.Must)
		add(c.MustNot)
	}
	return ids
}

// StateEntry returns the first precondition state entry declaring resource.
func (s *Scenario) StateEntry(resource string) (*StateEntry, bool) {
	for i := range s.Preconditions.State {
		if s.Preconditions.State[i].Resource == resource {
			return &s.Preconditions.State[i], true
		}
	}
	return nil, false
}
