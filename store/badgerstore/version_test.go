package badgerstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// appendChunkListV3 appends a chunk list as format versions 2 and 3 wrote it: no hash states.
func appendChunkListV3(dst []byte, version, kind byte, size int64, chunks []chunkRef) []byte {
	dst = append(dst, version, byte(recChunkList), kind)
	dst = binary.AppendUvarint(dst, uint64(size))
	dst = binary.AppendUvarint(dst, uint64(len(chunks)))
	for _, c := range chunks {
		dst = append(dst, c.key[:]...)
		dst = binary.AppendUvarint(dst, uint64(c.size))
	}
	return dst
}

// asVersion rewrites the record of d (and, for a chunk list, its chunks) as format version v
// wrote it.
func asVersion(t *testing.T, db *badger.DB, d store.Digest, v byte) {
	t.Helper()
	err := db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(contentKey(d))
		if err != nil {
			return err
		}
		val, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		rec, err := decodeRecord(val)
		if err != nil {
			return err
		}
		if rec.typ != recChunkList {
			val[0] = v
			return txn.Set(contentKey(d), val)
		}
		for _, c := range rec.chunks {
			item, err := txn.Get(chunkKey(c.key))
			if err != nil {
				return err
			}
			chunk, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			if chunk, err = chunkAsVersion(chunk, v); err != nil {
				return err
			}
			if err := txn.Set(chunkKey(c.key), chunk); err != nil {
				return err
			}
		}
		code, _ := kindCode(rec.kind)
		return txn.Set(contentKey(d), appendChunkListV3(nil, v, code, rec.size, rec.chunks))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOlderFormats: a store of format version 2 or 3 (chunk lists without hash states, no
// packs) is read as it is, its chunked blobs verified in order, and becomes version 4 when
// first opened for writing; it then takes new content of version 4 beside the old.
func TestOlderFormats(t *testing.T) {
	for _, v := range []byte{2, 3} {
		t.Run(fmt.Sprintf("version %d", v), func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{ChunkSize: 4 << 10}
			s, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			small, large := evidenceLike(0, 0, 0), generatedLog(t, 21, 50<<10)
			ds, dl := putBytes(t, s, small), putBytes(t, s, large)
			s.Close()
			db, err := badger.Open(opts.mustResolve(t).badgerOptions(dir, false))
			if err != nil {
				t.Fatal(err)
			}
			asVersion(t, db, ds, v)
			asVersion(t, db, dl, v)
			marker := append(bytes.Clone(formatMarker[:len(formatMarker)-1]), v)
			err = db.Update(func(txn *badger.Txn) error { return txn.Set(metaFormatKey, marker) })
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, readOnly := range []bool{true, false} {
				opts.ReadOnly = readOnly
				s, err := Open(dir, opts)
				if err != nil {
					t.Fatalf("open a version %d store (read-only %v): %v", v, readOnly, err)
				}
				if rec := chunkListOf(t, s, dl); rec.states {
					t.Fatal("the rewritten chunk list has hash states")
				}
				if !bytes.Equal(readAllBlob(t, s, ds), small) || !bytes.Equal(readAllBlob(t, s, dl), large) {
					t.Fatalf("version %d content reads back differently", v)
				}
				if !readOnly {
					d := putBytes(t, s, generatedLog(t, 22, 50<<10))
					if rec := chunkListOf(t, s, d); !rec.states {
						t.Fatal("a chunk list written after the upgrade has no hash states")
					}
					if report, err := store.Check(t.Context(), s, store.CheckOptions{}); err != nil || !report.OK() {
						t.Fatalf("Check after the upgrade: %+v, %v", report, err)
					}
				}
				s.Close()
			}
			db, err = badger.Open(opts.mustResolve(t).badgerOptions(dir, false).WithReadOnly(true))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			err = db.View(func(txn *badger.Txn) error {
				item, err := txn.Get(metaFormatKey)
				if err != nil {
					return err
				}
				return item.Value(func(got []byte) error {
					if !bytes.Equal(got, formatMarker) {
						return fmt.Errorf("marker %q after a read-write open, want %q", got, formatMarker)
					}
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// chunkAsVersion rewrites a chunk record as version v: an S2 chunk, which older versions do not
// have, is compressed with zstd instead.
func chunkAsVersion(chunk []byte, v byte) ([]byte, error) {
	rec, err := decodeRecord(chunk)
	if err != nil {
		return nil, err
	}
	if rec.codec == codecS2 {
		content, err := decodeS2(&rec, make([]byte, 0, rec.size))
		if err != nil {
			return nil, err
		}
		c, payload := compress(nil, content)
		chunk = appendChunk(nil, c, rec.size, payload)
	}
	chunk[0] = v
	return chunk, nil
}
