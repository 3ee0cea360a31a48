package badgerstore

import (
	"bytes"
	"reflect"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzDecodeRecord feeds arbitrary bytes to the decoder of stored values: it must never panic
// or allocate beyond the record limit, and whatever it accepts must encode back to a value it
// decodes identically. Seeds are in testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendInline(nil, 0, codecRaw, store.Digest{}, 5, []byte("hello")))
	f.Add(appendInline(nil, 0, codecDict, store.Sum([]byte("dictionary")), 5, []byte("hello")))
	f.Add(appendChunk(nil, codecRaw, 3, []byte("abc")))
	f.Add(appendChunkList(nil, 2, 7, []chunkRef{{key: store.Sum([]byte("a")), size: 3}, {key: store.Sum([]byte("b")), size: 4}}))
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, err := decodeRecord(v)
		if err != nil {
			return
		}
		if rec.typ != recChunkList {
			// Decompression is bounded by the declared size, itself bounded by the record limit.
			if content, err := fuzzStore(t).decodeContent(&rec, nil); err == nil && int64(len(content)) != rec.size {
				t.Fatalf("content of %d bytes, header says %d", len(content), rec.size)
			}
		}
		again, err := decodeRecord(reencode(rec))
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalize(again), normalize(rec)) {
			t.Fatalf("round trip changed the record:\n%+v\n%+v", rec, again)
		}
	})
}

func reencode(r record) []byte {
	switch r.typ {
	case recInline:
		code, _ := kindCode(r.kind)
		return appendInline(nil, code, r.codec, r.dict, r.size, r.payload)
	case recChunk:
		return appendChunk(nil, r.codec, r.size, r.payload)
	}
	code, _ := kindCode(r.kind)
	return appendChunkList(nil, code, r.size, r.chunks)
}

// normalize makes payloads comparable: an empty payload may be nil or not.
func normalize(r record) record {
	r.payload = bytes.Clone(r.payload)
	if len(r.payload) == 0 {
		r.payload = nil
	}
	return r
}

var (
	fuzzStoreOnce sync.Once
	fuzzStoreVal  *Store
)

// fuzzStore is an empty in-memory store for decoding records that name a dictionary (which it
// does not have).
func fuzzStore(t *testing.T) *Store {
	fuzzStoreOnce.Do(func() {
		s, err := OpenInMemory(Options{})
		if err != nil {
			t.Fatal(err)
		}
		fuzzStoreVal = s
	})
	return fuzzStoreVal
}
