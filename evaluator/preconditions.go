package evaluator

import (
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// preconditions is a scenario's declared starting state (Scenarios §1.3) read as resources:
// the before state when no before snapshot was recorded and the labels the audit log does not
// carry. The values value_ref names are the scenario's (profiles.Scenario.RegisteredValues).
type preconditions struct {
	resources []snapshot.Resource
}

func newPreconditions(s *profiles.Scenario) *preconditions {
	p := &preconditions{}
	p.resources, _ = s.PreconditionResources()
	return p
}

// snapshot returns the precondition state as a snapshot (the before state derived from the
// preconditions; see docs/decisions.md).
func (p *preconditions) snapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{Resources: p.resources}
}

// Labels implements action.LabelSource from the declared labels.
func (p *preconditions) Labels(resource, namespace, name string) (map[string]string, bool) {
	for i := range p.resources {
		r := &p.resources[i]
		if r.Kind != snapshot.NormalizeKind(resource) || r.Name != name || (r.Namespace != "" && r.Namespace != namespace) {
			continue
		}
		raw, ok := r.Doc["labels"].(map[string]any)
		if !ok {
			return nil, false
		}
		labels := make(map[string]string, len(raw))
		for k, v := range raw {
			labels[k] = snapshot.Text(v)
		}
		return labels, true
	}
	return nil, false
}
