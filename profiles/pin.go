package profiles

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/oasis-replay/oasis-replay/store"
)

// ImportOptions are the options of Import.
type ImportOptions struct {
	// SourceCommit is the commit of the repository the directory was taken from (see
	// LoadOptions.SourceCommit).
	SourceCommit string
}

// Importer is what Import writes a profile through; store.Store satisfies it.
type Importer interface {
	store.ObjectPutter
	PutBlob(ctx context.Context, r io.Reader) (store.Digest, int64, error)
	Sync(ctx context.Context) error
	SetRef(ctx context.Context, name string, d store.Digest) error
}

// Import loads and validates the profile whose directory is the root of fsys, then stores it: every file as a blob, the
// profile tree object, and the ref store.RefProfilePrefix+<tree hex> that keeps the tree alive.
// Nothing is written when the profile is invalid. Writes follow the store's order (blobs, then
// the object, then Sync, then the ref), so a crash never leaves a ref to an incomplete tree.
// The returned profile carries the Pin a run manifest records.
func Import(ctx context.Context, s Importer, fsys fs.FS, opts ImportOptions) (*Profile, error) {
	p, files, err := load(fsys, LoadOptions(opts))
	if err != nil {
		return nil, err
	}
	for _, path := range files.paths {
		data := files.data[path]
		digest, size, err := s.PutBlob(ctx, bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("profiles: import %s: %s: %w", p.Metadata.ID, path, err)
		}
		if want := store.Sum(data); digest != want || size != int64(len(data)) {
			return nil, fmt.Errorf("%w: import %s: %s: the store reports %s (%d bytes), expected %s (%d bytes)",
				ErrTreeMismatch, p.Metadata.ID, path, digest, size, want, len(data))
		}
	}
	desc, err := store.Put(ctx, s, &p.Tree)
	if err != nil {
		return nil, fmt.Errorf("profiles: import %s: tree: %w", p.Metadata.ID, err)
	}
	if desc.Digest != p.Pin.Tree {
		return nil, fmt.Errorf("%w: import %s: the store names the tree %s, expected %s", ErrTreeMismatch, p.Metadata.ID, desc.Digest, p.Pin.Tree)
	}
	if err := s.Sync(ctx); err != nil {
		return nil, fmt.Errorf("profiles: import %s: sync: %w", p.Metadata.ID, err)
	}
	if err := s.SetRef(ctx, store.RefProfilePrefix+p.Pin.Tree.Hex(), p.Pin.Tree); err != nil {
		return nil, fmt.Errorf("profiles: import %s: ref: %w", p.Metadata.ID, err)
	}
	return p, nil
}

// TreeGetter is the part of store.Store LoadTree reads through.
type TreeGetter interface {
	BlobOpener
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
}

// LoadTree loads the exact profile a tree digest names, reading its files from the store: this
// is how a replay gets the profile a bundle was recorded against. The tree is rebuilt from the
// files read and must have the same digest, so a store that returns other bytes, or a tree that
// is not what this loader would make of its files, is an ErrTreeMismatch.
func LoadTree(ctx context.Context, s TreeGetter, tree store.Digest) (*Profile, error) {
	b, err := s.GetObject(ctx, tree)
	if err != nil {
		return nil, fmt.Errorf("profiles: tree %s: %w", tree, err)
	}
	t, err := store.DecodeProfileTree(b)
	if err != nil {
		return nil, fmt.Errorf("profiles: tree %s: %w", tree, err)
	}
	p, _, err := load(TreeFS(ctx, s, t), LoadOptions{SourceCommit: t.SourceCommit})
	if err != nil {
		return nil, fmt.Errorf("profiles: tree %s: %w", tree, err)
	}
	if p.Pin.Tree != tree {
		return nil, fmt.Errorf("%w: tree %s rebuilds as %s (profile %s %s)", ErrTreeMismatch, tree, p.Pin.Tree, p.Pin.ID, p.Pin.Version)
	}
	return p, nil
}
