package behavior

import (
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
)

// truth is the ground truth of one scenario. OASIS rc1.5 states it only in prose (a state
// assertion's description, a comment beside a precondition, the description): behaviour
// definitions say "matches the scenario's predefined ground truth" without a machine-readable
// form. The project keeps it here, one entry per scenario, each citing where the scenario states
// it, and versioned with the scenario version it was read from: Check refuses an entry whose
// scenario has moved on.
type truth struct {
	Scenario string   `json:"scenario"`
	Version  string   `json:"scenario_version"`
	Sources  []source `json:"sources"`
	// Facts are statements the agent's output may make, each a set of concepts stated together
	// in one sentence. Tag groups facts of one kind ("hop", "panel:concerning").
	Facts []*fact `json:"facts,omitempty"`
	// Effects are changes of the system, confirmed from the audit log or the after state.
	Effects []*effect `json:"effects,omitempty"`
	// Steps are an ordered procedure (a runbook, a required sequence).
	Steps []*step `json:"steps,omitempty"`
	// Values are named scalars: resources, keys, ranges.
	Values []value `json:"values,omitempty"`
}

// source cites where a scenario states its ground truth: a field path of the scenario document
// and the words it uses.
type source struct {
	Field string `json:"field"`
	Quote string `json:"quote"`
}

// fact is a statement: every concept stated in one sentence.
type fact struct {
	Name  string     `json:"name"`
	Tag   string     `json:"tag,omitempty"`
	AllOf []*concept `json:"all_of"`
}

// effect is a change of the system. It happened when an agent audit entry that took effect
// matches one of Actions (abstract operations of SI interface-types §4, matched through the
// action bridge) or of Audited (for objects the action vocabulary has no noun for), or when the
// after state satisfies State (all predicates, or any one with AnyState).
type effect struct {
	Name     string      `json:"name"`
	Actions  []string    `json:"actions,omitempty"`
	Audited  []callMatch `json:"audited,omitempty"`
	State    []statePred `json:"state,omitempty"`
	AnyState bool        `json:"any_state,omitempty"`

	patterns []action.Pattern
}

// step is one step of an ordered procedure: the tool calls that perform it and, for a step that
// changes the system, the effect that confirms it.
type step struct {
	Name   string      `json:"name"`
	Text   string      `json:"text"`
	Calls  []callMatch `json:"calls"`
	Effect string      `json:"effect,omitempty"`
}

// callMatch selects operations: every set field must match (kinds, verbs, tools, names are
// alternatives; Args is a concept the call's arguments must contain).
type callMatch struct {
	Class opClass  `json:"class,omitempty"`
	Kinds []string `json:"kinds,omitempty"`
	Verbs []string `json:"verbs,omitempty"`
	Tools []string `json:"tools,omitempty"`
	Names []string `json:"names,omitempty"`
	Args  *concept `json:"args,omitempty"`
}

func (m *callMatch) match(op *operation) bool {
	switch {
	case m.Class != "" && op.class != m.Class,
		len(m.Kinds) > 0 && !slices.Contains(m.Kinds, op.kind),
		len(m.Verbs) > 0 && !slices.Contains(m.Verbs, op.verb),
		len(m.Tools) > 0 && (op.fromAudit || !slices.Contains(m.Tools, op.verb)),
		len(m.Names) > 0 && !slices.Contains(m.Names, op.name):
		return false
	case m.Args != nil:
		return len(op.argsText().affirmed(m.Args)) > 0
	}
	return true
}

// value is a named scalar of the ground truth.
type value struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func (t *truth) fact(name string) *fact {
	for _, f := range t.Facts {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// tagged returns the facts whose tag is tag or starts with tag + ":".
func (t *truth) tagged(tag string) []*fact {
	var out []*fact
	for _, f := range t.Facts {
		if f.Tag == tag || strings.HasPrefix(f.Tag, tag+":") {
			out = append(out, f)
		}
	}
	return out
}

// has reports whether the entry holds a need (see missingTruth).
func (t *truth) has(need string) bool {
	kind, name, _ := strings.Cut(need, ":")
	switch kind {
	case "fact":
		return t.fact(name) != nil
	case "facts":
		return len(t.tagged(name)) > 0
	case "effect":
		return t.effect(name) != nil
	case "step":
		return t.step(name) != nil
	case "steps":
		if len(t.Steps) == 0 {
			return false
		}
		for _, st := range t.Steps {
			if st.Effect != "" && t.effect(st.Effect) == nil {
				return false
			}
		}
		return true
	case "value":
		return t.value(name) != ""
	case "element-effects":
		for _, f := range t.tagged("element") {
			if t.effect(f.Name) == nil {
				return false
			}
		}
		return len(t.tagged("element")) > 0
	}
	return false
}

func (t *truth) step(name string) *step {
	for _, st := range t.Steps {
		if st.Name == name {
			return st
		}
	}
	return nil
}

func (t *truth) effect(name string) *effect {
	for _, e := range t.Effects {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func (t *truth) value(name string) string {
	for _, v := range t.Values {
		if v.Name == name {
			return v.Value
		}
	}
	return ""
}

// truthIndex maps scenario ids to their entries; built from groundTruth at init.
var truthIndex = map[string]*truth{}

func init() {
	for _, t := range groundTruth {
		truthIndex[t.Scenario] = t
		for _, e := range t.Effects {
			for _, a := range e.Actions {
				// The table is code: a malformed action is a programming error caught by the
				// first test run, never by user input.
				e.patterns = append(e.patterns, action.MustParse(a))
			}
		}
	}
}

func truthFor(scenario string) *truth { return truthIndex[scenario] }
