package evaluator

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/store"
)

// stateView is the observed state of one scenario: the resources after the run, before it (a
// recorded before snapshot, else the preconditions), and the state_diff observation.
type stateView struct {
	after  *snapshot.Snapshot
	afterO []origin
	// before is nil until derived; beforeFromPre says it came from the preconditions.
	before        *snapshot.Snapshot
	beforeO       []origin
	beforeFromPre bool
	diff          *snapshot.Diff
	diffO         origin
}

// origin is where a resource was observed, for citations; obs is -1 for the preconditions.
type origin struct {
	obs  int
	blob store.Digest
}

// readState parses every resource_state and state_diff observation of the scenario. A
// snapshot without a phase is taken after the run, as providers observe after the agent ran
// (SI provider guide §4.5).
func readState(ctx context.Context, run *Run, ev *store.ScenarioEvidence, pre *preconditions) (*stateView, error) {
	sv := &stateView{after: &snapshot.Snapshot{}}
	var before *snapshot.Snapshot
	for i, obs := range ev.Observations {
		switch obs.Type {
		case store.ObservationResourceState:
			snap, err := parseObservation(ctx, run, obs, func(rc io.ReadCloser) (*snapshot.Snapshot, error) {
				return snapshot.Parse(rc, obs.Data.MediaType, snapshot.Options{KindHint: obs.Attributes[store.AttrKind]})
			})
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrEvidence, observationRef(ev.ScenarioID, i, obs), err)
			}
			o := origin{obs: i, blob: obs.Data.Digest}
			if obs.Phase == store.PhaseBefore {
				if before == nil {
					before = &snapshot.Snapshot{}
				}
				before.Resources = append(before.Resources, snap.Resources...)
				sv.beforeO = appendOrigin(sv.beforeO, o, len(snap.Resources))
				continue
			}
			sv.after.Resources = append(sv.after.Resources, snap.Resources...)
			sv.afterO = appendOrigin(sv.afterO, o, len(snap.Resources))
		case store.ObservationStateDiff:
			if sv.diff != nil {
				continue // the first state_diff observation is the one compared
			}
			rc, err := run.openBlob(ctx, obs.Data)
			if err != nil {
				return nil, err
			}
			d, err := snapshot.ParseDiff(rc, 0)
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrEvidence, observationRef(ev.ScenarioID, i, obs), err)
			}
			sv.diff, sv.diffO = d, origin{obs: i, blob: obs.Data.Digest}
		}
	}
	sv.before = before
	if before == nil {
		// No before snapshot: the before state is the scenario's declared preconditions
		// (docs/decisions.md, "the before state").
		sv.before, sv.beforeFromPre = pre.snapshot(), true
		sv.beforeO = appendOrigin(nil, origin{obs: -1}, len(sv.before.Resources))
	}
	return sv, nil
}

func parseObservation(ctx context.Context, run *Run, obs store.Observation, parse func(io.ReadCloser) (*snapshot.Snapshot, error)) (*snapshot.Snapshot, error) {
	rc, err := run.openBlob(ctx, obs.Data)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return parse(rc)
}

func appendOrigin(list []origin, o origin, n int) []origin {
	for range n {
		list = append(list, o)
	}
	return list
}

// find looks a resource up in a snapshot with its origin.
func find(snap *snapshot.Snapshot, origins []origin, ref, namespace string) (*snapshot.Resource, origin, bool) {
	kind, name, _ := cutRef(ref)
	r, ok := snap.Find(kind, namespace, name)
	if !ok {
		return nil, origin{obs: -1}, false
	}
	for i := range snap.Resources {
		if &snap.Resources[i] == r {
			return r, origins[i], true
		}
	}
	return r, origin{obs: -1}, true
}

// cutRef splits "kind/name".
func cutRef(ref string) (kind, name string, ok bool) {
	for i := 0; i < len(ref); i++ {
		if ref[i] == '/' {
			return ref[:i], ref[i+1:], true
		}
	}
	return ref, "", false
}

// exists reports whether an observed resource still exists: providers list deleted resources
// of the scenario's scope with status.exists false or phase Deleted.
func exists(r *snapshot.Resource) bool {
	if r == nil {
		return false
	}
	if v, ok := r.Get("status.exists"); ok && snapshot.Text(v) == "false" {
		return false
	}
	if v, ok := r.Get("status.phase"); ok && snapshot.Text(v) == "Deleted" {
		return false
	}
	return true
}

// fieldCite cites a field of an observed resource.
func fieldCite(o origin, r *snapshot.Resource, path string) evidence.Citation {
	full := r.Ref()
	if path != "" {
		full += "." + path
	}
	if o.obs < 0 {
		return evidence.Citation{Kind: evidence.KindPrecondition, Observation: -1, Path: full}
	}
	return evidence.Citation{Kind: evidence.KindSnapshotField, Observation: o.obs, Blob: o.blob, Path: full}
}

// value resolves a short field name, then data.<name>, in a resource.
func value(r *snapshot.Resource, name string) (any, string, bool) {
	if v, path, ok := r.Field(name); ok {
		return v, path, true
	}
	if v, ok := r.Get("data." + name); ok {
		return v, "data." + name, true
	}
	return nil, "", false
}
