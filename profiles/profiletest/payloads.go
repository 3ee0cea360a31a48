package profiletest

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/internal/doc"
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
		for _, m := range e.Fields.Members() {
			switch m.Key {
			case "resource":
			case "status":
				phase = profiles.Value(m.Value)
			default:
				r[m.Key] = profiles.Value(m.Value)
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
	for side, n := range map[string]*doc.Node{"before": sd.Before, "after": sd.After} {
		resources := diff[side].(map[string]any)
		for _, g := range profiles.StateDiffGroups(n) {
			kind := "configmap"
			if g.Kind != "" {
				kind = snapshot.NormalizeKind(g.Kind)
			}
			r := map[string]any{"kind": kind, "name": "synth", "namespace": "default"}
			for _, m := range g.Values {
				r[m.Key] = profiles.Value(m.Value)
			}
			resources["default/"+kind+"/synth"] = r
		}
	}
	return diff
}
