package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MinPrefixLength is the shortest digest prefix Resolve accepts, in hex characters.
const MinPrefixLength = 4

// Resolve turns a BUNDLE argument of the CLI (DESIGN §6) into the digest of a sealed bundle.
// The argument is a full digest ("sha256:<64 hex>"), a tag, or a prefix of at least
// MinPrefixLength lowercase hex characters, with or without "sha256:", of exactly one sealed
// bundle's digest.
//
// A full digest must be a sealed bundle. Otherwise the argument is looked up both as a tag and
// as a prefix: if the matches name more than one bundle the result is ErrAmbiguous listing
// every candidate; if none, ErrNotFound.
func Resolve(ctx context.Context, s Store, arg string) (Digest, error) {
	if d, err := ParseDigest(arg); err == nil {
		sealed, err := IsSealed(ctx, s, d)
		if err != nil {
			return Digest{}, err
		}
		if !sealed {
			return Digest{}, fmt.Errorf("%w: %s is not a sealed bundle", ErrNotFound, d)
		}
		return d, nil
	}
	var found []candidate
	tagged, err := resolveTag(ctx, s, arg)
	if err != nil {
		return Digest{}, err
	}
	found = append(found, tagged...)
	prefixed, err := resolvePrefix(ctx, s, arg, len(found) > 0)
	if err != nil {
		return Digest{}, err
	}
	found = append(found, prefixed...)
	return pickCandidate(arg, found)
}

// candidate is a bundle an argument may mean, and why.
type candidate struct {
	digest Digest
	how    string
}

// resolveTag returns the bundle tag arg names, if arg is a tag that exists.
func resolveTag(ctx context.Context, s Store, arg string) ([]candidate, error) {
	name, err := TagRefName(arg)
	if err != nil {
		return nil, nil // not a valid tag, so not a tag
	}
	d, err := s.GetRef(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sealed, err := IsSealed(ctx, s, d)
	if err != nil {
		return nil, err
	}
	if !sealed {
		return nil, fmt.Errorf("%w: tag %q points at %s, which is not a sealed bundle", ErrNotFound, arg, d)
	}
	return []candidate{{digest: d, how: "tag " + arg}}, nil
}

// resolvePrefix returns the sealed bundles whose digest starts with arg, if arg is a hex
// prefix. A hex argument shorter than MinPrefixLength is an error unless it matched as a tag.
func resolvePrefix(ctx context.Context, s Store, arg string, matchedTag bool) ([]candidate, error) {
	if !IsHexPrefix(arg) {
		return nil, nil
	}
	hexPart := strings.TrimPrefix(arg, DigestPrefix)
	if len(hexPart) < MinPrefixLength {
		if matchedTag {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: no tag %q, and %q is too short for a digest prefix (at least %d hex characters)",
			ErrNotFound, arg, hexPart, MinPrefixLength)
	}
	refs, err := s.ListRefs(ctx, RefBundlePrefix+hexPart)
	if err != nil {
		return nil, err
	}
	out := make([]candidate, 0, len(refs))
	for _, r := range refs {
		out = append(out, candidate{digest: r.Digest, how: "digest prefix " + hexPart})
	}
	return out, nil
}

func pickCandidate(arg string, found []candidate) (Digest, error) {
	slices.SortStableFunc(found, func(a, b candidate) int { return bytes.Compare(a.digest[:], b.digest[:]) })
	found = slices.CompactFunc(found, func(a, b candidate) bool { return a.digest == b.digest })
	switch len(found) {
	case 0:
		return Digest{}, fmt.Errorf("%w: no sealed bundle matches %q (not a tag, a digest or a digest prefix of one)", ErrNotFound, arg)
	case 1:
		return found[0].digest, nil
	}
	lines := make([]string, len(found))
	for i, c := range found {
		lines[i] = fmt.Sprintf("%s (%s)", c.digest, c.how)
	}
	return Digest{}, fmt.Errorf("%w: %q matches %d bundles: %s", ErrAmbiguous, arg, len(found), strings.Join(lines, ", "))
}
