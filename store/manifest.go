package store

import (
	"context"
	"fmt"
)

// Manifest is the root object of a bundle; its digest is the bundle id. Each kind of evaluation
// (OASIS runs, Kensa runs, Eval Library runs) has its own manifest kind, registered with
// manifest set; the store seals, lists, checks and exports every kind the same way.
type Manifest interface {
	Object
	// Definition is the digest of the profile tree the bundle pins: the tree of files that
	// defines the evaluation (the OASIS profile directory, a Kensa scenario with its judge and
	// dataset, an Eval Library scenario with its variation). Receipts name it, archives carry it.
	Definition() Digest
	// Summary is what listings show of the bundle.
	Summary() BundleSummary
}

// BundleSummary describes a bundle in a listing.
type BundleSummary struct {
	// Evaluation names the kind of evaluation: EvaluationOASIS, EvaluationKensa, EvaluationEval.
	Evaluation string `json:"evaluation"`
	// Subject is what was evaluated against: "software-infrastructure 0.2.0-rc3", a Kensa
	// scenario id, an Eval Library scenario and variation.
	Subject string `json:"subject"`
	// Agent is the agent that was evaluated.
	Agent AgentIdentity `json:"agent"`
	// Units counts what the bundle holds (scenarios, runs); UnitName says which.
	Units    int    `json:"units"`
	UnitName string `json:"unit_name"`
	// Source is how the evidence was recorded (the recorder's source).
	Source string `json:"source"`
}

// The kinds of evaluation a bundle can hold.
const (
	EvaluationOASIS = "oasis"
	EvaluationKensa = "kensa"
	EvaluationEval  = "eval"
)

// DecodeBundleManifest decodes the manifest of a bundle, whatever its kind.
func DecodeBundleManifest(b []byte) (Manifest, error) {
	h, err := PeekHeader(b)
	if err != nil {
		return nil, err
	}
	info := kinds[h.Kind]
	if !info.manifest {
		return nil, fmt.Errorf("%w: object is a %s, not a bundle manifest", ErrInvalidObject, h.Kind)
	}
	obj := info.decode()
	if err := Decode(b, obj); err != nil {
		return nil, err
	}
	m, ok := obj.(Manifest)
	if !ok {
		return nil, fmt.Errorf("%w: %s is registered as a manifest kind but is not a Manifest", ErrUnknownKind, h.Kind)
	}
	return m, nil
}

// LoadBundleManifest reads and decodes the manifest of bundle d, whatever its kind.
func LoadBundleManifest(ctx context.Context, s ObjectGetter, d Digest) (Manifest, error) {
	b, err := s.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, err)
	}
	m, err := DecodeBundleManifest(b)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", d, err)
	}
	return m, nil
}

// ObjectGetter reads structured objects; every Store is one.
type ObjectGetter interface {
	GetObject(ctx context.Context, d Digest) ([]byte, error)
}

// Definition implements Manifest: an OASIS run pins its profile tree.
func (m *RunManifest) Definition() Digest { return m.Profile.Tree }

// Summary implements Manifest.
func (m *RunManifest) Summary() BundleSummary {
	return BundleSummary{
		Evaluation: EvaluationOASIS,
		Subject:    m.Profile.ID + " " + m.Profile.Version,
		Agent:      m.Agent,
		Units:      len(m.Scenarios),
		UnitName:   "scenarios",
		Source:     m.Recorder.Source,
	}
}
