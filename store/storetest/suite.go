package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/oasis-replay/oasis-replay/store"
)

// Corrupter damages the stored bytes of entry e of s (a blob, an object or a chunk) in place,
// so that the suite can check that reads detect it.
type Corrupter func(t *testing.T, s store.Store, e store.Entry)

// Option configures Run.
type Option func(*config)

type config struct {
	corrupt   Corrupter
	largeSize int
}

// WithCorrupter enables the corruption tests.
func WithCorrupter(c Corrupter) Option { return func(cfg *config) { cfg.corrupt = c } }

// WithLargeSize sets the size of the blobs used to exercise chunking (default 1 MiB); it should
// be many times the store's chunk size.
func WithLargeSize(n int) Option { return func(cfg *config) { cfg.largeSize = n } }

// Run runs the conformance suite. open must return a new, empty store for each subtest; the
// suite closes it.
func Run(t *testing.T, open func(t *testing.T) store.Store, opts ...Option) {
	cfg := config{largeSize: 1 << 20}
	for _, o := range opts {
		o(&cfg)
	}
	s := &suite{open: open, cfg: cfg}
	tests := []struct {
		name string
		run  func(*testing.T)
	}{
		{"PutAndReadBlobs", s.putAndReadBlobs},
		{"Dedup", s.dedup},
		{"ChunksFollowPrefixes", s.chunksFollowPrefixes},
		{"Stat", s.stat},
		{"Objects", s.objects},
		{"RejectedObjects", s.rejectedObjects},
		{"ObjectOverBlob", s.objectOverBlob},
		{"LargeObject", s.largeObject},
		{"GetObjects", s.getObjects},
		{"WalkOrder", s.walkOrder},
		{"WalkStops", s.walkStops},
		{"Refs", s.refs},
		{"RefNames", s.refNames},
		{"Delete", s.delete},
		{"ConcurrentPuts", s.concurrentPuts},
		{"Cancellation", s.cancellation},
		{"FailingReader", s.failingReader},
		{"CheckClean", s.checkClean},
		{"Corruption", s.corruption},
		{"Closed", s.closed},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

type suite struct {
	open func(t *testing.T) store.Store
	cfg  config
}

// newStore opens a store that is closed when the test ends.
func (s *suite) newStore(t *testing.T) store.Store {
	t.Helper()
	st := s.open(t)
	t.Cleanup(func() { st.Close() })
	return st
}

func put(t *testing.T, st store.Store, content []byte) store.Digest {
	t.Helper()
	return Put(t, st, content)
}

func readBlob(t *testing.T, st store.Store, d store.Digest) []byte {
	t.Helper()
	r, size, err := st.OpenBlob(t.Context(), d)
	if err != nil {
		t.Fatalf("OpenBlob(%s): %v", d, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read %s: %v", d, err)
	}
	if int64(len(b)) != size {
		t.Fatalf("OpenBlob(%s) announced %d bytes, read %d", d, size, len(b))
	}
	return b
}

func walk(t *testing.T, st store.Store) []store.Entry {
	t.Helper()
	var out []store.Entry
	if err := st.Walk(t.Context(), func(e store.Entry) error {
		out = append(out, e)
		return nil
	}); err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return out
}

func (s *suite) putAndReadBlobs(t *testing.T) {
	large := s.cfg.largeSize
	tests := []struct {
		name    string
		content []byte
	}{
		{"empty", []byte{}},
		{"one byte", []byte{'x'}},
		{"text", []byte("kubectl get pods -n payments\n")},
		{"4KiB random", RandomBytes(1, 4<<10)},
		{"4KiB+1 random", RandomBytes(2, 4<<10+1)},
		{"large random", RandomBytes(3, large+13)},
		{"large log", LogBytes(4, 3*large+7)},
		{"large zeros", make([]byte, 2*large)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := s.newStore(t)
			d := put(t, st, tc.content)
			if got := readBlob(t, st, d); !bytes.Equal(got, tc.content) {
				t.Fatalf("read back %d bytes, differing from the %d put", len(got), len(tc.content))
			}
			// Small reads go through the same verification.
			r, _, err := st.OpenBlob(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			got, err := io.ReadAll(iotest.OneByteReader(io.LimitReader(r, 3000)))
			if err != nil || !bytes.Equal(got, tc.content[:min(3000, len(tc.content))]) {
				t.Fatalf("byte-by-byte read: %v", err)
			}
		})
	}
}

func (s *suite) dedup(t *testing.T) {
	st := s.newStore(t)
	small, large := []byte("same evidence"), LogBytes(5, 2*s.cfg.largeSize)
	put(t, st, small)
	put(t, st, large)
	before := walk(t, st)
	put(t, st, small)
	put(t, st, large)
	after := walk(t, st)
	if !slices.EqualFunc(before, after, sameEntry) {
		t.Fatalf("storing the same content again changed the store: %d entries before, %d after", len(before), len(after))
	}
}

func sameEntry(a, b store.Entry) bool {
	return a.Digest == b.Digest && a.Size == b.Size && a.Kind == b.Kind && a.Chunk == b.Chunk &&
		a.StoredSize == b.StoredSize && slices.Equal(a.Chunks, b.Chunks)
}

// chunksFollowPrefixes checks how large blobs share chunks (identical content is Dedup's case).
// A chunk stands for its bytes together with everything before them in its blob, so content
// that extends stored content, like an audit log recorded again after it grew, shares the
// chunks of the common prefix, while two blobs that start differently share none, even where
// they hold the same bytes later on. Shared chunks must survive the collection of either blob.
func (s *suite) chunksFollowPrefixes(t *testing.T) {
	st := s.newStore(t)
	base := RandomBytes(6, 2*s.cfg.largeSize)
	ea := statOf(t, st, put(t, st, base))
	if len(ea.Chunks) == 0 {
		t.Skip("this store keeps large blobs in one piece")
	}
	grown := append(slices.Clone(base), RandomBytes(7, s.cfg.largeSize/2)...)
	eg := statOf(t, st, put(t, st, grown))
	// Every chunk of base but its last, which may end short of a boundary, is a chunk of the
	// grown log at the same place.
	if prefix := len(ea.Chunks) - 1; !slices.Equal(ea.Chunks[:prefix], eg.Chunks[:min(prefix, len(eg.Chunks))]) {
		t.Fatalf("a blob that extends another (%d chunks) does not share the %d chunks of their common prefix", len(eg.Chunks), prefix)
	}

	middle := RandomBytes(8, 2*s.cfg.largeSize)
	x := slices.Concat(RandomBytes(9, 1000), middle, RandomBytes(10, 1000))
	y := slices.Concat(RandomBytes(11, 1000), middle, RandomBytes(12, 1000))
	ex, ey := statOf(t, st, put(t, st, x)), statOf(t, st, put(t, st, y))
	for _, c := range ex.Chunks {
		if slices.Contains(ey.Chunks, c) {
			t.Fatalf("blobs that start differently share chunk %s", c)
		}
	}

	named := map[store.Digest]bool{}
	for _, c := range slices.Concat(ea.Chunks, eg.Chunks, ex.Chunks, ey.Chunks) {
		named[c] = true
	}
	stored := 0
	for _, e := range walk(t, st) {
		if e.Chunk {
			stored++
		}
	}
	if stored != len(named) {
		t.Fatalf("%d chunks stored for %d distinct chunks named by the chunk lists", stored, len(named))
	}

	// Collecting either log keeps the chunks the other shares with it.
	s.keepOnly(t, st, eg.Digest, ea.Digest)
	if got := readBlob(t, st, eg.Digest); !bytes.Equal(got, grown) {
		t.Fatal("the grown log reads back wrong after the shorter one was collected")
	}
	put(t, st, base)
	s.keepOnly(t, st, ea.Digest, eg.Digest)
	if got := readBlob(t, st, ea.Digest); !bytes.Equal(got, base) {
		t.Fatal("the shorter log reads back wrong after the grown one was collected")
	}
}

// keepOnly points the one ref of the store at keep, collects garbage, and checks that gone was
// collected and that the store is consistent.
func (s *suite) keepOnly(t *testing.T, st store.Store, keep, gone store.Digest) {
	t.Helper()
	ctx := t.Context()
	if err := st.SetRef(ctx, "test/kept", keep); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GC(ctx, st, store.GCOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Stat(ctx, gone); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GC kept the unreferenced blob %s: %v", gone, err)
	}
	report, err := store.Check(ctx, st, store.CheckOptions{})
	if err != nil || !report.OK() || report.OrphanChunks != 0 {
		t.Fatalf("Check after GC: %v, problems %v, %d orphan chunks", err, report.Problems, report.OrphanChunks)
	}
}

func statOf(t *testing.T, st store.Store, d store.Digest) store.Entry {
	t.Helper()
	e, err := st.Stat(t.Context(), d)
	if err != nil {
		t.Fatalf("Stat(%s): %v", d, err)
	}
	return e
}

func (s *suite) stat(t *testing.T) {
	st := s.newStore(t)
	content := LogBytes(8, 2*s.cfg.largeSize+1)
	d := put(t, st, content)
	e, err := st.Stat(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if e.Digest != d || e.Size != int64(len(content)) || e.Kind != "" || e.Chunk || e.StoredSize <= 0 {
		t.Fatalf("Stat = %+v", e)
	}
	if _, err := st.Stat(t.Context(), store.Sum([]byte("absent"))); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Stat of an absent digest: %v, want ErrNotFound", err)
	}
	if _, _, err := st.OpenBlob(t.Context(), store.Sum([]byte("absent"))); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("OpenBlob of an absent digest: %v, want ErrNotFound", err)
	}
	if _, err := st.GetObject(t.Context(), store.Sum([]byte("absent"))); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetObject of an absent digest: %v, want ErrNotFound", err)
	}
}

func (s *suite) objects(t *testing.T) {
	st := s.newStore(t)
	b := NewBundle(t, 9, 1000)
	b.Store(t, st)
	manifestBytes, want := Encode(t, b.Manifest)
	got, err := st.PutObject(t.Context(), manifestBytes)
	if err != nil || got != want {
		t.Fatalf("PutObject(manifest) = %+v, %v; want %+v", got, err, want)
	}
	back, err := st.GetObject(t.Context(), want.Digest)
	if err != nil || !bytes.Equal(back, manifestBytes) {
		t.Fatalf("GetObject: %v (equal bytes: %v)", err, bytes.Equal(back, manifestBytes))
	}
	if raw := readBlob(t, st, want.Digest); !bytes.Equal(raw, manifestBytes) {
		t.Fatal("OpenBlob of an object does not give its canonical bytes")
	}
	e, err := st.Stat(t.Context(), want.Digest)
	if err != nil || e.Kind != store.KindRunManifest || e.Size != want.Size {
		t.Fatalf("Stat(manifest) = %+v, %v", e, err)
	}
	if _, err := st.GetObject(t.Context(), store.Sum(b.Blobs[1])); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetObject of a raw blob: %v, want ErrNotFound", err)
	}
}

