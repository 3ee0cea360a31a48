package profiles

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// BlobOpener is the part of store.Store a tree file system reads through.
type BlobOpener interface {
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// TreeFS returns a read-only file system over a profile tree whose blobs are in a store: its
// files are the tree's entries, its directories are implied by their paths. Files are read
// from the store when opened, with ctx, and a size that differs from the tree entry is an
// ErrTreeMismatch. Load over a TreeFS rebuilds the tree and checks its digest, so content
// that does not match the tree never yields a profile.
func TreeFS(ctx context.Context, blobs BlobOpener, tree *store.ProfileTree) fs.FS {
	t := &treeFS{ctx: ctx, blobs: blobs, files: map[string]store.Descriptor{}, dirs: map[string][]fs.DirEntry{}}
	for _, e := range tree.Entries {
		t.files[e.Path] = e.Blob
		child := e.Path
		for dir := path.Dir(e.Path); ; dir = path.Dir(dir) {
			t.addDirEntry(dir, child)
			if dir == "." {
				break
			}
			child = dir
		}
	}
	for dir := range t.dirs {
		slices.SortFunc(t.dirs[dir], func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	return t
}

type treeFS struct {
	ctx   context.Context
	blobs BlobOpener
	files map[string]store.Descriptor
	// dirs maps a directory to its entries, sorted by name.
	dirs map[string][]fs.DirEntry
}

// addDirEntry records child (a file or directory path) under dir once.
func (t *treeFS) addDirEntry(dir, child string) {
	name := path.Base(child)
	if slices.ContainsFunc(t.dirs[dir], func(e fs.DirEntry) bool { return e.Name() == name }) {
		return
	}
	info := treeInfo{name: name, dir: true}
	if desc, ok := t.files[child]; ok {
		info = treeInfo{name: name, size: desc.Size}
	}
	t.dirs[dir] = append(t.dirs[dir], fs.FileInfoToDirEntry(info))
}

// Open implements fs.FS.
func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if entries, ok := t.dirs[name]; ok {
		return &treeDir{info: treeInfo{name: path.Base(name), dir: true}, entries: entries}, nil
	}
	desc, ok := t.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	rc, size, err := t.blobs.OpenBlob(t.ctx, desc.Digest)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if size != desc.Size {
		rc.Close()
		return nil, &fs.PathError{Op: "open", Path: name,
			Err: fmt.Errorf("%w: blob %s has %d bytes, the tree says %d", ErrTreeMismatch, desc.Digest, size, desc.Size)}
	}
	return &treeFile{info: treeInfo{name: path.Base(name), size: size}, rc: rc, want: desc.Digest, sum: store.NewDigester()}, nil
}

// treeInfo is the fs.FileInfo of a tree file or directory. Trees carry no modes or times: files
// read as 0444 and directories as 0555, with the zero time, so listings are deterministic.
type treeInfo struct {
	name string
	size int64
	dir  bool
}

func (i treeInfo) Name() string { return i.name }
func (i treeInfo) Size() int64  { return i.size }
func (i treeInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i treeInfo) ModTime() time.Time { return time.Time{} }
func (i treeInfo) IsDir() bool        { return i.dir }
func (i treeInfo) Sys() any           { return nil }

// treeFile hashes what it reads and, at the end, fails unless the bytes have the digest the
// tree names: a store is trusted to verify content, but a profile never rests on that alone.
type treeFile struct {
	info treeInfo
	rc   io.ReadCloser
	want store.Digest
	sum  *store.Digester
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }

func (f *treeFile) Read(p []byte) (int, error) {
	n, err := f.rc.Read(p)
	f.sum.Write(p[:n])
	if err == io.EOF {
		if got := f.sum.Digest(); got != f.want {
			return n, &fs.PathError{Op: "read", Path: f.info.name,
				Err: fmt.Errorf("%w: content hashes to %s, the tree says %s", ErrTreeMismatch, got, f.want)}
		}
	}
	return n, err
}

func (f *treeFile) Close() error { return f.rc.Close() }

type treeDir struct {
	info    treeInfo
	entries []fs.DirEntry
	offset  int
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *treeDir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.offset:]
	if n <= 0 {
		d.offset = len(d.entries)
		return slices.Clone(rest), nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.offset += n
	return slices.Clone(rest[:n]), nil
}
