package badgerstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// Dictionaries (format version 3). Version 3 compressed a small record with one of the store's
// dictionaries as the compressor's history (codecDict): a dictionary is raw content, the small
// blobs and objects one session wrote. Version 4 writes packs instead (pack.go) and no new
// dictionary; it reads the records of a version 3 store that use one, and Compact removes the
// dictionaries no record uses any more.

const (
	// nsDict keys dictionaries: 'd' <digest of the dictionary's content> → an inline record
	// of that content (codecRaw or codecZstd).
	nsDict byte = 'd'
	// dictWindow is the compressor's window with a dictionary: the dictionary and the record.
	dictWindow = 8 << 20
)

// metaDictKey held the digests of version 3's active dictionaries; an upgrade removes it.
var metaDictKey = []byte{nsMeta, 'd', 'i', 'c', 't'}

func dictKey(d store.Digest) []byte { return append([]byte{nsDict}, d[:]...) }

// dictionary is a loaded dictionary.
type dictionary struct {
	id  store.Digest
	dec *zstd.Decoder
}

// dictionaries holds the store's loaded dictionaries.
type dictionaries struct {
	mu     sync.Mutex
	loaded map[store.Digest]*dictionary
}

// zstdDictID is the dictionary id written in frames. Each decoder knows one dictionary, so
// the id only has to be non-zero.
func zstdDictID(d store.Digest) uint32 { return binary.BigEndian.Uint32(d[:4]) | 1 }

func newDictionary(id store.Digest, raw []byte) (*dictionary, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderDictRaw(zstdDictID(id), raw),
		zstd.WithDecoderMaxMemory(maxChunkLimit), zstd.WithDecoderMaxWindow(dictWindow), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("badgerstore: dictionary %s: %w", id, err)
	}
	return &dictionary{id: id, dec: dec}, nil
}

// dictionary returns dictionary id, loading and verifying it on first use.
func (s *Store) dictionary(id store.Digest) (*dictionary, error) {
	s.dicts.mu.Lock()
	defer s.dicts.mu.Unlock()
	if d := s.dicts.loaded[id]; d != nil {
		return d, nil
	}
	var raw []byte
	err := s.viewValue(dictKey(id), func(v []byte) error {
		rec, err := decodeRecord(v)
		if err != nil {
			return err
		}
		if rec.typ != recInline || rec.codec == codecDict {
			return fmt.Errorf("%w: not a dictionary record", store.ErrCorrupt)
		}
		raw, err = s.decodeContent(&rec, nil)
		if err == nil && rec.codec == codecRaw {
			raw = bytes.Clone(raw)
		}
		return err
	})
	if errors.Is(err, errNoKey) {
		return nil, fmt.Errorf("%w: dictionary %s is missing", store.ErrCorrupt, id)
	}
	if err != nil {
		return nil, fmt.Errorf("dictionary %s: %w", id, err)
	}
	if got := store.Sum(raw); got != id {
		return nil, fmt.Errorf("%w: dictionary %s: content hashes to %s", store.ErrCorrupt, id, got)
	}
	d, err := newDictionary(id, raw)
	if err != nil {
		return nil, err
	}
	if s.dicts.loaded == nil {
		s.dicts.loaded = map[store.Digest]*dictionary{}
	}
	s.dicts.loaded[id] = d
	return d, nil
}

// pruneDictionaries deletes the dictionaries no record uses any more. Compact calls it after
// garbage collection.
func (s *Store) pruneDictionaries() error {
	used := map[store.Digest]bool{}
	var stored []store.Digest
	err := s.db.View(func(txn *badger.Txn) error {
		err := eachRecord(txn, func(rec *record) {
			if rec.typ == recInline && rec.codec == codecDict {
				used[rec.dict] = true
			}
		})
		if err != nil {
			return err
		}
		dit := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsDict}})
		defer dit.Close()
		for dit.Rewind(); dit.Valid(); dit.Next() {
			var d store.Digest
			if key := dit.Item().Key(); len(key) == 1+len(d) {
				copy(d[:], key[1:])
				stored = append(stored, d)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.dicts.mu.Lock()
	defer s.dicts.mu.Unlock()
	for _, d := range stored {
		if used[d] {
			continue
		}
		if err := s.update(len(d)+1, false, func(txn *badger.Txn) error { return txn.Delete(dictKey(d)) }); err != nil {
			return err
		}
		delete(s.dicts.loaded, d)
	}
	return nil
}

// InternalSize implements store.InternalSizer: what the dictionaries and the listing cache
// occupy, and the bytes of packs no record is counted for (see packedBytes).
func (s *Store) InternalSize(ctx context.Context) (int64, error) {
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.leave()
	var n int64
	err := s.db.View(func(txn *badger.Txn) error {
		for _, ns := range []byte{nsDict, nsListing} {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{ns}})
			for it.Rewind(); it.Valid(); it.Next() {
				n += int64(len(it.Item().Key())) + it.Item().ValueSize()
			}
			it.Close()
		}
		packed, err := packedBytes(ctx, txn)
		n += packed
		return err
	})
	return n, err
}
