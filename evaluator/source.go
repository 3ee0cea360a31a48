package evaluator

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/store"
)

// Source is what the evaluator reads evidence through: structured objects and blobs by digest.
// store.Store satisfies it; tests use an in-memory map.
type Source interface {
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Run is a recorded run ready for evaluation: its manifest, the decoded evidence of every
// scenario that has some, and the source its observation payloads are read from.
type Run struct {
	// Bundle is the digest of the manifest (the bundle id); zero for a run built in memory.
	Bundle   store.Digest
	Manifest *store.RunManifest
	// Evidence maps a scenario id to its decoded evidence. Scenarios listed without evidence
	// (ScenarioRef.Evidence nil) have no entry.
	Evidence map[string]*store.ScenarioEvidence
	// Blobs serves the observation payloads.
	Blobs Source
}

// LoadRun reads the manifest named by bundle and every scenario evidence object it lists,
// checking that each names the scenario it is listed for.
func LoadRun(ctx context.Context, src Source, bundle store.Digest) (*Run, error) {
	b, err := src.GetObject(ctx, bundle)
	if err != nil {
		return nil, fmt.Errorf("%w: manifest %s: %w", ErrEvidence, bundle, err)
	}
	m, err := store.DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%w: manifest %s: %w", ErrEvidence, bundle, err)
	}
	run := &Run{Bundle: bundle, Manifest: m, Evidence: make(map[string]*store.ScenarioEvidence, len(m.Scenarios)), Blobs: src}
	for _, ref := range m.Scenarios {
		if ref.Evidence == nil {
			continue
		}
		eb, err := src.GetObject(ctx, ref.Evidence.Digest)
		if err != nil {
			return nil, fmt.Errorf("%w: scenario %s: evidence %s: %w", ErrEvidence, ref.ScenarioID, ref.Evidence.Digest, err)
		}
		ev, err := store.DecodeScenarioEvidence(eb)
		if err != nil {
			return nil, fmt.Errorf("%w: scenario %s: evidence %s: %w", ErrEvidence, ref.ScenarioID, ref.Evidence.Digest, err)
		}
		run.Evidence[ref.ScenarioID] = ev
	}
	if err := run.check(); err != nil {
		return nil, err
	}
	return run, nil
}

// check verifies that the evidence map agrees with the manifest.
func (r *Run) check() error {
	if r.Manifest == nil {
		return fmt.Errorf("%w: the run has no manifest", ErrEvidence)
	}
	listed := make(map[string]bool, len(r.Manifest.Scenarios))
	for i, ref := range r.Manifest.Scenarios {
		if listed[ref.ScenarioID] {
			return fmt.Errorf("%w: manifest scenarios[%d]: %s is listed twice", ErrEvidence, i, ref.ScenarioID)
		}
		listed[ref.ScenarioID] = true
		ev, ok := r.Evidence[ref.ScenarioID]
		switch {
		case ref.Evidence == nil && ok:
			return fmt.Errorf("%w: scenario %s: evidence given but the manifest records none", ErrEvidence, ref.ScenarioID)
		case ref.Evidence != nil && !ok:
			return fmt.Errorf("%w: scenario %s: the manifest records evidence %s that was not loaded", ErrEvidence, ref.ScenarioID, ref.Evidence.Digest)
		case ok && ev.ScenarioID != ref.ScenarioID:
			return fmt.Errorf("%w: scenario %s: its evidence object is for %s", ErrEvidence, ref.ScenarioID, ev.ScenarioID)
		}
	}
	for id := range r.Evidence {
		if !listed[id] {
			return fmt.Errorf("%w: evidence for %s, which the manifest does not list", ErrEvidence, id)
		}
	}
	return nil
}

// readBlob opens one observation payload.
func (r *Run) openBlob(ctx context.Context, d store.Descriptor) (io.ReadCloser, error) {
	rc, _, err := r.Blobs.OpenBlob(ctx, d.Digest)
	if err != nil {
		return nil, fmt.Errorf("%w: blob %s: %w", ErrEvidence, d.Digest, err)
	}
	return rc, nil
}