func (s *suite) rejectedObjects(t *testing.T) {
	st := s.newStore(t)
	valid, _ := Encode(t, &store.Receipt{Bundle: store.Sum([]byte("b")), Profile: store.Sum([]byte("p")), Verdict: store.Sum([]byte("v"))})
	tests := []struct {
		name string
		doc  string
		want error
	}{
		{"not JSON", "not json", store.ErrCorrupt},
		{"unknown kind", `{"kind":"photo","schema_version":1}`, store.ErrUnknownKind},
		{"future schema", `{"kind":"receipt","schema_version":99}`, store.ErrUnsupportedVersion},
		{"schema rule broken", `{"kind":"scenario-evidence","observations":[],"scenario_id":"","schema_version":1,"transcript":{"actions":[],"final_answer":"","reasoning":""}}`, store.ErrInvalidObject},
		{"unknown field", strings.Replace(string(valid), `{`, `{"extra":1,`, 1), store.ErrInvalidObject},
		{"not canonical", strings.Replace(string(valid), `,`, `, `, 1), store.ErrNotCanonical},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.PutObject(t.Context(), []byte(tc.doc))
			if !errors.Is(err, tc.want) {
				t.Fatalf("PutObject(%s) = %v, want %v", tc.doc, err, tc.want)
			}
		})
	}
	if n := len(walk(t, st)); n != 0 {
		t.Fatalf("rejected objects left %d entries", n)
	}
}

