package badgerstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestCorruptionOnDisk damages stored values through Badger itself, with the store closed, and
// checks that every read path of the reopened store reports the damage naming the digest and
// never hands out wrong bytes.
func TestCorruptionOnDisk(t *testing.T) {
	logContent := func() []byte {
		var b bytes.Buffer
		auditgen.Write(&b, 7, 100<<10)
		return b.Bytes()
	}()
	receipt, _, err := store.Encode(&store.Receipt{Bundle: store.Sum([]byte("b")), Profile: store.Sum([]byte("p")), Verdict: store.Sum([]byte("v"))})
	if err != nil {
		t.Fatal(err)
	}
	flipAt := func(pos func(v []byte) int) func([]byte) []byte {
		return func(v []byte) []byte { v[pos(v)] ^= 0x01; return v }
	}
	tests := []struct {
		name    string
		content []byte
		object  bool
		target  func(s *Store, d store.Digest) []byte // the key to damage
		damage  func(v []byte) []byte
		want    error
	}{
		{"inline payload", []byte(strings.Repeat("kubectl get pods\n", 50)), false, blobKey,
			flipAt(func(v []byte) int { return len(v) / 2 }), store.ErrCorrupt},
		{"inline codec byte", []byte("short evidence"), false, blobKey,
			func(v []byte) []byte { v[3] = 7; return v }, store.ErrCorrupt},
		{"inline size field", []byte("short evidence"), false, blobKey,
			func(v []byte) []byte { v[4]++; return v }, store.ErrCorrupt},
		{"record format version", []byte("short evidence"), false, blobKey,
			func(v []byte) []byte { v[0] = 9; return v }, store.ErrUnsupportedVersion},
		{"truncated value", logContent[:3000], false, blobKey,
			func(v []byte) []byte { return v[:len(v)-10] }, store.ErrCorrupt},
		{"value of another blob", []byte("the real evidence"), false, blobKey,
			func([]byte) []byte {
				return appendInline(nil, 0, codecRaw, store.Digest{}, 17, []byte("forged evidence!!"))
			}, store.ErrCorrupt},
		{"chunk payload", logContent, false, chunkKeyOf(2),
			flipAt(func(v []byte) int { return len(v) - 20 }), store.ErrCorrupt},
		{"chunk header", logContent, false, chunkKeyOf(0),
			func(v []byte) []byte { v[1] = 'x'; return v }, store.ErrCorrupt},
		{"chunk list digest", logContent, false, blobKey,
			flipAt(func(v []byte) int { return len(v) - 40 }), store.ErrCorrupt},
		{"chunk list size", logContent, false, blobKey,
			flipAt(func(v []byte) int { return len(v) - 1 }), store.ErrCorrupt},
		{"object payload", receipt, true, blobKey,
			flipAt(func(v []byte) int { return len(v) - 5 }), store.ErrCorrupt},
		{"object kind byte", receipt, true, blobKey,
			func(v []byte) []byte { v[2] = 200; return v }, store.ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{ChunkSize: 8 << 10}
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			var d store.Digest
			if tc.object {
				desc, err := s.PutObject(t.Context(), tc.content)
				if err != nil {
					t.Fatal(err)
				}
				d = desc.Digest
			} else if d, _, err = s.PutBlob(t.Context(), bytes.NewReader(tc.content)); err != nil {
				t.Fatal(err)
			}
			key := tc.target(s, d)
			s.Close()

			tamper(t, dir, opts, key, tc.damage)

			s, err = Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			expectDamage(t, s, d, tc.content, tc.object, tc.want)
		})
	}
}

func blobKey(_ *Store, d store.Digest) []byte { return contentKey(d) }

// chunkKeyOf selects the key of the blob's i-th chunk.
func chunkKeyOf(i int) func(*Store, store.Digest) []byte {
	return func(s *Store, d store.Digest) []byte {
		e, err := s.Stat(nil, d)
		if err != nil || len(e.Chunks) <= i {
			panic("test blob is not chunked enough")
		}
		return chunkKey(e.Chunks[i])
	}
}

