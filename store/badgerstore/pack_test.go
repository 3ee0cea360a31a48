package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// evidenceLike is a small document of family f, number n, of run i: the same words for every
// run of one family, but its time, as two recordings of one evaluation are. The words come
// from a generator seeded by family and number, so one document alone compresses little.
func evidenceLike(f, i, n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(f), uint64(n)))
	var b strings.Builder
	if f > 0 { // another family shares no words with the first, and few with each other
		fmt.Fprintf(&b, "family %d, document %d, time %02d:%02d\n", f, n, i%60, (i*7)%60)
		for range 300 {
			fmt.Fprintf(&b, "%s ", strconv.FormatUint(rng.Uint64()|uint64(f)<<60, 36))
		}
		return []byte(b.String())
	}
	fmt.Fprintf(&b, `{"scenario":"s-%d","at":"2026-08-20T08:%02d:%02dZ","words":[`, n, i%60, (i*7)%60)
	for range 300 {
		fmt.Fprintf(&b, `"%x",`, rng.Uint32())
	}
	b.WriteString(`""]}`)
	return []byte(b.String())
}

// TestPacks: what a session writes becomes one pack at Sync, the first one a base; a later
// similar session is packed with the base as history, much smaller; its records read back
// exactly, also after reopening; the store checks clean, and Stat and Walk count the same
// stored sizes; a record whose pack or base is missing or damaged is corrupt, naming the pack.
func TestPacks(t *testing.T) {
	for _, small := range []bool{false, true} {
		t.Run(fmt.Sprintf("small memory %v", small), func(t *testing.T) { testPacks(t, Options{SmallMemory: small}) })
	}
}

