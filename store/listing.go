package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
)

// Listing is what a listing of bundles shows of one bundle: its summary and, for an OASIS run,
// the profile it pins. It is derived from the bundle's manifest alone.
type Listing struct {
	BundleSummary
	Profile *ProfileRef `json:"profile,omitempty"`
}

// ListingOf derives the listing of a bundle from its manifest.
func ListingOf(m Manifest) Listing {
	l := Listing{BundleSummary: m.Summary()}
	if run, ok := m.(*RunManifest); ok {
		p := run.Profile
		l.Profile = &p
	}
	return l
}

// ListingCache is implemented by stores that keep each sealed bundle's Listing beside its ref,
// so that listing many bundles reads no manifest (1,000 manifests of an SI run are 13 MB of
// JSON to decode; their listings, 200 KB, encoded by encodeListing). It is a cache of what the manifests say: Seal fills
// it after the bundle ref, ListBundles uses it and reads the manifest of any bundle it lacks,
// GC drops the entries of bundles no longer sealed, and Check compares every entry of a sealed
// bundle with its manifest.
type ListingCache interface {
	// PutListing keeps the encoded listing of bundle d.
	PutListing(ctx context.Context, d Digest, listing []byte) error
	// Listings returns every kept listing, by bundle.
	Listings(ctx context.Context) (map[Digest][]byte, error)
	// DeleteListing drops the listing of bundle d; dropping a missing one is not an error.
	DeleteListing(ctx context.Context, d Digest) error
}

// listingFormat is the first byte of an encoded listing. The encoding is a row of strings,
// each a uvarint length and its bytes, and integers as uvarints, in a fixed order; decoding it
// costs a fraction of JSON's, which matters when a thousand bundles are listed.
const listingFormat = 1

// encodeListing encodes l for a ListingCache.
func encodeListing(l Listing) []byte {
	b := []byte{listingFormat}
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	for _, s := range []string{l.Evaluation, l.Subject, l.Agent.Name, l.Agent.Version, l.Agent.Description, l.UnitName, l.Source} {
		str(s)
	}
	b = binary.AppendUvarint(b, uint64(l.Units))
	if l.Profile == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	for _, s := range []string{l.Profile.ID, l.Profile.Version, l.Profile.SourceCommit} {
		str(s)
	}
	return append(b, l.Profile.Tree[:]...)
}

// decodeListing decodes what encodeListing wrote.
func decodeListing(b []byte) (Listing, error) {
	var l Listing
	bad := fmt.Errorf("%w: a listing that does not decode", ErrCorrupt)
	if len(b) == 0 || b[0] != listingFormat {
		return l, bad
	}
	b = b[1:]
	str := func() string {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			b = nil
			return ""
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s
	}
	l.Evaluation, l.Subject, l.Agent.Name, l.Agent.Version, l.Agent.Description, l.UnitName, l.Source =
		str(), str(), str(), str(), str(), str(), str()
	units, k := binary.Uvarint(b)
	if b == nil || k <= 0 || units > 1<<31 || len(b) == k {
		return l, bad
	}
	l.Units, b = int(units), b[k:]
	hasProfile := b[0]
	b = b[1:]
	if hasProfile == 0 && len(b) == 0 {
		return l, nil
	}
	p := &ProfileRef{ID: str(), Version: str(), SourceCommit: str()}
	if hasProfile != 1 || b == nil || len(b) != len(p.Tree) {
		return Listing{}, bad
	}
	copy(p.Tree[:], b)
	l.Profile = p
	return l, nil
}

// cacheListing keeps the listing of a sealed bundle if the store has a listing cache. Seal
// ignores a failure: the cache then lacks the bundle, which only costs ListBundles a manifest
// read.
func cacheListing(ctx context.Context, s any, d Digest, m Manifest) error {
	lc, ok := s.(ListingCache)
	if !ok {
		return nil
	}
	return lc.PutListing(ctx, d, encodeListing(ListingOf(m)))
}

// listingsOf returns the listing of every bundle in sealed: from the store's cache where it
// has one that decodes, else from the manifest.
func listingsOf(ctx context.Context, s Store, sealed []Digest) ([]Listing, error) {
	var cached map[Digest][]byte
	if lc, ok := s.(ListingCache); ok {
		var err error
		if cached, err = lc.Listings(ctx); err != nil {
			return nil, fmt.Errorf("store: bundle listings: %w", err)
		}
	}
	out := make([]Listing, len(sealed))
	for i, d := range sealed {
		if b, ok := cached[d]; ok {
			if l, err := decodeListing(b); err == nil {
				out[i] = l
				continue
			}
		}
		m, err := LoadBundleManifest(ctx, s, d)
		if err != nil {
			return nil, err
		}
		out[i] = ListingOf(m)
	}
	return out, nil
}

// checkListings reports the cached listings of sealed bundles that differ from what their
// manifest says.
func checkListings(ctx context.Context, s Store, sealed map[Digest]bool) ([]Problem, error) {
	lc, ok := s.(ListingCache)
	if !ok {
		return nil, nil
	}
	cached, err := lc.Listings(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: check: bundle listings: %w", err)
	}
	var problems []Problem
	for _, d := range sortedDigests(cached) {
		if !sealed[d] {
			continue // GC drops it
		}
		m, err := LoadBundleManifest(ctx, s, d)
		if err != nil {
			continue // the manifest's own problem is reported where it is read
		}
		if !bytes.Equal(encodeListing(ListingOf(m)), cached[d]) {
			problems = append(problems, Problem{Ref: BundleRefName(d), Kind: ProblemBadRef,
				Message: fmt.Sprintf("the listing kept for bundle %s is not what its manifest says", d)})
		}
	}
	return problems, nil
}

// dropStaleListings removes the cached listings of bundles that are not sealed.
func dropStaleListings(ctx context.Context, s Store, sealed map[Digest]bool) error {
	lc, ok := s.(ListingCache)
	if !ok {
		return nil
	}
	cached, err := lc.Listings(ctx)
	if err != nil {
		return err
	}
	for _, d := range sortedDigests(cached) {
		if !sealed[d] {
			if err := lc.DeleteListing(ctx, d); err != nil {
				return err
			}
		}
	}
	return nil
}

func sortedDigests[V any](m map[Digest]V) []Digest {
	out := make([]Digest, 0, len(m))
	for d := range m {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Digest) int { return bytes.Compare(a[:], b[:]) })
	return out
}