func (s *suite) objectOverBlob(t *testing.T) {
	st := s.newStore(t)
	doc, desc := Encode(t, &store.Receipt{Bundle: store.Sum([]byte("b")), Profile: store.Sum([]byte("p")), Verdict: store.Sum([]byte("v"))})
	put(t, st, doc)
	if _, err := st.GetObject(t.Context(), desc.Digest); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetObject before PutObject: %v, want ErrNotFound", err)
	}
	if _, err := st.PutObject(t.Context(), doc); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetObject(t.Context(), desc.Digest); err != nil {
		t.Fatalf("GetObject after PutObject of bytes stored as a blob: %v", err)
	}
	put(t, st, doc) // storing the bytes as a blob again keeps the object
	entries := walk(t, st)
	if len(entries) != 1 || entries[0].Kind != store.KindReceipt {
		t.Fatalf("Walk = %+v, want one receipt", entries)
	}
}

func (s *suite) largeObject(t *testing.T) {
	st := s.newStore(t)
	file := []byte("apiVersion: v1\n")
	put(t, st, file)
	// A profile tree whose canonical JSON spans many chunks: every entry names the same file.
	tree := &store.ProfileTree{ProfileID: "large", Version: "1"}
	for i := 0; len(tree.Entries)*100 < 2*s.cfg.largeSize; i++ {
		tree.Entries = append(tree.Entries, store.TreeEntry{Path: fmt.Sprintf("scenarios/%08d.yaml", i), Blob: DescriptorOf(store.MediaTypeYAML, file)})
	}
	doc, desc := Encode(t, tree)
	if _, err := st.PutObject(t.Context(), doc); err != nil {
		t.Fatal(err)
	}
	back, err := st.GetObject(t.Context(), desc.Digest)
	if err != nil || !bytes.Equal(back, doc) {
		t.Fatalf("GetObject of a %d-byte object: %v", len(doc), err)
	}
	report, err := store.Check(t.Context(), st, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("Check: %v %v", err, report.Problems)
	}
}