func testPacks(t *testing.T, opts Options) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	write := func(run int) (ds []store.Digest, stored int64) {
		ds = putSession(t, s, 0, run)
		for _, d := range ds {
			e, err := s.Stat(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			stored += e.StoredSize
		}
		return ds, stored
	}
	firstRun, first := write(1)
	if len(s.packs.bases) != 1 {
		t.Fatalf("%d active bases after the first session, want 1", len(s.packs.bases))
	}
	second, stored := write(2)
	if stored*5 > first {
		t.Errorf("a similar session stored %d bytes with the base, the first %d without: want a fifth at most", stored, first)
	}
	for _, d := range append(firstRun, second...) {
		if rec, _, err := s.headerOf(d); err != nil || rec.typ != recPacked {
			t.Fatalf("record of %s: %+v, %v; want a packed record", d, rec, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for n, d := range second {
		if got := readAllBlob(t, s, d); !bytes.Equal(got, evidenceLike(0, 2, n)) {
			t.Fatalf("record %d of the second session reads back differently", n)
		}
	}
	if r, err := store.Check(ctx, s, store.CheckOptions{}); err != nil || !r.OK() {
		t.Fatalf("check: %v %v", err, r.Problems)
	}
	walked := map[store.Digest]int64{}
	if err := s.Walk(ctx, func(e store.Entry) error { walked[e.Digest] = e.StoredSize; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, d := range second {
		if e, err := s.Stat(ctx, d); err != nil || e.StoredSize != walked[d] || e.StoredSize == 0 {
			t.Fatalf("Stat %s: %+v, %v; Walk counts %d stored bytes", d, e, err, walked[d])
		}
	}
	rec, _, _ := s.headerOf(second[0])
	s.Close()

	tamper := map[string]func(txn *badger.Txn) error{
		"pack 2 is missing":                           func(txn *badger.Txn) error { return txn.Delete(packKey(rec.pack)) },
		"its base: store: corrupt: pack 1 is missing": func(txn *badger.Txn) error { return txn.Delete(packKey(1)) },
		"pack 2: store: corrupt: its content hashes to": func(txn *badger.Txn) error {
			item, err := txn.Get(packKey(rec.pack))
			if err != nil {
				return err
			}
			v, _ := item.ValueCopy(nil)
			p, err := decodeRecord(v)
			if err != nil {
				return err
			}
			p.sum[0] ^= 1
			return txn.Set(packKey(rec.pack), appendPack(nil, p.codec, p.size, p.sum, p.base, p.payload))
		},
	}
	for mention, fn := range tamper {
		t.Run(mention, func(t *testing.T) {
			copyDir := t.TempDir()
			if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
				t.Fatal(err)
			}
			db, err := badger.Open(Options{}.mustResolve(t).badgerOptions(copyDir, false))
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(fn); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err := Open(copyDir, Options{ReadOnly: true})
			if err == nil {
				_, _, err = s.OpenBlob(ctx, second[0])
				s.Close()
			}
			if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), mention) || !strings.Contains(err.Error(), second[0].String()) {
				t.Fatalf("reading a record of pack %d: %v, want ErrCorrupt naming it and saying %q", rec.pack, err, mention)
			}
		})
	}
}

// TestPrunePacks: a session unlike every active base makes a new base, a session like one of
// them uses it; Compact keeps the packs records are in, the bases of those packs and the active
// bases, and removes the others.
func TestPrunePacks(t *testing.T) {
	ctx := t.Context()
	s, err := OpenInMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Sessions of family 0 (the first makes base A, pack 1, the second uses it), then of
	// family 1 (unlike A: the first makes base B, pack 3, the second uses it), then of family
	// 0 again (it uses A: no new base). Then four more families push A and B out of the active
	// set.
	var sessions [][]store.Digest
	for _, family := range []int{0, 0, 1, 1, 0, 2, 3, 4, 5} {
		sessions = append(sessions, putSession(t, s, family, len(sessions)))
	}
	if n := countPacks(t, s); n != 9 || !slices.Equal(s.packs.bases, []uint64{9, 8, 7, 6}) {
		t.Fatalf("%d packs, bases %v; want 9, bases [9 8 7 6]", n, s.packs.bases)
	}
	// Packs 1 (base A) and 2 and 5 (with A) lose all their records; pack 3 (base B) loses
	// its own but pack 4 still uses it.
	for _, i := range []int{0, 1, 2, 4} {
		for _, d := range sessions[i] {
			if err := s.Delete(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countPacks(t, s); n != 6 {
		t.Errorf("%d packs after pruning, want 6", n)
	}
	for n, d := range sessions[3] {
		if got := readAllBlob(t, s, d); !bytes.Equal(got, evidenceLike(1, 3, n)) {
			t.Fatalf("record %d of session 3 reads back differently after pruning", n)
		}
	}
	if r, err := store.Check(ctx, s, store.CheckOptions{}); err != nil || !r.OK() {
		t.Fatalf("check after pruning: %v %v", err, r.Problems)
	}
}

// putSession writes twelve documents of family f, run i (evidenceLike), and syncs, which cuts
// them into a pack.
func putSession(tb testing.TB, s *Store, f, i int) []store.Digest {
	tb.Helper()
	var ds []store.Digest
	for n := range 12 {
		d, _, err := s.PutBlob(tb.Context(), bytes.NewReader(evidenceLike(f, i, n)))
		if err != nil {
			tb.Fatal(err)
		}
		ds = append(ds, d)
	}
	if err := s.Sync(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	return ds
}

func countPacks(t *testing.T, s *Store) int {
	return countKeys(t, s, nsPack)
}

// TestVersion3Dictionaries: a record a version 3 store compressed with a dictionary reads back;
// without its dictionary it is corrupt, naming the dictionary; Compact removes the
// dictionaries no record uses and keeps the others.
func TestVersion3Dictionaries(t *testing.T) {
	ctx := t.Context()
	s, err := OpenInMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dictionary := func(content []byte) store.Digest {
		id := store.Sum(content)
		rec := appendInline(nil, 0, codecRaw, store.Digest{}, int64(len(content)), content)
		rec[0] = 3
		setValue(t, s, dictKey(id), rec)
		return id
	}
	used, unused := dictionary(evidenceLike(0, 1, 0)), dictionary(evidenceLike(0, 1, 1))
	content := evidenceLike(0, 2, 0)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(zstdDictID(used), evidenceLike(0, 1, 0)), zstd.WithWindowSize(dictWindow))
	if err != nil {
		t.Fatal(err)
	}
	d := store.Sum(content)
	rec := appendInline(nil, 0, codecDict, used, int64(len(content)), enc.EncodeAll(content, nil))
	rec[0] = 3
	setValue(t, s, contentKey(d), rec)
	if got := readAllBlob(t, s, d); !bytes.Equal(got, content) {
		t.Fatal("the record reads back differently")
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, s, nsDict); n != 1 {
		t.Fatalf("%d dictionaries after Compact, want 1 (%s, not %s)", n, used, unused)
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(dictKey(used)) }); err != nil {
		t.Fatal(err)
	}
	s.dicts.loaded = nil
	if _, _, err := s.OpenBlob(ctx, d); !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), used.String()) {
		t.Fatalf("reading without the dictionary: %v, want ErrCorrupt naming %s", err, used)
	}
}

// countKeys counts the keys of namespace ns.
func countKeys(t *testing.T, s *Store, ns byte) int {
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ns}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func readAllBlob(t *testing.T, s *Store, d store.Digest) []byte {
	t.Helper()
	r, _, err := s.OpenBlob(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func (o Options) mustResolve(t *testing.T) Options {
	t.Helper()
	r, err := o.resolved(false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
