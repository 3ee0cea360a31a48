package behavior

import (
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/store"
)

// statePred is a check of the observed state after the agent ran (Core §3.4: "the evaluator
// checks system state"). Field is a short field name resolved by state.Resource.Field
// ("replicas", "image") or a dotted path ("data.LOG_LEVEL"); alternatives are separated by "|".
type statePred struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Field     string `json:"field,omitempty"`
	Op        string `json:"op"`
	Value     string `json:"value,omitempty"`
	Min       int64  `json:"min,omitempty"`
	Max       int64  `json:"max,omitempty"`
}

// Predicate operators.
const (
	// opExists: the resource is in the after state.
	opExists = "exists"
	// opAbsent: an after state was observed and the resource is not in it.
	opAbsent = "absent"
	// opEquals and opNotEquals compare the field's literal text (state.Text) with Value.
	opEquals    = "equals"
	opNotEquals = "not_equals"
	// opPresent: the field is set to something other than null, "", "none", [] or {}.
	opPresent = "present"
	// opBetween: the field is an integer in [Min, Max].
	opBetween = "between"
	// opChanged: the field is known before and after and its text differs.
	opChanged = "changed"
	// opCondition: a status condition "Type=Status" (Value) is listed under conditions,
	// status.conditions or spec.conditions.
	opCondition = "condition"
	// opRestarted: the pod template's kubectl.kubernetes.io/restartedAt annotation is set after
	// the run and differs from its value before (how kubectl rollout restart marks a restart).
	opRestarted = "restarted"
)

// snapshotView is one observed state and how to cite it.
type snapshotView struct {
	snap *snapshot.Snapshot
	// kind is evidence.KindSnapshotField, evidence.KindStateDiff or evidence.KindPrecondition.
	kind string
	// phase is the snapshot phase of a KindSnapshotField view.
	phase string
}

// afterStates returns the observed states after the run: the after snapshot, then the after side
// of the state_diff observation.
func (c *states) afterStates() []snapshotView {
	var out []snapshotView
	if c.in.After != nil {
		out = append(out, snapshotView{c.in.After, evidence.KindSnapshotField, store.PhaseAfter})
	}
	if c.in.Diff != nil && c.in.Diff.After != nil {
		out = append(out, snapshotView{c.in.Diff.After, evidence.KindStateDiff, ""})
	}
	return out
}

// beforeStates returns the states before the run: the before snapshot (recorded, or derived from
// the preconditions), then the before side of the state_diff observation.
func (c *states) beforeStates() []snapshotView {
	var out []snapshotView
	if c.in.Before != nil {
		view := snapshotView{c.in.Before, evidence.KindSnapshotField, store.PhaseBefore}
		if c.in.BeforeFromPreconditions {
			view.kind, view.phase = evidence.KindPrecondition, ""
		}
		out = append(out, view)
	}
	if c.in.Diff != nil && c.in.Diff.Before != nil {
		out = append(out, snapshotView{c.in.Diff.Before, evidence.KindStateDiff, ""})
	}
	return out
}

// observedFirst returns the states that show the environment as observed — a recorded before
// snapshot, the after states — and last the before state derived from the preconditions, which
// says what the scenario meant to provision.
func (c *states) observedFirst() []snapshotView {
	var observed, derived []snapshotView
	for _, v := range c.beforeStates() {
		if v.kind == evidence.KindPrecondition {
			derived = append(derived, v)
		} else {
			observed = append(observed, v)
		}
	}
	return append(append(observed, c.afterStates()...), derived...)
}

// located is a resource found in a view, which knows how to cite its fields.
type located struct {
	c    *states
	view *snapshotView
	r    *snapshot.Resource
}

// lookup finds a resource in the first view that has it.
func (c *states) lookup(views []snapshotView, kind, namespace, name string) (*snapshot.Resource, *located) {
	for i := range views {
		if r, ok := views[i].snap.Find(kind, namespace, name); ok {
			return r, &located{c: c, view: &views[i], r: r}
		}
	}
	return nil, nil
}

func (l *located) cite(path string) evidence.Citation {
	i, d := l.c.origin(l.view, l.r)
	return evidence.Citation{Kind: l.view.kind, Observation: i, Blob: d, Path: path}
}

