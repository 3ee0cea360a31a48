package snapshot

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Change is one changed field of a state_diff observation.
type Change struct {
	// Path is the changed field as the provider names it, e.g. "configmap/app-config.data.LOG_LEVEL".
	Path string
	// Field is the field path inside the resource ("data.LOG_LEVEL"), when given or derivable.
	Field     string
	Namespace string
	Before    any
	After     any
	Index     int
}

// Diff is a state_diff observation: resources before and after, and the list of changes.
type Diff struct {
	Before, After *Snapshot
	Changes       []Change
}

// ParseDiff reads a state_diff payload ({before, after, changes[]}). before and after map a key
// ("ns/kind/name" or anything) to a resource in the provider shape; keys are visited in sorted
// order so the snapshots have a stable order.
func ParseDiff(r io.Reader, maxBytes int64) (*Diff, error) {
	v, err := readJSON(r, "state_diff", maxBytes)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: state_diff top level is not an object", ErrPayload)
	}
	d := &Diff{}
	if d.Before, err = diffSide(obj, "before"); err != nil {
		return nil, err
	}
	if d.After, err = diffSide(obj, "after"); err != nil {
		return nil, err
	}
	changes, _ := obj["changes"].([]any)
	for i, c := range changes {
		m, ok := c.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: changes[%d] is not an object", ErrPayload, i)
		}
		ch := Change{Before: m["before"], After: m["after"], Index: i}
		ch.Path, _ = m["path"].(string)
		ch.Field, _ = m["field"].(string)
		ch.Namespace, _ = m["namespace"].(string)
		if ch.Field == "" {
			// "configmap/app-config.data.LOG_LEVEL" → "data.LOG_LEVEL"
			if _, rest, ok := strings.Cut(ch.Path, "."); ok {
				ch.Field = rest
			}
		}
		d.Changes = append(d.Changes, ch)
	}
	return d, nil
}

func diffSide(obj map[string]any, side string) (snap *Snapshot, err error) {
	raw, present := obj[side]
	if !present || raw == nil {
		return &Snapshot{}, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: state_diff %s is not an object", ErrPayload, side)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	snap = &Snapshot{}
	for i, k := range keys {
		rm, isObject := m[k].(map[string]any)
		var res Resource
		if isObject {
			res, err = providerResource(rm, i)
		}
		if !isObject || err != nil {
			// A flat before/after map ({LOG_LEVEL: info}) holds values, not resources: keep
			// the whole side as one anonymous resource so its keys can still be compared.
			return &Snapshot{Resources: []Resource{{Doc: m}}}, nil
		}
		snap.Resources = append(snap.Resources, res)
	}
	return snap, nil
}
