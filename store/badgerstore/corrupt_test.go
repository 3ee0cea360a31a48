package badgerstore

import (
	"bytes"
	"errors"
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
				return appendInline(nil, 0, codecRaw, 17, []byte("forged evidence!!"))
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