// tamper rewrites one value of a closed store through Badger directly.
func tamper(t *testing.T, dir string, opts Options, key []byte, damage func([]byte) []byte) {
	t.Helper()
	o, err := opts.resolved(false)
	if err != nil {
		t.Fatal(err)
	}
	db, err := badger.Open(o.badgerOptions(dir, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		return txn.Set(key, damage(v))
	})
	if err != nil {
		t.Fatalf("tamper with %x: %v", key, err)
	}
}

func expectDamage(t *testing.T, s *Store, d store.Digest, content []byte, object bool, want error) {
	t.Helper()
	ctx := t.Context()
	var got []byte
	r, _, err := s.OpenBlob(ctx, d)
	if err == nil {
		got, err = io.ReadAll(r)
		r.Close()
	}
	if !errors.Is(err, want) || !strings.Contains(err.Error(), d.String()) {
		t.Errorf("OpenBlob(%s) and read: %v, want %v naming the digest", d, err, want)
	}
	if !bytes.HasPrefix(content, got) {
		t.Errorf("OpenBlob handed out %d bytes that are not the content's prefix", len(got))
	}
	if object {
		if _, err := s.GetObject(ctx, d); !errors.Is(err, want) || !strings.Contains(err.Error(), d.String()) {
			t.Errorf("GetObject(%s) = %v, want %v naming the digest", d, err, want)
		}
	}
	report, err := store.Check(ctx, s, store.CheckOptions{})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	found := false
	for _, p := range report.Problems {
		found = found || p.Digest == d || strings.Contains(p.Message, d.String())
	}
	if !found {
		t.Errorf("Check problems do not name %s: %v", d, report.Problems)
	}
}

// TestChunkSubstitution replaces chunk records and chunk lists with well-formed values of the
// wrong content. Each chunk's key commits to its blob's prefix, so a chunk out of place is
// refused before any of its bytes are handed out. A chunk list replaced whole by another blob's
// is consistent with the other blob's chunks: its bytes are handed out, and the digest of the
// whole content refuses them before io.EOF (doc.go, "Reading and verifying").
func TestChunkSubstitution(t *testing.T) {
	const chunkSize = 8 << 10
	tests := []struct {
		name    string
		tamper  func(t *testing.T, s *Store, a, b store.Digest)
		mention string
		atEnd   bool // detected only by the whole-content digest
	}{
		{"chunks swapped in the list", func(t *testing.T, s *Store, a, _ store.Digest) {
			rec := chunkListOf(t, s, a)
			rec.chunks[0], rec.chunks[1] = rec.chunks[1], rec.chunks[0]
			setList(t, s, a, rec)
		}, "chunk 1 of", false},
		{"chunk record of another blob at the same offset", func(t *testing.T, s *Store, a, b store.Digest) {
			ka, kb := chunkListOf(t, s, a).chunks[2].key, chunkListOf(t, s, b).chunks[2].key
			setValue(t, s, chunkKey(ka), getValue(t, s, chunkKey(kb)))
		}, "chunk 3 of", false},
		{"chunk list key of another blob", func(t *testing.T, s *Store, a, b store.Digest) {
			rec := chunkListOf(t, s, a)
			rec.chunks[3] = chunkListOf(t, s, b).chunks[3]
			setList(t, s, a, rec)
		}, "chunk 4 of", false},
		{"hash state in the list", func(t *testing.T, s *Store, a, b store.Digest) {
			rec := chunkListOf(t, s, a)
			rec.chunks[3].after.h[0] ^= 1
			setList(t, s, a, rec)
		}, "chunk 4 of", false},
		{"chunk list of another blob", func(t *testing.T, s *Store, a, b store.Digest) {
			setValue(t, s, contentKey(a), getValue(t, s, contentKey(b)))
		}, "chunks hash to", true},
	}
	for _, states := range []bool{true, false} {
		for _, tc := range tests {
			if !states && strings.HasPrefix(tc.name, "hash state") {
				continue
			}
			t.Run(fmt.Sprintf("%s, hash states %v", tc.name, states), func(t *testing.T) {
				testChunkSubstitution(t, chunkSize, states, tc.tamper, tc.mention, tc.atEnd)
			})
		}
	}
}

