package profiles

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/store"
)

// memStore is an in-memory store.Store for these tests: blobs and objects by digest, refs by
// name, and a log of the calls that write.
type memStore struct {
	mu      sync.Mutex
	content map[store.Digest][]byte
	objects map[store.Digest]bool
	refs    map[string]store.Digest
	writes  []string
}

var _ store.Store = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{content: map[store.Digest][]byte{}, objects: map[store.Digest]bool{}, refs: map[string]store.Digest{}}
}

func (m *memStore) PutBlob(_ context.Context, r io.Reader) (store.Digest, int64, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return store.Digest{}, 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := store.Sum(b)
	m.content[d] = b
	m.writes = append(m.writes, "blob")
	return d, int64(len(b)), nil
}

func (m *memStore) OpenBlob(_ context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.content[d]
	if !ok {
		return nil, 0, store.ErrNotFound
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

func (m *memStore) PutObject(_ context.Context, canonical []byte) (store.Descriptor, error) {
	h, err := store.PeekHeader(canonical)
	if err != nil {
		return store.Descriptor{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := store.Sum(canonical)
	m.content[d], m.objects[d] = canonical, true
	m.writes = append(m.writes, "object")
	return store.Descriptor{MediaType: store.MediaTypeOf(h.Kind), Digest: d, Size: int64(len(canonical))}, nil
}

func (m *memStore) GetObject(_ context.Context, d store.Digest) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.objects[d] {
		return nil, store.ErrNotFound
	}
	return m.content[d], nil
}

func (m *memStore) Stat(_ context.Context, d store.Digest) (store.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.content[d]
	if !ok {
		return store.Entry{}, store.ErrNotFound
	}
	return store.Entry{Digest: d, Size: int64(len(b)), StoredSize: int64(len(b))}, nil
}

func (m *memStore) Delete(_ context.Context, d store.Digest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.content, d)
	delete(m.objects, d)
	return nil
}

func (m *memStore) Walk(ctx context.Context, fn func(store.Entry) error) error {
	m.mu.Lock()
	var ds []store.Digest
	for d := range m.content {
		ds = append(ds, d)
	}
	m.mu.Unlock()
	slices.SortFunc(ds, func(a, b store.Digest) int { return bytes.Compare(a[:], b[:]) })
	for _, d := range ds {
		e, err := m.Stat(ctx, d)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Sync(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes = append(m.writes, "sync")
	return nil
}

func (m *memStore) SetRef(_ context.Context, name string, d store.Digest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs[name] = d
	m.writes = append(m.writes, "ref")
	return nil
}

func (m *memStore) GetRef(_ context.Context, name string) (store.Digest, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.refs[name]
	if !ok {
		return store.Digest{}, store.ErrNotFound
	}
	return d, nil
}

func (m *memStore) DeleteRef(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.refs, name)
	return nil
}

func (m *memStore) ListRefs(_ context.Context, prefix string) ([]store.Ref, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Ref
	for name, d := range m.refs {
		if strings.HasPrefix(name, prefix) {
			out = append(out, store.Ref{Name: name, Digest: d})
		}
	}
	slices.SortFunc(out, func(a, b store.Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (m *memStore) Close() error { return nil }

// assertSameProfile requires two profiles to be deeply equal, lookup index included.
// reflect.DeepEqual decides (it is strictly stronger than cmp.Equal without options, and takes
// milliseconds where cmp takes seconds on a 50-scenario profile); cmp.Diff explains a failure.
func assertSameProfile(t *testing.T, nameA, nameB string, a, b *Profile) {
	t.Helper()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("profile from %s differs from profile from %s (-%s +%s):\n%s", nameA, nameB, nameA, nameB,
			cmp.Diff(a, b, cmp.AllowUnexported(Profile{}, index{})))
	}
	if a.Pin != b.Pin {
		t.Errorf("pins differ: %+v vs %+v", a.Pin, b.Pin)
	}
}

const testCommit = "b02891f73c61f9d7429426b360b330e5d995605a"

// TestImportLoadTreeRoundTrip imports a profile and loads it back from its tree: the two must
// be deeply equal, with the same Pin.
func TestImportLoadTreeRoundTrip(t *testing.T) {
	dirs := map[string]func(testing.TB) string{
		"minimal": func(testing.TB) string { return minimalDir },
		"si":      func(t testing.TB) string { return sharedtest.SIProfile(t) },
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			s := newMemStore()
			imported, err := Import(ctx, s, os.DirFS(dir(t)), ImportOptions{SourceCommit: testCommit})
			if err != nil {
				t.Fatal(err)
			}
			if imported.Pin.SourceCommit != testCommit || imported.Tree.SourceCommit != testCommit {
				t.Errorf("pin %+v", imported.Pin)
			}
			// Write order: every blob, the tree object, sync, and the ref last.
			n := len(imported.Tree.Entries)
			want := append(slices.Repeat([]string{"blob"}, n), "object", "sync", "ref")
			if !slices.Equal(s.writes, want) {
				t.Errorf("writes %v, want %v", s.writes, want)
			}
			ref, err := s.GetRef(ctx, store.RefProfilePrefix+imported.Pin.Tree.Hex())
			if err != nil || ref != imported.Pin.Tree {
				t.Fatalf("ref = %v, %v", ref, err)
			}
			loaded, err := LoadTree(ctx, s, imported.Pin.Tree)
			if err != nil {
				t.Fatal(err)
			}
			assertSameProfile(t, "import", "tree", imported, loaded)
			fromDisk, err := loadDirWith(dir(t), LoadOptions{SourceCommit: testCommit})
			if err != nil {
				t.Fatal(err)
			}
			assertSameProfile(t, "disk", "tree", fromDisk, loaded)
		})
	}
}

func TestImportRefusesInvalidProfile(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, minimalDir, dir)
	if err := os.WriteFile(filepath.Join(dir, "scenarios/safety/broken.yaml"), []byte("id: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newMemStore()
	_, err := Import(t.Context(), s, os.DirFS(dir), ImportOptions{})
	if !errors.Is(err, ErrInvalidProfile) {
		t.Fatalf("err = %v, want ErrInvalidProfile", err)
	}
	if len(s.writes) != 0 {
		t.Errorf("an invalid profile wrote %v", s.writes)
	}
}

func TestImportRejectsShortCommit(t *testing.T) {
	_, err := Import(t.Context(), newMemStore(), os.DirFS(minimalDir), ImportOptions{SourceCommit: "b02891f"})
	if !errors.Is(err, ErrInvalidOption) {
		t.Errorf("err = %v, want ErrInvalidOption", err)
	}
}

// TestLoadTreeDetectsTampering changes a blob behind the tree's back.
func TestLoadTreeDetectsTampering(t *testing.T) {
	ctx := t.Context()
	s := newMemStore()
	p, err := Import(ctx, s, os.DirFS(minimalDir), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(data []byte) []byte
		want   error
	}{
		{"same size, other bytes", func(b []byte) []byte { return bytes.Replace(b, []byte("small"), []byte("SMALL"), 1) }, ErrTreeMismatch},
		{"other size", func(b []byte) []byte { return append(b, '\n') }, ErrTreeMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tampered := newMemStore()
			for d, b := range s.content {
				tampered.content[d], tampered.objects[d] = b, s.objects[d]
			}
			for _, e := range p.Tree.Entries {
				if e.Path == "profile.md" {
					tampered.content[e.Blob.Digest] = tc.mutate(slices.Clone(s.content[e.Blob.Digest]))
				}
			}
			_, err := LoadTree(ctx, tampered, p.Pin.Tree)
			if !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := LoadTree(ctx, s, store.Sum([]byte("no such tree"))); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing tree: err = %v, want store.ErrNotFound", err)
	}
}

func TestTreeFS(t *testing.T) {
	ctx := t.Context()
	s := newMemStore()
	p, err := Import(ctx, s, os.DirFS(minimalDir), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fsys := TreeFS(ctx, s, &p.Tree)
	var paths []string
	for _, e := range p.Tree.Entries {
		paths = append(paths, e.Path)
	}
	if err := fstest.TestFS(fsys, paths...); err != nil {
		t.Error(err)
	}
	if _, err := fsys.Open("../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("open outside the tree: %v", err)
	}
}

func TestLoadRejectsUnsupportedFiles(t *testing.T) {
	base := dirFS(t, minimalDir)
	tests := []struct {
		name string
		add  map[string]*fstest.MapFile
		want error
		text string
	}{
		{"symlink", map[string]*fstest.MapFile{"scenarios/link.yaml": {Data: []byte("profile.md"), Mode: fs.ModeSymlink}}, ErrUnsupportedFile, "scenarios/link.yaml (symlink)"},
		{"device", map[string]*fstest.MapFile{"dev": {Mode: fs.ModeDevice}}, ErrUnsupportedFile, "dev (not a regular file: D---------)"},
		{"backslash", map[string]*fstest.MapFile{`a\b.md`: {Data: []byte("x")}}, ErrUnsupportedFile, `a\b.md (name holds a backslash or NUL)`},
		{"too large", map[string]*fstest.MapFile{"big.bin": {Data: make([]byte, MaxFileSize+1)}}, ErrTooLarge, "big.bin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for k, v := range base {
				fsys[k] = v
			}
			for k, v := range tc.add {
				fsys[k] = v
			}
			_, err := Load(fsys, LoadOptions{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v, want %v naming %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestLoadDirRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, minimalDir, dir)
	if err := os.Symlink("profile.md", filepath.Join(dir, "extra.md")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	_, err := loadDir(dir)
	if !errors.Is(err, ErrUnsupportedFile) || !strings.Contains(err.Error(), "extra.md (symlink)") {
		t.Errorf("err = %v", err)
	}
}

// TestPinDependsOnEveryByte: changing any file, even a comment, changes the tree digest.
func TestPinDependsOnEveryByte(t *testing.T) {
	base := dirFS(t, minimalDir)
	p1, err := Load(base, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := fstest.MapFS{}
	for k, v := range base {
		changed[k] = v
	}
	changed["stimulus-library.md"] = &fstest.MapFile{Data: append(slices.Clone(base["stimulus-library.md"].Data), '\n')}
	p2, err := Load(changed, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p1.Pin.Tree == p2.Pin.Tree {
		t.Error("a changed file kept the same tree digest")
	}
	p3, err := Load(base, LoadOptions{SourceCommit: testCommit})
	if err != nil {
		t.Fatal(err)
	}
	if p3.Pin.Tree == p1.Pin.Tree || p3.Pin.SourceCommit != testCommit {
		t.Error("the source commit is not part of the pin")
	}
	if ref := p3.Pin.Ref(); ref.Tree != p3.Pin.Tree || ref.SourceCommit != testCommit || ref.ID != "oasis-profile-minimal" {
		t.Errorf("Ref() = %+v", ref)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	for name, f := range dirFS(t, from) {
		dst := filepath.Join(to, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