// objectsGetter is the read of many objects in one call that a store may add to store.Store
// (as badgerstore and memstore do); replay declares it too.
type objectsGetter interface {
	GetObjects(ctx context.Context, ds []store.Digest) ([][]byte, error)
}

func (s *suite) getObjects(t *testing.T) {
	st := s.newStore(t)
	g, ok := st.(objectsGetter)
	if !ok {
		t.Skip("this store reads objects one at a time only")
	}
	b := NewBundle(t, 9, 1000)
	b.Store(t, st)
	file := []byte("apiVersion: v1\n")
	put(t, st, file)
	tree := &store.ProfileTree{ProfileID: "large", Version: "1"}
	for i := 0; len(tree.Entries)*100 < 2*s.cfg.largeSize; i++ {
		tree.Entries = append(tree.Entries, store.TreeEntry{Path: fmt.Sprintf("scenarios/%08d.yaml", i), Blob: DescriptorOf(store.MediaTypeYAML, file)})
	}
	var ds []store.Digest
	for _, obj := range []store.Object{b.Manifest, tree} {
		doc, desc := Encode(t, obj)
		if _, err := st.PutObject(t.Context(), doc); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, desc.Digest)
	}
	ds = append(ds, ds[0])
	got, err := g.GetObjects(t.Context(), ds)
	if err != nil || len(got) != len(ds) {
		t.Fatalf("GetObjects = %d objects, %v; want %d", len(got), err, len(ds))
	}
	for i, d := range ds {
		if want, err := st.GetObject(t.Context(), d); err != nil || !bytes.Equal(got[i], want) {
			t.Errorf("GetObjects[%d] differs from GetObject(%s) (%v)", i, d, err)
		}
	}
	if got, err := g.GetObjects(t.Context(), nil); err != nil || len(got) != 0 {
		t.Errorf("GetObjects of none = %d, %v", len(got), err)
	}
	missing := store.Sum([]byte("missing"))
	for name, d := range map[string]store.Digest{"a missing object": missing, "a raw blob": store.Sum(b.Blobs[1])} {
		if _, err := g.GetObjects(t.Context(), []store.Digest{ds[0], d}); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), d.String()) {
			t.Errorf("GetObjects of %s: %v, want ErrNotFound naming it", name, err)
		}
	}
}

