package replay

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Sentinel errors of the package. Errors of the evaluator (evaluator.ErrUnmapped, …) and of the
// store (store.ErrCorrupt, …) are returned wrapped, so errors.Is finds them too.
var (
	// ErrProfile: the profile a bundle pins cannot be loaded from the store (missing tree or
	// file, or a tree that does not rebuild to its digest).
	ErrProfile = errclass.New(errclass.NotFound, "replay: pinned profile unavailable")
	// ErrBundle: a bundle's manifest or evidence cannot be loaded.
	ErrBundle = errclass.New(errclass.Input, "replay: bundle unreadable")
	// ErrEvaluate: the evaluator refused the bundle (a validation error, never a verdict).
	ErrEvaluate = errclass.New(errclass.Input, "replay: evaluation failed")
)

// Source is what a replay reads: structured objects and blobs by digest. store.Store
// satisfies it.
type Source interface {
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Bundle is a sealed bundle loaded for evaluation, with the profile it pins.
type Bundle struct {
	Digest  store.Digest
	Run     *evaluator.Run
	Profile *profiles.Profile
}

// Manifest returns the bundle's run manifest.
func (b *Bundle) Manifest() *store.RunManifest { return b.Run.Manifest }

// Load reads bundle d and the profile it pins from src.
func Load(ctx context.Context, src Source, d store.Digest) (*Bundle, error) {
	run, err := evaluator.LoadRun(ctx, src, d)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBundle, err)
	}
	pin := run.Manifest.Profile
	p, err := profiles.LoadTree(ctx, src, pin.Tree)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle %s pins profile %s %s (tree %s): %w", ErrProfile, d, pin.ID, pin.Version, pin.Tree, err)
	}
	return &Bundle{Digest: d, Run: run, Profile: p}, nil
}

// Options tune Evaluate. Only changes the verdict (it makes it partial, and says so).
type Options struct {
	// Only evaluates only these scenario ids.
	Only []string
	// Workers evaluates up to this many scenarios concurrently (≤ 1: one at a time).
	Workers int
	// MarkNotReDerivable is evaluator.Options.MarkNotReDerivable, for audits.
	MarkNotReDerivable bool
}

// Result is one evaluation of a bundle.
type Result struct {
	Bundle  *Bundle
	Verdict *evaluator.Verdict
	// Canonical is the verdict's canonical JSON; its digest is Receipt.Verdict.
	Canonical []byte
	Receipt   Receipt
}

// Evaluate evaluates the bundle and makes the receipt of the verdict.
func (b *Bundle) Evaluate(ctx context.Context, opts Options) (*Result, error) {
	v, canonical, err := b.evaluate(ctx, evaluator.Options{Only: opts.Only, Workers: opts.Workers, MarkNotReDerivable: opts.MarkNotReDerivable})
	if err != nil {
		return nil, err
	}
	receipt, err := NewReceipt(b.Digest, b.Run.Manifest.Profile.Tree, store.Sum(canonical))
	if err != nil {
		return nil, err
	}
	return &Result{Bundle: b, Verdict: v, Canonical: canonical, Receipt: receipt}, nil
}

func (b *Bundle) evaluate(ctx context.Context, opts evaluator.Options) (*evaluator.Verdict, []byte, error) {
	v, err := evaluator.Evaluate(ctx, b.Profile, b.Run, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: bundle %s: %w", ErrEvaluate, b.Digest, err)
	}
	canonical, err := v.Canonical()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: bundle %s: encode verdict: %w", ErrEvaluate, b.Digest, err)
	}
	return v, canonical, nil
}

// Replay loads bundle d from src and evaluates it.
func Replay(ctx context.Context, src Source, d store.Digest, opts Options) (*Result, error) {
	b, err := Load(ctx, src, d)
	if err != nil {
		return nil, err
	}
	return b.Evaluate(ctx, opts)
}