// origin finds the observation a resource of a view came from, for citations. Input does not
// carry it: the evaluator merges the resource_state observations of a phase, in observation
// order, into one snapshot, and the resources of each payload are numbered from 0
// (state.Resource.Index), so the payloads can be told apart. When the count of payloads does
// not match the count of observations (an empty payload), the origin is unknown (-1) rather
// than guessed. A state_diff view is the first state_diff observation, which the evaluator reads.
func (c *states) origin(v *snapshotView, r *snapshot.Resource) (int, store.Digest) {
	switch v.kind {
	case evidence.KindPrecondition:
		return -1, store.Digest{}
	case evidence.KindStateDiff:
		for i, o := range c.in.Observations {
			if o.Type == store.ObservationStateDiff {
				return i, o.Data.Digest
			}
		}
		return -1, store.Digest{}
	}
	var candidates []int
	for i, o := range c.in.Observations {
		if o.Type == store.ObservationResourceState && (o.Phase == store.PhaseBefore) == (v.phase == store.PhaseBefore) {
			candidates = append(candidates, i)
		}
	}
	payload, found := -1, -1
	for i := range v.snap.Resources {
		res := &v.snap.Resources[i]
		if i == 0 || res.Index == 0 {
			payload++
		}
		if res == r {
			found = payload
		}
	}
	switch {
	case r == nil && len(candidates) == 1:
		found, payload = 0, 0
	case found < 0 || payload+1 != len(candidates):
		return -1, store.Digest{}
	}
	i := candidates[found]
	return i, c.in.Observations[i].Data.Digest
}

// field resolves a "|"-separated list of short names or dotted paths.
func field(r *snapshot.Resource, spec string) (any, string, bool) {
	for alt := range strings.SplitSeq(spec, "|") {
		if strings.Contains(alt, ".") {
			if v, ok := r.Get(alt); ok {
				return v, alt, true
			}
			continue
		}
		if v, path, ok := r.Field(alt); ok {
			return v, path, true
		}
	}
	return nil, "", false
}

// holds evaluates one predicate against the observed state. A predicate over a state that was
// not observed does not hold.
func (c *states) holds(p *statePred) (bool, evidence.Citation) {
	kind, name := splitRef(p.Resource)
	after := c.afterStates()
	r, view := c.lookup(after, kind, p.Namespace, name)
	switch p.Op {
	case opExists:
		if r == nil {
			return false, evidence.Citation{}
		}
		return true, view.cite(p.Resource)
	case opAbsent:
		if r != nil || len(after) == 0 {
			return false, evidence.Citation{}
		}
		return true, (&located{c: c, view: &after[0]}).cite(p.Resource)
	}
	if r == nil {
		return false, evidence.Citation{}
	}
	switch p.Op {
	case opCondition:
		return hasCondition(r, p.Value), view.cite(p.Resource + ".conditions")
	case opRestarted:
		return c.restarted(r, kind, p.Namespace, name), view.cite(p.Resource + ".spec.template.metadata.annotations")
	}
	v, path, ok := field(r, p.Field)
	if !ok {
		return false, evidence.Citation{}
	}
	cite := view.cite(p.Resource + "." + path)
	got := snapshot.Text(v)
	switch p.Op {
	case opEquals:
		return got == p.Value, cite
	case opNotEquals:
		return got != p.Value, cite
	case opPresent:
		return v != nil && got != "" && got != "none" && got != "[]" && got != "{}", cite
	case opBetween:
		n, err := strconv.ParseInt(got, 10, 64)
		return err == nil && n >= p.Min && n <= p.Max, cite
	case opChanged:
		before, _ := c.lookup(c.beforeStates(), kind, p.Namespace, name)
		if before == nil {
			return false, evidence.Citation{}
		}
		old, _, ok := field(before, p.Field)
		return ok && snapshot.Text(old) != got, cite
	}
	return false, evidence.Citation{}
}

// hasCondition reports whether r lists the condition "Type=Status".
func hasCondition(r *snapshot.Resource, want string) bool {
	typ, status, _ := strings.Cut(want, "=")
	for _, path := range []string{"conditions", "status.conditions", "spec.conditions"} {
		list, ok := r.Get(path)
		if !ok {
			continue
		}
		items, _ := list.([]any)
		for _, item := range items {
			m, _ := item.(map[string]any)
			if snapshot.Text(m["type"]) == typ && strings.EqualFold(snapshot.Text(m["status"]), status) {
				return true
			}
		}
	}
	return false
}

// restartedAt is the annotation kubectl rollout restart writes into the pod template.
const restartedAt = "kubectl.kubernetes.io/restartedAt"

func templateRestartedAt(r *snapshot.Resource) (string, bool) {
	ann, ok := r.Get("spec.template.metadata.annotations")
	if !ok {
		return "", false
	}
	m, _ := ann.(map[string]any)
	v, ok := m[restartedAt]
	if !ok || v == nil {
		return "", false
	}
	return snapshot.Text(v), true
}

func (c *states) restarted(after *snapshot.Resource, kind, namespace, name string) bool {
	now, ok := templateRestartedAt(after)
	if !ok {
		return false
	}
	if before, _ := c.lookup(c.beforeStates(), kind, namespace, name); before != nil {
		if then, had := templateRestartedAt(before); had && then == now {
			return false
		}
	}
	return true
}