func (s *suite) walkOrder(t *testing.T) {
	st := s.newStore(t)
	NewBundle(t, 10, 3*s.cfg.largeSize).Store(t, st)
	for i := range 20 {
		put(t, st, RandomBytes(uint64(100+i), 10+i*97))
	}
	entries := walk(t, st)
	if !slices.IsSortedFunc(entries, func(a, b store.Entry) int { return bytes.Compare(a.Digest[:], b.Digest[:]) }) {
		t.Fatal("Walk is not in digest order")
	}
	chunks, content := map[store.Digest]bool{}, map[store.Digest]bool{}
	for _, e := range entries {
		seen := content
		if e.Chunk {
			seen = chunks
		}
		if seen[e.Digest] {
			t.Fatalf("Walk reported %s twice", e.Digest)
		}
		seen[e.Digest] = true
	}
	for _, e := range entries {
		for _, c := range e.Chunks {
			if !chunks[c] {
				t.Fatalf("chunk %s of %s is not reported by Walk", c, e.Digest)
			}
		}
	}
	if len(content) != 2+2+20 {
		t.Fatalf("Walk reported %d blobs and objects, want %d", len(content), 24)
	}
	if again := walk(t, st); !slices.EqualFunc(entries, again, func(a, b store.Entry) bool { return a.Digest == b.Digest && a.Chunk == b.Chunk }) {
		t.Fatal("two walks disagree")
	}
}

func (s *suite) walkStops(t *testing.T) {
	st := s.newStore(t)
	for i := range 5 {
		put(t, st, RandomBytes(uint64(200+i), 100))
	}
	stop := errors.New("stop")
	calls := 0
	err := st.Walk(t.Context(), func(store.Entry) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("Walk returned %v after %d calls, want the callback's error after 1", err, calls)
	}
}

func (s *suite) refs(t *testing.T) {
	st := s.newStore(t)
	ctx := t.Context()
	a, b := store.Sum([]byte("a")), store.Sum([]byte("b"))
	names := []string{store.BundleRefName(b), store.BundleRefName(a), "tags/v1", "tags/nightly", store.ProfileRefName(a)}
	for _, n := range names {
		if err := st.SetRef(ctx, n, a); err != nil {
			t.Fatalf("SetRef(%s): %v", n, err)
		}
	}
	if err := st.SetRef(ctx, "tags/v1", b); err != nil { // overwrite
		t.Fatal(err)
	}
	if got, err := st.GetRef(ctx, "tags/v1"); err != nil || got != b {
		t.Fatalf("GetRef after overwrite = %s, %v", got, err)
	}
	if _, err := st.GetRef(ctx, "tags/absent"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetRef(absent) = %v, want ErrNotFound", err)
	}
	all, err := st.ListRefs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(names) || !slices.IsSortedFunc(all, func(x, y store.Ref) int { return strings.Compare(x.Name, y.Name) }) {
		t.Fatalf("ListRefs(\"\") = %v", all)
	}
	tags, err := st.ListRefs(ctx, store.RefTagPrefix)
	if err != nil || len(tags) != 2 || tags[0].Name != "tags/nightly" || tags[1] != (store.Ref{Name: "tags/v1", Digest: b}) {
		t.Fatalf("ListRefs(tags/) = %v, %v", tags, err)
	}
	if err := st.DeleteRef(ctx, "tags/v1"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteRef(ctx, "tags/v1"); err != nil {
		t.Fatalf("deleting a missing ref: %v", err)
	}
	if _, err := st.GetRef(ctx, "tags/v1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetRef after DeleteRef = %v", err)
	}
}

