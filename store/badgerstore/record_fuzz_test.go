package badgerstore

import (
	"bytes"
	"reflect"
	"sync"
	"testing"

	"github.com/klauspost/compress/s2"

	"github.com/oasis-replay/oasis-replay/store"
)

// FuzzDecodeRecord feeds arbitrary bytes to the decoder of stored values: it must never panic
// or allocate beyond the record limit, and whatever it accepts must encode back to a value it
// decodes identically. Seeds are in testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	f.Add(appendInline(nil, 0, codecRaw, store.Digest{}, 5, []byte("hello")))
	f.Add(appendInline(nil, 0, codecDict, store.Sum([]byte("dictionary")), 5, []byte("hello")))
	f.Add(appendChunk(nil, codecRaw, 3, []byte("abc")))
	f.Add(appendChunk(nil, codecS2, 11, s2.Encode(nil, []byte("hello hello"))))
	f.Add(appendPack(nil, codecRaw, 5, store.Sum([]byte("hello")), 0, []byte("hello")))
	f.Add(appendPack(nil, codecDict, 5, store.Sum([]byte("hello")), 7, []byte("compressed")))
	f.Add(appendPacked(nil, 1, 120, 3, 4000))
	f.Add(appendChunkList(nil, 2, 7, []chunkRef{{key: store.Sum([]byte("a")), size: 3, after: chainState{tail: []byte("abc")}},
		{key: store.Sum([]byte("b")), size: 4, after: chainState{h: store.Sum([]byte("abcdefg")), tail: []byte("abcdefg")}}}))
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, err := decodeRecord(v)
		if err != nil {
			return
		}
		// Decompression is bounded by the declared size, itself bounded by the record limit.
		var content []byte
		switch rec.typ {
		case recInline, recChunk:
			content, err = fuzzStore(t).decodeContent(&rec, nil)
		case recPack:
			content, err = fuzzStore(t).decodePack(&rec)
		}
		if content != nil && err == nil && int64(len(content)) != rec.size {
			t.Fatalf("content of %d bytes, header says %d", len(content), rec.size)
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
	case recPack:
		return appendPack(nil, r.codec, r.size, r.sum, r.base, r.payload)
	case recPacked:
		code, _ := kindCode(r.kind)
		return appendPacked(nil, code, r.size, r.pack, r.offset)
	}
	code, _ := kindCode(r.kind)
	if !r.states {
		return appendChunkListV3(nil, 3, code, r.size, r.chunks)
	}
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
