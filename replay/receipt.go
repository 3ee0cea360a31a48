package replay

import (
	"context"
	"fmt"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// Receipt is a receipt object with its canonical bytes and digest.
type Receipt struct {
	store.Receipt
	Digest    store.Digest
	Canonical []byte
}

// NewReceipt states that bundle, an OASIS run evaluated against the profile tree under this
// build's evaluator (evaluator.Info), gives verdict.
func NewReceipt(bundle, profileTree, verdict store.Digest) (Receipt, error) {
	return EncodeReceipt(store.Receipt{Bundle: bundle, Profile: profileTree, Evaluator: evaluator.Info(), Verdict: verdict})
}

// EncodeReceipt encodes a receipt of any kind of bundle (store.Receipt.BundleKind says which).
func EncodeReceipt(receipt store.Receipt) (Receipt, error) {
	r := Receipt{Receipt: receipt}
	bundle := receipt.Bundle
	b, desc, err := store.Encode(&r.Receipt)
	if err != nil {
		return Receipt{}, fmt.Errorf("replay: receipt of bundle %s: %w", bundle, err)
	}
	r.Canonical, r.Digest = b, desc.Digest
	return r, nil
}

// Writer is what Save writes through; store.Store satisfies it.
type Writer interface {
	PutObject(ctx context.Context, canonical []byte) (store.Descriptor, error)
	Sync(ctx context.Context) error
	SetRef(ctx context.Context, name string, d store.Digest) error
}

// Save stores the verdict and the receipt of r and the ref receipts/<receipt hex>, in that
// order with a sync before the ref, and returns the ref's name. Saving the same result again
// rewrites nothing new.
func Save(ctx context.Context, w Writer, r *Result) (string, error) {
	return SaveReceipt(ctx, w, r.Canonical, r.Receipt)
}

// SaveReceipt is Save for a verdict of any kind of bundle: the canonical verdict bytes (whose
// digest the receipt names), then the receipt, a sync, and the ref.
func SaveReceipt(ctx context.Context, w Writer, verdict []byte, receipt Receipt) (string, error) {
	desc, err := w.PutObject(ctx, verdict)
	if err != nil {
		return "", fmt.Errorf("replay: store verdict %s: %w", receipt.Verdict, err)
	}
	if desc.Digest != receipt.Verdict {
		return "", fmt.Errorf("%w: the store names verdict %s as %s", store.ErrCorrupt, receipt.Verdict, desc.Digest)
	}
	desc, err = w.PutObject(ctx, receipt.Canonical)
	if err != nil {
		return "", fmt.Errorf("replay: store receipt %s: %w", receipt.Digest, err)
	}
	if desc.Digest != receipt.Digest {
		return "", fmt.Errorf("%w: the store names receipt %s as %s", store.ErrCorrupt, receipt.Digest, desc.Digest)
	}
	if err := w.Sync(ctx); err != nil {
		return "", fmt.Errorf("replay: sync: %w", err)
	}
	ref := store.ReceiptRefName(receipt.Digest)
	if err := w.SetRef(ctx, ref, receipt.Digest); err != nil {
		return "", fmt.Errorf("replay: ref %s: %w", ref, err)
	}
	return ref, nil
}

// Predicate is the signable form of the result's receipt (see package attest): the bundle (a
// run manifest), the pinned profile tree it was evaluated against, the evaluator, and the
// digests of the verdict and of the receipt object.
func (r *Result) Predicate() attest.Predicate {
	pin := r.Bundle.Manifest().Profile
	return r.Receipt.Predicate(attest.Definition{Kind: string(store.KindProfileTree), ID: pin.ID, Version: pin.Version, Digest: r.Receipt.Profile})
}

// Expect is what a signed receipt must name to vouch for this result.
func (r *Result) Expect() attest.Expect { return r.Receipt.Expect() }

// Predicate is the signable form of a receipt of any kind of bundle, evaluated against def
// (for an OASIS run the profile tree; another kind names its own evaluation definition, whose
// digest is the receipt's Profile).
func (r Receipt) Predicate(def attest.Definition) attest.Predicate {
	return attest.Predicate{
		Bundle:     attest.Artifact{Kind: string(r.BundleManifestKind()), Digest: r.Bundle},
		Definition: def,
		Evaluator:  r.Evaluator,
		Verdict:    r.Verdict,
		Receipt:    r.Digest,
	}
}

// Expect is what a signed receipt must name to vouch for this receipt.
func (r Receipt) Expect() attest.Expect {
	return attest.Expect{Bundle: r.Bundle, Definition: r.Profile, Verdict: r.Verdict, Receipt: r.Digest}
}