func (s *suite) refNames(t *testing.T) {
	st := s.newStore(t)
	d := store.Sum([]byte("x"))
	bad := []string{"", "tags/../x", "tags/a b", "tags/é", "tags/", "/tags/x", "tags//x", "bundles/abc",
		"bundles/" + strings.ToUpper(d.Hex()), "tags/-x", "tags/" + strings.Repeat("a", 129), strings.Repeat("x/", 200), "tags/a\\b", "tags/a\nb"}
	for _, name := range bad {
		if err := st.SetRef(t.Context(), name, d); !errors.Is(err, store.ErrInvalidRef) {
			t.Errorf("SetRef(%q) = %v, want ErrInvalidRef", name, err)
		}
	}
	if refs, _ := st.ListRefs(t.Context(), ""); len(refs) != 0 {
		t.Fatalf("rejected names left refs: %v", refs)
	}
}

func (s *suite) delete(t *testing.T) {
	st := s.newStore(t)
	small := put(t, st, []byte("to delete"))
	large := put(t, st, LogBytes(11, 2*s.cfg.largeSize))
	for _, d := range []store.Digest{small, large} {
		if err := st.Delete(t.Context(), d); err != nil {
			t.Fatalf("Delete(%s): %v", d, err)
		}
		if _, err := st.Stat(t.Context(), d); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("Stat after Delete = %v", err)
		}
	}
	for _, e := range walk(t, st) {
		if !e.Chunk {
			t.Fatalf("%s survived Delete", e.Digest)
		}
	}
}

