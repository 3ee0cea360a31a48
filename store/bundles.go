package store

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
)

// BundleInfo summarises one sealed bundle for listings.
type BundleInfo struct {
	Digest Digest
	Tags   []string // sorted
	Listing
}

// ListBundles returns every sealed bundle, in digest order, with its tags and listing (from
// the store's ListingCache where it has one, else from the manifest).
func ListBundles(ctx context.Context, s Store) ([]BundleInfo, error) {
	sealed, err := SealedBundles(ctx, s)
	if err != nil {
		return nil, err
	}
	tags, err := tagsByDigest(ctx, s)
	if err != nil {
		return nil, err
	}
	listings, err := listingsOf(ctx, s, sealed)
	if err != nil {
		return nil, err
	}
	infos := make([]BundleInfo, 0, len(sealed))
	for i, d := range sealed {
		infos = append(infos, BundleInfo{Digest: d, Tags: tags[d], Listing: listings[i]})
	}
	return infos, nil
}

// BundleTags returns the tags that name bundle d, sorted.
func BundleTags(ctx context.Context, s Store, d Digest) ([]string, error) {
	tags, err := tagsByDigest(ctx, s)
	if err != nil {
		return nil, err
	}
	return tags[d], nil
}

// LoadManifest reads and decodes the manifest of bundle d, an OASIS run. A bundle of another
// kind of evaluation is ErrWrongEvaluation naming its kind.
func LoadManifest(ctx context.Context, s ObjectGetter, d Digest) (*RunManifest, error) {
	m, err := LoadBundleManifest(ctx, s, d)
	if err != nil {
		return nil, err
	}
	run, ok := m.(*RunManifest)
	if !ok {
		return nil, fmt.Errorf("%w: bundle %s is a %s bundle, not an OASIS run", ErrWrongEvaluation, d, m.Summary().Evaluation)
	}
	return run, nil
}

func tagsByDigest(ctx context.Context, s Store) (map[Digest][]string, error) {
	refs, err := s.ListRefs(ctx, RefTagPrefix)
	if err != nil {
		return nil, err
	}
	tags := make(map[Digest][]string)
	for _, r := range refs { // ListRefs is sorted by name, so each list is sorted too
		tags[r.Digest] = append(tags[r.Digest], strings.TrimPrefix(r.Name, RefTagPrefix))
	}
	return tags, nil
}

// VerifyReport is what VerifyBundle read back.
type VerifyReport struct {
	Entries int   // blobs and objects reached from the bundle
	Bytes   int64 // uncompressed bytes re-hashed
}

// VerifyBundle reads back every blob and object a bundle reaches — its manifest, evidence,
// observation payloads, profile tree and profile files — and re-hashes each against its
// digest. The first mismatch or missing reference is returned as an error wrapping
// ErrCorrupt or ErrMissingReference that names the digest.
func VerifyBundle(ctx context.Context, s Store, bundle Digest) (*VerifyReport, error) {
	entries, err := Reachable(ctx, s, bundle)
	if err != nil {
		return nil, err
	}
	// Verify in digest order so two runs report the same first problem.
	slices.SortFunc(entries, func(a, b Entry) int { return slices.Compare(a.Digest[:], b.Digest[:]) })
	report := &VerifyReport{}
	for _, e := range entries {
		n, err := readBack(ctx, s, e.Digest)
		if err != nil {
			return report, err
		}
		report.Entries++
		report.Bytes += n
	}
	return report, nil
}

func readBack(ctx context.Context, s Store, d Digest) (int64, error) {
	rc, size, err := s.OpenBlob(ctx, d)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.Copy(io.Discard, rc)
	if err != nil {
		return n, err
	}
	if n != size {
		return n, fmt.Errorf("%w: %s: read %d bytes, stored size %d", ErrCorrupt, d, n, size)
	}
	return n, nil
}
