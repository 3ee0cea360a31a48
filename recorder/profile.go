package recorder

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
	"github.com/oasis-replay/oasis-replay/store"
)

// Profile is the profile a recording pins: loaded and validated before anything is written,
// and written (if it came from a directory or a file system) only when the recording itself is.
type Profile struct {
	*profiles.Profile
	dir    string              // the directory to import it from
	fsys   fs.FS               // or the file system to import it from; neither when it is already in the store
	blobs  profiles.BlobOpener // the store it was loaded from, to read its files for a journal
	commit string
}

// ProfileFromDir loads the profile in dir; commit is the source repository commit it was
// taken from ("" when unknown), recorded in the pin. The profile is imported into the store
// only when a recording made with it is written.
func ProfileFromDir(dir, commit string) (*Profile, error) {
	p, err := profiledir.Load(dir, profiles.LoadOptions{SourceCommit: commit})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrProfile, dir, err)
	}
	return &Profile{Profile: p, dir: dir, commit: commit}, nil
}

// ProfileFromFS loads the profile whose directory is the root of fsys (an embedded profile);
// commit is as for ProfileFromDir. The profile is imported into the store only when a
// recording made with it is written.
func ProfileFromFS(fsys fs.FS, commit string) (*Profile, error) {
	p, err := profiles.Load(fsys, profiles.LoadOptions{SourceCommit: commit})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	return &Profile{Profile: p, fsys: fsys, commit: commit}, nil
}

// ProfileFromStore loads the profile tree tree, which must already be in the store.
func ProfileFromStore(ctx context.Context, s profiles.TreeGetter, tree store.Digest) (*Profile, error) {
	p, err := profiles.LoadTree(ctx, s, tree)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	return &Profile{Profile: p, blobs: s}, nil
}

// write stores the profile if it came from a directory or a file system. It is read again:
// if it changed since it was loaded, its tree differs and the recording fails rather than
// pinning a profile that was not the one validated.
func (p *Profile) write(ctx context.Context, s profiles.Importer) error {
	opts := profiles.ImportOptions{SourceCommit: p.commit}
	var got *profiles.Profile
	var err error
	name := p.dir
	switch {
	case p.dir != "":
		got, err = profiledir.Import(ctx, s, p.dir, opts)
	case p.fsys != nil:
		name = "profile " + p.Pin.ID + " " + p.Pin.Version
		got, err = profiles.Import(ctx, s, p.fsys, opts)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: import %s: %w", ErrProfile, name, err)
	}
	if got.Pin.Tree != p.Pin.Tree {
		return fmt.Errorf("%w: %s: profile tree %s became %s", ErrChanged, name, p.Pin.Tree, got.Pin.Tree)
	}
	return nil
}

// ProfileInfo describes one imported profile tree.
type ProfileInfo struct {
	Tree         store.Digest
	ID           string
	Version      string
	SourceCommit string
}

// ProfileLister is the part of store.Store ListProfiles reads.
type ProfileLister interface {
	ListRefs(ctx context.Context, prefix string) ([]store.Ref, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
}

// ListProfiles lists the imported profile trees (refs under store.RefProfilePrefix), sorted by
// id, version, source commit and digest.
func ListProfiles(ctx context.Context, s ProfileLister) ([]ProfileInfo, error) {
	refs, err := s.ListRefs(ctx, store.RefProfilePrefix)
	if err != nil {
		return nil, fmt.Errorf("%w: list profiles: %w", ErrProfile, err)
	}
	out := make([]ProfileInfo, 0, len(refs))
	for _, r := range refs {
		b, err := s.GetObject(ctx, r.Digest)
		if err != nil {
			return nil, fmt.Errorf("%w: ref %s: %w", ErrProfile, r.Name, err)
		}
		t, err := store.DecodeProfileTree(b)
		if err != nil {
			return nil, fmt.Errorf("%w: ref %s: %w", ErrProfile, r.Name, err)
		}
		out = append(out, ProfileInfo{Tree: r.Digest, ID: t.ProfileID, Version: t.Version, SourceCommit: t.SourceCommit})
	}
	slices.SortFunc(out, func(a, b ProfileInfo) int {
		return cmpFirst(strings.Compare(a.ID, b.ID), strings.Compare(a.Version, b.Version),
			strings.Compare(a.SourceCommit, b.SourceCommit), bytes.Compare(a.Tree[:], b.Tree[:]))
	})
	return out, nil
}

// ResolveProfile finds an imported profile tree by its digest ("sha256:<64 hex>"), a unique
// digest prefix of at least store.MinPrefixLength hex characters (with or without "sha256:"),
// or "id@version". Several matches are an error listing every candidate.
func ResolveProfile(ctx context.Context, s ProfileLister, arg string) (store.Digest, error) {
	list, err := ListProfiles(ctx, s)
	if err != nil {
		return store.Digest{}, err
	}
	var found []ProfileInfo
	full, fullErr := store.ParseDigest(arg)
	id, version, isIDVersion := strings.Cut(arg, "@")
	hexPart := strings.TrimPrefix(arg, store.DigestPrefix)
	for _, p := range list {
		switch {
		case fullErr == nil:
			if p.Tree == full {
				found = append(found, p)
			}
		case isIDVersion:
			if p.ID == id && p.Version == version {
				found = append(found, p)
			}
		case store.IsHexPrefix(arg) && len(hexPart) >= store.MinPrefixLength:
			if strings.HasPrefix(p.Tree.Hex(), hexPart) {
				found = append(found, p)
			}
		}
	}
	switch {
	case len(found) == 1:
		return found[0].Tree, nil
	case len(found) > 1:
		names := make([]string, len(found))
		for i, p := range found {
			names[i] = fmt.Sprintf("%s (%s %s)", p.Tree, p.ID, p.Version)
		}
		return store.Digest{}, fmt.Errorf("%w: %w: %q matches %d profiles: %s", ErrProfile, store.ErrAmbiguous, arg, len(found), strings.Join(names, ", "))
	case fullErr != nil && !isIDVersion && !(store.IsHexPrefix(arg) && len(hexPart) >= store.MinPrefixLength):
		return store.Digest{}, fmt.Errorf("%w: %q is neither a digest, a digest prefix of at least %d hex characters, nor id@version", ErrProfile, arg, store.MinPrefixLength)
	}
	return store.Digest{}, fmt.Errorf("%w: %w: no imported profile matches %q (profile import DIR adds one)", ErrProfile, store.ErrNotFound, arg)
}

// cmpFirst returns the first non-zero comparison.
func cmpFirst(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}