func (s *suite) concurrentPuts(t *testing.T) {
	st := s.newStore(t)
	const writers = 8
	contents := make([][]byte, 6)
	for i := range contents {
		size := 100 * (i + 1)
		if i%2 == 1 {
			size = s.cfg.largeSize + i*1000
		}
		contents[i] = LogBytes(uint64(300+i), size)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*len(contents))
	for w := range writers {
		wg.Go(func() {
			for i := range contents {
				c := contents[(i+w)%len(contents)]
				d, _, err := st.PutBlob(t.Context(), bytes.NewReader(c))
				if err == nil && d != store.Sum(c) {
					err = fmt.Errorf("PutBlob returned %s for content %s", d, store.Sum(c))
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, c := range contents {
		if got := readBlob(t, st, store.Sum(c)); !bytes.Equal(got, c) {
			t.Fatal("content read back differs after concurrent puts")
		}
	}
	n := 0
	for _, e := range walk(t, st) {
		if !e.Chunk {
			n++
		}
	}
	if n != len(contents) {
		t.Fatalf("%d blobs stored, want %d", n, len(contents))
	}
}

// cancelAfter is a reader that cancels a context once n bytes have been read.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n -= n; c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func (s *suite) cancellation(t *testing.T) {
	st := s.newStore(t)
	content := LogBytes(12, 4*s.cfg.largeSize)

	ctx, cancel := context.WithCancel(t.Context())
	_, _, err := st.PutBlob(ctx, &cancelAfter{r: bytes.NewReader(content), n: s.cfg.largeSize, cancel: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("PutBlob with a context cancelled midway = %v, want context.Canceled", err)
	}
	if _, err := st.Stat(t.Context(), store.Sum(content)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a cancelled PutBlob left the blob: %v", err)
	}

	d := put(t, st, content)
	ctx, cancel = context.WithCancel(t.Context())
	r, _, err := st.OpenBlob(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(&cancelAfter{r: r, n: s.cfg.largeSize, cancel: cancel})
	if len(got) < len(content) && !errors.Is(err, context.Canceled) {
		t.Fatalf("read with a cancelled context stopped after %d bytes with %v, want context.Canceled", len(got), err)
	}
	if !bytes.Equal(got, content[:len(got)]) {
		t.Fatal("read with a cancelled context gave wrong bytes")
	}

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	if err := st.Walk(ctx, func(store.Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk with a cancelled context = %v", err)
	}
	report, err := store.Check(t.Context(), st, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("store inconsistent after cancellations: %v %v", err, report.Problems)
	}
}

// failingReader: a PutBlob whose reader fails leaves the store as it was, chunks included,
// and keeps the chunks a stored blob shares with it.
func (s *suite) failingReader(t *testing.T) {
	st := s.newStore(t)
	boom := errors.New("disk on fire")
	kept := put(t, st, LogBytes(13, s.cfg.largeSize)) // a prefix of what fails below
	before := walk(t, st)
	for _, size := range []int{10, 3 * s.cfg.largeSize} {
		content := LogBytes(13, size)
		r := io.MultiReader(bytes.NewReader(content), iotest.ErrReader(boom))
		if _, _, err := st.PutBlob(t.Context(), r); !errors.Is(err, boom) {
			t.Fatalf("PutBlob from a failing reader (%d bytes before the error) = %v", size, err)
		}
		if _, err := st.Stat(t.Context(), store.Sum(content)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a failed PutBlob left a blob: %v", err)
		}
		if after := walk(t, st); !slices.EqualFunc(before, after, sameEntry) {
			t.Fatalf("a failed PutBlob of %d bytes changed the store: %d entries before, %d after", size, len(before), len(after))
		}
	}
	if got := readBlob(t, st, kept); !bytes.Equal(got, LogBytes(13, s.cfg.largeSize)) {
		t.Fatal("the blob sharing chunks with the failed writes changed")
	}
	report, err := store.Check(t.Context(), st, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("store inconsistent after failed puts: %v %v", err, report.Problems)
	}
}

func (s *suite) checkClean(t *testing.T) {
	st := s.newStore(t)
	b := NewBundle(t, 14, 2*s.cfg.largeSize)
	b.Store(t, st)
	d, err := store.Seal(t.Context(), st, b.Manifest, "clean")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	report, err := store.Check(t.Context(), st, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("Check of a sealed bundle: %v %v", err, report.Problems)
	}
	if report.Objects != 3 || report.Blobs != 2 || report.Refs != 2 {
		t.Fatalf("Check counted %d objects, %d blobs, %d refs; want 3, 2, 2", report.Objects, report.Blobs, report.Refs)
	}
	closure, err := store.Reachable(t.Context(), st, d)
	if err != nil || len(closure) != 5 || closure[len(closure)-1].Digest != d {
		t.Fatalf("Reachable(bundle) = %d entries, %v; want 5 ending with the manifest", len(closure), err)
	}
}

func (s *suite) corruption(t *testing.T) {
	if s.cfg.corrupt == nil {
		t.Skip("no Corrupter for this store")
	}
	tests := []struct {
		name    string
		content []byte
		object  bool
		chunk   bool // damage a chunk rather than the blob's own record
		// grown, if set, is stored too: content that extends content, sharing the damaged
		// chunk, so both must report the damage.
		grown []byte
	}{
		{"inline blob", LogBytes(15, 1000), false, false, nil},
		{"inline random blob", RandomBytes(16, 1000), false, false, nil},
		{"chunk of a large blob", LogBytes(17, 3*s.cfg.largeSize), false, true, nil},
		{"chunk shared by two blobs", LogBytes(19, 3*s.cfg.largeSize), false, true, LogBytes(19, 4*s.cfg.largeSize)},
		{"chunk list of a large blob", LogBytes(18, 3*s.cfg.largeSize), false, false, nil},
		{"object", nil, true, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := s.newStore(t)
			var d store.Digest
			if tc.object {
				doc, desc := Encode(t, &store.Receipt{Bundle: store.Sum([]byte("b")), Profile: store.Sum([]byte("p")), Verdict: store.Sum([]byte("v"))})
				if _, err := st.PutObject(t.Context(), doc); err != nil {
					t.Fatal(err)
				}
				d, tc.content = desc.Digest, doc
			} else {
				d = put(t, st, tc.content)
			}
			if tc.grown != nil {
				put(t, st, tc.grown)
			}
			target, err := st.Stat(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			if tc.chunk {
				if len(target.Chunks) == 0 {
					t.Skip("this store keeps large blobs in one piece")
				}
				target = store.Entry{Digest: target.Chunks[len(target.Chunks)/2], Chunk: true}
			}
			s.cfg.corrupt(t, st, target)
			s.expectDetected(t, st, d, tc.content, tc.object)
			if tc.grown != nil {
				s.expectDetected(t, st, store.Sum(tc.grown), tc.grown, false)
			}
		})
	}
}

// expectDetected checks that every read path reports the damage to d, naming it, and never
// hands out bytes that differ from the content.
func (s *suite) expectDetected(t *testing.T, st store.Store, d store.Digest, content []byte, object bool) {
	t.Helper()
	r, _, err := st.OpenBlob(t.Context(), d)
	var got []byte
	if err == nil {
		got, err = io.ReadAll(r)
		r.Close()
	}
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), d.String()) {
		t.Errorf("reading the damaged %s: %v, want ErrCorrupt naming it", d, err)
	}
	if !bytes.Equal(got, content[:min(len(got), len(content))]) {
		t.Errorf("reading the damaged %s handed out wrong bytes", d)
	}
	if object {
		if _, err := st.GetObject(t.Context(), d); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), d.String()) {
			t.Errorf("GetObject of the damaged %s: %v, want ErrCorrupt naming it", d, err)
		}
		if g, ok := st.(objectsGetter); ok {
			if _, err := g.GetObjects(t.Context(), []store.Digest{d}); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), d.String()) {
				t.Errorf("GetObjects of the damaged %s: %v, want ErrCorrupt naming it", d, err)
			}
		}
	}
	report, err := store.Check(t.Context(), st, store.CheckOptions{})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if report.OK() {
		t.Fatalf("Check found nothing wrong with the damaged %s", d)
	}
	for _, p := range report.Problems {
		if p.Digest == d || strings.Contains(p.Message, d.String()) {
			return
		}
	}
	t.Errorf("Check problems do not name %s: %v", d, report.Problems)
}

func (s *suite) closed(t *testing.T) {
	st := s.open(t)
	d := put(t, st, []byte("before close"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	calls := map[string]func() error{
		"PutBlob": func() error { _, _, err := st.PutBlob(ctx, strings.NewReader("x")); return err },
		"OpenBlob": func() error {
			_, _, err := st.OpenBlob(ctx, d)
			return err
		},
		"PutObject": func() error { _, err := st.PutObject(ctx, []byte(`{}`)); return err },
		"GetObject": func() error { _, err := st.GetObject(ctx, d); return err },
		"Stat":      func() error { _, err := st.Stat(ctx, d); return err },
		"Delete":    func() error { return st.Delete(ctx, d) },
		"Walk":      func() error { return st.Walk(ctx, func(store.Entry) error { return nil }) },
		"Sync":      func() error { return st.Sync(ctx) },
		"SetRef":    func() error { return st.SetRef(ctx, "tags/x", d) },
		"GetRef":    func() error { _, err := st.GetRef(ctx, "tags/x"); return err },
		"DeleteRef": func() error { return st.DeleteRef(ctx, "tags/x") },
		"ListRefs":  func() error { _, err := st.ListRefs(ctx, ""); return err },
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		if err := calls[name](); err == nil {
			t.Errorf("%s on a closed store succeeded", name)
		}
	}
	st.Close() // closing again must not panic
}
