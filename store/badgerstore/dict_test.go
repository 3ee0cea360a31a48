package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

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

// TestDictionaries: the content of a session becomes the dictionary at Sync; later similar
// records are stored with it, much smaller, and read back exactly, also after reopening; the
// store checks clean; a record whose dictionary is missing is corrupt, naming the dictionary;
// Compact removes dictionaries no record uses.
func TestDictionaries(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(run int) (ds []store.Digest, stored int64) {
		for n := range 12 {
			d, _, err := s.PutBlob(ctx, bytes.NewReader(evidenceLike(0, run, n)))
			if err != nil {
				t.Fatal(err)
			}
			e, err := s.Stat(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			ds, stored = append(ds, d), stored+e.StoredSize
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return ds, stored
	}
	_, first := write(1)
	if len(s.dicts.active) != 1 {
		t.Fatalf("%d active dictionaries after the first session, want 1", len(s.dicts.active))
	}
	second, stored := write(2)
	if stored*5 > first {
		t.Errorf("a similar session stored %d bytes with the dictionary, the first %d without: want a fifth at most", stored, first)
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
	dict := s.dicts.active[0]
	s.Close()

	// Without its dictionary, a record is corrupt and says which dictionary is missing.
	db, err := badger.Open(Options{}.mustResolve(t).badgerOptions(dir, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(txn *badger.Txn) error { return txn.Delete(dictKey(dict)) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(dir, Options{ReadOnly: true})
	if err == nil {
		_, _, err = s.OpenBlob(ctx, second[0])
		s.Close()
	}
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), dict.String()) {
		t.Fatalf("reading without the dictionary: %v, want ErrCorrupt naming %s", err, dict)
	}
}

// TestPruneDictionaries: a session unlike every active dictionary adds one, a session like one
// of them uses it; Compact keeps the dictionaries records use and the active ones, and removes
// the others.
func TestPruneDictionaries(t *testing.T) {
	ctx := t.Context()
	s, err := OpenInMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Sessions of family 0 (the first makes dictionary A, the second uses it), then of family
	// 1 (unlike A: the first makes dictionary B, the second uses it), then of family 0 again
	// (it uses A: no new dictionary). Then five more families push A out of the active set.
	var sessions [][]store.Digest
	for _, family := range []int{0, 0, 1, 1, 0, 2, 3, 4, 5} {
		var ds []store.Digest
		for n := range 12 {
			d, _, err := s.PutBlob(ctx, bytes.NewReader(evidenceLike(family, len(sessions), n)))
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, d)
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, ds)
	}
	if n := countDictionaries(t, s); n != 6 || len(s.dicts.active) != maxActive {
		t.Fatalf("%d dictionaries (%d active), want 6 (%d active)", n, len(s.dicts.active), maxActive)
	}
	for _, i := range []int{1, 4} { // the only records using dictionary A, no longer active
		for _, d := range sessions[i] {
			if err := s.Delete(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countDictionaries(t, s); n != 5 {
		t.Errorf("%d dictionaries after pruning, want 5", n)
	}
	for n, d := range sessions[3] {
		if got := readAllBlob(t, s, d); !bytes.Equal(got, evidenceLike(1, 3, n)) {
			t.Fatalf("record %d of the last session reads back differently after pruning", n)
		}
	}
}

func countDictionaries(t *testing.T, s *Store) int {
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsDict}})
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

// TestFormatVersion2: a store of format version 2 (no dictionaries) is read as it is, and
// becomes version 3 when first opened for writing.
func TestFormatVersion2(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	content := evidenceLike(0, 0, 0)
	d, _, err := s.PutBlob(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Make it a version 2 store: the marker, and the version byte of every content value.
	db, err := badger.Open(Options{}.mustResolve(t).badgerOptions(dir, false))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(contentKey(d))
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		v[0] = 2
		if err := txn.Set(contentKey(d), v); err != nil {
			return err
		}
		return txn.Set(metaFormatKey, formatMarkerV2)
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{true, false} {
		s, err := Open(dir, Options{ReadOnly: readOnly})
		if err != nil {
			t.Fatalf("open a version 2 store (read-only %v): %v", readOnly, err)
		}
		if got := readAllBlob(t, s, d); !bytes.Equal(got, content) {
			t.Fatal("a version 2 record reads back differently")
		}
		s.Close()
	}
	db, err = badger.Open(Options{}.mustResolve(t).badgerOptions(dir, false).WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(metaFormatKey)
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if !bytes.Equal(v, formatMarker) {
				return fmt.Errorf("marker %q after a read-write open, want %q", v, formatMarker)
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (o Options) mustResolve(t *testing.T) Options {
	t.Helper()
	r, err := o.resolved(false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