// testChunkSubstitution is one case of TestChunkSubstitution: states false rewrites both
// blobs' chunk lists as format version 3 wrote them, so that they are verified in order.
func testChunkSubstitution(t *testing.T, chunkSize int64, states bool, tamper func(t *testing.T, s *Store, a, b store.Digest), mention string, atEnd bool) {
	s, err := OpenInMemory(Options{ChunkSize: int(chunkSize)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	contentA, contentB := generatedLog(t, 11, 10*chunkSize), generatedLog(t, 12, 10*chunkSize)
	contentB = contentB[:len(contentA)] // same size, so the records fit each other's places
	a := putBytes(t, s, contentA)
	b := putBytes(t, s, contentB)
	if !states {
		for _, d := range []store.Digest{a, b} {
			rec := chunkListOf(t, s, d)
			rec.states = false
			setList(t, s, d, rec)
		}
	}
	tamper(t, s, a, b)
	if !atEnd {
		expectDamage(t, s, a, contentA, false, store.ErrCorrupt)
	}
	r, _, err := s.OpenBlob(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), a.String()) || !strings.Contains(err.Error(), mention) {
		t.Errorf("reading %s: %v, want ErrCorrupt naming it and saying %q", a, err, mention)
	}
	if atEnd && len(got) != len(contentB) {
		t.Errorf("read %d bytes before the error, want all %d of the other blob's", len(got), len(contentB))
	}
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil || len(report.Problems) != 1 || report.Problems[0].Digest != a || report.Problems[0].Kind != store.ProblemCorrupt {
		t.Errorf("Check: %v, %+v; want one corrupt-content problem at %s", err, report, a)
	}
}

// setList writes rec as the chunk list of d, with hash states or, without, as format
// version 3 wrote it.
func setList(t *testing.T, s *Store, d store.Digest, rec record) {
	t.Helper()
	code, _ := kindCode(rec.kind)
	if rec.states {
		setValue(t, s, contentKey(d), appendChunkList(nil, code, rec.size, rec.chunks))
	} else {
		setValue(t, s, contentKey(d), appendChunkListV3(nil, 3, code, rec.size, rec.chunks))
	}
}

// TestOrphanChunks checks what Check does with chunks no chunk list names: it counts them as
// garbage and reports a record that does not decode, naming its key.
func TestOrphanChunks(t *testing.T) {
	s, err := OpenInMemory(Options{ChunkSize: 8 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := putBytes(t, s, generatedLog(t, 13, 100<<10))
	list := chunkListOf(t, s, d)
	if err := s.Delete(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil || !report.OK() || report.OrphanChunks != len(list.chunks) || report.BytesChecked != 0 {
		t.Fatalf("Check of a store holding only orphan chunks = %+v, %v; want no problem and %d orphans", report, err, len(list.chunks))
	}

	damaged := list.chunks[4].key
	v := getValue(t, s, chunkKey(damaged))
	v[1] = 'x' // an unknown record type
	setValue(t, s, chunkKey(damaged), v)
	report, err = store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Problems) != 1 || report.Problems[0].Digest != damaged || report.Problems[0].Kind != store.ProblemCorrupt ||
		!strings.Contains(report.Problems[0].Message, damaged.String()) || report.OrphanChunks != len(list.chunks) {
		t.Fatalf("Check of a damaged orphan chunk %s = %+v", damaged, report)
	}
}

func putBytes(t *testing.T, s *Store, content []byte) store.Digest {
	t.Helper()
	d, _, err := s.PutBlob(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func chunkListOf(t *testing.T, s *Store, d store.Digest) record {
	t.Helper()
	rec, err := decodeRecord(getValue(t, s, contentKey(d)))
	if err != nil || rec.typ != recChunkList {
		t.Fatalf("record of %s: %+v, %v; want a chunk list", d, rec, err)
	}
	return rec
}

// getValue and setValue read and write a value of an open store through Badger directly.
func getValue(t *testing.T, s *Store, key []byte) []byte {
	t.Helper()
	var v []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err == nil {
			v, err = item.ValueCopy(nil)
		}
		return err
	})
	if err != nil {
		t.Fatalf("get %x: %v", key, err)
	}
	return v
}

func setValue(t *testing.T, s *Store, key, v []byte) {
	t.Helper()
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(key, v) }); err != nil {
		t.Fatalf("set %x: %v", key, err)
	}
}
