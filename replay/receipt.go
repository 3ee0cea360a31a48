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
	desc, err := w.PutObject(ctx, r.Canonical)
	if err != nil {
		return "", fmt.Errorf("replay: store verdict %s: %w", r.Receipt.Verdict, err)
	}
	if desc.Digest != r.Receipt.Verdict {
		return "", fmt.Errorf("%w: the store names verdict %s as %s", store.ErrCorrupt, r.Receipt.Verdict, desc.Digest)
	}
	desc, err = w.PutObject(ctx, r.Receipt.Canonical)
	if err != nil {
		return "", fmt.Errorf("replay: store receipt %s: %w", r.Receipt.Digest, err)
	}
	if desc.Digest != r.Receipt.Digest {
		return "", fmt.Errorf("%w: the store names receipt %s as %s", store.ErrCorrupt, r.Receipt.Digest, desc.Digest)
	}
	if err := w.Sync(ctx); err != nil {
		return "", fmt.Errorf("replay: sync: %w", err)
	}
	ref := store.ReceiptRefName(r.Receipt.Digest)
	if err := w.SetRef(ctx, ref, r.Receipt.Digest); err != nil {
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
