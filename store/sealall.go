package store

import (
	"context"
	"fmt"
)

// RefBatchSetter is implemented by stores that can point several refs in one durable write
// (one sync for the lot instead of one per ref).
type RefBatchSetter interface {
	SetRefs(ctx context.Context, refs []Ref) error
}

// SetRefs points every ref of refs, durably: in one write when s is a RefBatchSetter, else one
// SetRef at a time. Names are checked before anything is written.
func SetRefs(ctx context.Context, s Store, refs []Ref) error {
	for _, r := range refs {
		if err := ValidateRefName(r.Name); err != nil {
			return err
		}
	}
	if b, ok := s.(RefBatchSetter); ok {
		return b.SetRefs(ctx, refs)
	}
	for _, r := range refs {
		if err := s.SetRef(ctx, r.Name, r.Digest); err != nil {
			return err
		}
	}
	return nil
}

// SealAll seals several manifests as Seal seals one, with one sync for all of them: each
// manifest's closure is checked and the manifest stored, then the store is synced, then every
// bundle ref and every ref of extra is set, in one write when the store allows it. So a crash
// leaves each bundle sealed and complete, or not sealed; extra refs (an index naming the new
// bundles) are set with the bundle refs, never before. It returns the bundles' digests, in the
// order of ms.
func SealAll(ctx context.Context, s Store, ms []Manifest, extra []Ref) ([]Digest, error) {
	digests := make([]Digest, len(ms))
	refs := make([]Ref, 0, len(ms)+len(extra))
	w := newGraphWalk(s, false)
	for i, m := range ms {
		if !IsManifestKind(m.ObjectKind()) {
			return nil, fmt.Errorf("store: seal: %w: a %s is not a bundle manifest", ErrInvalidObject, m.ObjectKind())
		}
		b, desc, err := Encode(m)
		if err != nil {
			return nil, fmt.Errorf("store: seal: %w", err)
		}
		referrer := fmt.Sprintf("%s (%s being sealed)", desc.Digest, m.ObjectKind())
		for _, ref := range m.References() {
			if err := w.walk(ctx, edge{referrer: referrer, desc: ref}); err != nil {
				return nil, fmt.Errorf("store: seal: %w", err)
			}
		}
		if _, err := s.PutObject(ctx, b); err != nil {
			return nil, fmt.Errorf("store: seal: %w", err)
		}
		digests[i] = desc.Digest
		refs = append(refs, Ref{Name: BundleRefName(desc.Digest), Digest: desc.Digest})
	}
	if err := s.Sync(ctx); err != nil {
		return nil, fmt.Errorf("store: seal: %w", err)
	}
	if err := SetRefs(ctx, s, append(refs, extra...)); err != nil {
		return nil, fmt.Errorf("store: seal: %w", err)
	}
	for i, m := range ms {
		_ = cacheListing(ctx, s, digests[i], m) // as Seal does
	}
	return digests, nil
}
