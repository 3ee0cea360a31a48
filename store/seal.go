package store

import (
	"context"
	"errors"
	"fmt"
)

// Sealer is what Seal reads and writes through; Store satisfies it.
type Sealer interface {
	graphReader
	ObjectPutter
	Sync(ctx context.Context) error
	SetRef(ctx context.Context, name string, d Digest) error
}

// Seal makes m a sealed bundle and returns its digest, the bundle id.
//
// It checks that everything m reaches is in the store (the whole closure, with sizes and
// kinds), stores the manifest, syncs, and only then writes the "bundles/<hex>" ref, which
// SetRef makes durable, and finally the tags. Content is written blobs first, then objects,
// then the manifest, then the ref (DESIGN §5), so a crash at any point leaves either no sealed
// bundle or a complete one. Sealing a sealed bundle again only adds the tags.
//
// Tags are checked before anything is written. A tag that names another bundle is moved.
func Seal(ctx context.Context, s Sealer, m Manifest, tags ...string) (Digest, error) {
	if !IsManifestKind(m.ObjectKind()) {
		return Digest{}, fmt.Errorf("store: seal: %w: a %s is not a bundle manifest", ErrInvalidObject, m.ObjectKind())
	}
	tagRefs := make([]string, len(tags))
	for i, t := range tags {
		name, err := TagRefName(t)
		if err != nil {
			return Digest{}, err
		}
		tagRefs[i] = name
	}
	b, desc, err := Encode(m)
	if err != nil {
		return Digest{}, fmt.Errorf("store: seal: %w", err)
	}
	w := newGraphWalk(s, false)
	referrer := fmt.Sprintf("%s (%s being sealed)", desc.Digest, m.ObjectKind())
	for _, ref := range m.References() {
		if err := w.walk(ctx, edge{referrer: referrer, desc: ref}); err != nil {
			return Digest{}, fmt.Errorf("store: seal: %w", err)
		}
	}
	if _, err := s.PutObject(ctx, b); err != nil {
		return Digest{}, fmt.Errorf("store: seal: %w", err)
	}
	if err := s.Sync(ctx); err != nil {
		return Digest{}, fmt.Errorf("store: seal: %w", err)
	}
	if err := s.SetRef(ctx, BundleRefName(desc.Digest), desc.Digest); err != nil {
		return Digest{}, fmt.Errorf("store: seal: %w", err)
	}
	// The bundle is sealed: a listing that cannot be kept is read from the manifest instead.
	_ = cacheListing(ctx, s, desc.Digest, m)
	for _, name := range tagRefs {
		if err := s.SetRef(ctx, name, desc.Digest); err != nil {
			return desc.Digest, fmt.Errorf("store: seal %s: tag: %w", desc.Digest, err)
		}
	}
	return desc.Digest, nil
}

// SealedBundles lists the sealed bundles, in digest order.
func SealedBundles(ctx context.Context, s Store) ([]Digest, error) {
	refs, err := s.ListRefs(ctx, RefBundlePrefix)
	if err != nil {
		return nil, fmt.Errorf("store: list sealed bundles: %w", err)
	}
	out := make([]Digest, 0, len(refs))
	for _, r := range refs {
		d, ok := DigestOfRef(r.Name)
		if !ok || d != r.Digest {
			return nil, fmt.Errorf("%w: ref %q does not name the bundle %s it points at", ErrCorrupt, r.Name, r.Digest)
		}
		out = append(out, d)
	}
	return out, nil
}

// IsSealed reports whether d is a sealed bundle.
func IsSealed(ctx context.Context, s Store, d Digest) (bool, error) {
	got, err := s.GetRef(ctx, BundleRefName(d))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return got == d, nil
}
