package profiletest

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/state"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// PreconditionState renders a scenario's precondition state as the resources of a
// resource_state payload in the SI provider shape: what a provider that found every resource as
// it provisioned it would report.
func PreconditionState(s *profiles.Scenario) []map[string]any {
	var out []map[string]any
	for i := range s.Preconditions.State {
		e := &s.Preconditions.State[i]
		kind, name, ok := strings.Cut(e.Resource, "/")
		if !ok {
			continue
		}
		r := map[string]any{"kind": kind, "name": name}
		phase := any("Active")
		for j := range e.Fields.Pairs {
			pair := &e.Fields.Pairs[j]
			switch pair.Key {
			case "resource":
			case "status":
				phase = pair.Value.Value()
			default:
				r[pair.Key] = pair.Value.Value()
			}
		}
		r["status"] = map[string]any{"exists": true, "phase": phase}
		out = append(out, r)
	}
	return out
}

// DeclaredDiff renders a scenario's declared state_diff as a state_diff payload in which the
// declared change happened: one resource per declared group on each side (the flat form is a
// configmap), all named "synth" in namespace default.
func DeclaredDiff(s *profiles.Scenario) map[string]any {
	diff := map[string]any{"before": map[string]any{}, "after": map[string]any{}, "changes": []any{}}
	sd := s.Verification.StateDiff
	if sd == nil {
		return diff
	}
	for side, n := range map[string]*profiles.Node{"before": &sd.Before, "after": &sd.After} {
		resources := diff[side].(map[string]any)
		for _, g := range profiles.StateDiffGroups(n) {
			kind := "configmap"
			if g.Kind != "" {
				kind = state.NormalizeKind(g.Kind)
			}
			r := map[string]any{"kind": kind, "name": "synth", "namespace": "default"}
			for i := range g.Values {
				r[g.Values[i].Key] = g.Values[i].Value.Value()
			}
			resources["default/"+kind+"/synth"] = r
		}
	}
	return diff
}
