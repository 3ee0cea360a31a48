package badgerstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// Dictionaries (format version 3). Two recordings of the same evaluation differ in little but
// their timestamps and identifiers; compressed one object at a time, each still costs a quarter
// of its size, where a tar | zstd stream of both costs little more than one. So the store keeps
// compression dictionaries: a dictionary is raw content (the small blobs and objects one
// session wrote, at most dictMaxContent bytes), and a small record may be compressed with one
// of the active dictionaries as the compressor's history (codecDict), which costs about what
// differs from that content. See "Dictionaries" in doc.go.

const (
	// nsDict keys dictionaries: 'd' <digest of the dictionary's content> → an inline record
	// of that content (codecRaw or codecZstd).
	nsDict byte = 'd'
	// dictMaxContent caps a dictionary.
	dictMaxContent = 4 << 20
	// dictMaxRecord is the largest content compressed with a dictionary: evidence objects and
	// small blobs, not the chunks of audit logs.
	dictMaxRecord = 1 << 20
	// dictMinSession is the least a session must write before its content becomes a
	// dictionary.
	dictMinSession = 16 << 10
	// dictWindow is the compressor's window with a dictionary: the dictionary and the record.
	dictWindow = 8 << 20
	// maxActive is how many dictionaries new records are tried against: recordings of a few
	// kinds (several agents, several evaluations) each keep one that fits them.
	maxActive = 4
)

// metaDictKey holds the digests of the active dictionaries, the newest first.
var metaDictKey = []byte{nsMeta, 'd', 'i', 'c', 't'}

func dictKey(d store.Digest) []byte { return append([]byte{nsDict}, d[:]...) }

// dictionary is a loaded dictionary.
type dictionary struct {
	id  store.Digest
	enc *zstd.Encoder // nil until the dictionary is used to compress
	dec *zstd.Decoder
	raw []byte
}

// dictionaries holds the store's loaded dictionaries, the active ones, and what the session
// (since the last Sync) wrote that could become the next.
type dictionaries struct {
	mu      sync.Mutex
	active  []store.Digest // newest first; loaded on first use, see dictionary
	loaded  map[store.Digest]*dictionary
	session bytes.Buffer
	// plain and packed sum, over the session's records, the size of each compressed alone
	// and its stored size: when no active dictionary saves half, the session's content
	// becomes one.
	plain, packed int64
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
	return &dictionary{id: id, dec: dec, raw: raw}, nil
}

// encoder returns the dictionary's compressor, made on first use.
func (d *dictionary) encoder() (*zstd.Encoder, error) {
	if d.enc != nil {
		return d.enc, nil
	}
	// SpeedDefault, not SpeedFastest: the fastest level's single small hash table forgets
	// most of a dictionary of a megabyte (a run measured 27 KB against 15 KB), and records
	// compressed with a dictionary are small.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(dictWindow), zstd.WithEncoderDictRaw(zstdDictID(d.id), d.raw))
	if err != nil {
		return nil, fmt.Errorf("badgerstore: dictionary %s: %w", d.id, err)
	}
	d.enc = enc
	return enc, nil
}

// loadActiveDictionaries reads which dictionaries are active, when the store is opened.
func (s *Store) loadActiveDictionaries() error {
	var ids []store.Digest
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(metaDictKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			if len(v)%digestSize != 0 || len(v) > maxActive*digestSize {
				return fmt.Errorf("%w: active dictionaries: a value of %d bytes", store.ErrCorrupt, len(v))
			}
			for ; len(v) > 0; v = v[digestSize:] {
				ids = append(ids, store.Digest(v[:digestSize]))
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	s.dicts.active = ids
	return nil
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

// compressRecord compresses the content of a new inline record: alone, and with each active
// dictionary, keeping the smallest. It also notes the content for the session's dictionary.
func (s *Store) compressRecord(content []byte) (c codec, dict store.Digest, payload []byte, err error) {
	c, payload = compress(make([]byte, 0, len(content)/2+64), content)
	if len(content) > dictMaxRecord {
		return c, dict, payload, nil
	}
	s.dicts.mu.Lock()
	ids := slices.Clone(s.dicts.active)
	s.dicts.mu.Unlock()
	active := make([]*dictionary, len(ids))
	encs := make([]*zstd.Encoder, len(ids))
	for i, id := range ids {
		if active[i], err = s.dictionary(id); err != nil {
			return 0, dict, nil, fmt.Errorf("badgerstore: active dictionary: %w", err)
		}
		s.dicts.mu.Lock()
		encs[i], err = active[i].encoder()
		s.dicts.mu.Unlock()
		if err != nil {
			return 0, dict, nil, err
		}
	}
	alone, stored := len(payload), len(payload)
	for i, enc := range encs {
		if withDict := enc.EncodeAll(content, nil); len(withDict)+digestSize < stored {
			c, dict, payload, stored = codecDict, active[i].id, withDict, len(withDict)+digestSize
		}
	}
	s.dicts.mu.Lock()
	defer s.dicts.mu.Unlock()
	s.dicts.plain += int64(alone)
	s.dicts.packed += int64(stored)
	if s.dicts.session.Len()+len(content) <= dictMaxContent {
		s.dicts.session.Write(content)
	}
	return c, dict, payload, nil
}

// rotateDictionary makes what the session wrote an active dictionary, the newest, when there
// is none or when none saved half of what the session's records would cost alone (the oldest
// of maxActive then stops being tried). Sync calls it, before it syncs, so a dictionary is
// durable before anything that uses it is reported durable.
func (s *Store) rotateDictionary() error {
	s.dicts.mu.Lock()
	defer s.dicts.mu.Unlock()
	sessionLen, plain, packed := s.dicts.session.Len(), s.dicts.plain, s.dicts.packed
	raw := bytes.Clone(s.dicts.session.Bytes())
	s.dicts.session.Reset()
	s.dicts.plain, s.dicts.packed = 0, 0
	if sessionLen < dictMinSession || (len(s.dicts.active) > 0 && 2*packed <= plain) {
		return nil
	}
	id := store.Sum(raw)
	d, err := newDictionary(id, raw)
	if err != nil {
		return err
	}
	active := append([]store.Digest{id}, s.dicts.active...)
	active = active[:min(len(active), maxActive)]
	var ids []byte
	for _, a := range active {
		ids = append(ids, a[:]...)
	}
	c, payload := compress(nil, raw)
	rec := appendInline(nil, 0, c, store.Digest{}, int64(len(raw)), payload)
	err = s.update(len(rec)+len(ids)+digestSize, true, func(txn *badger.Txn) error {
		if err := txn.Set(dictKey(id), rec); err != nil {
			return err
		}
		return txn.Set(metaDictKey, ids)
	})
	if err != nil {
		return fmt.Errorf("badgerstore: keep a dictionary: %w", err)
	}
	if s.dicts.loaded == nil {
		s.dicts.loaded = map[store.Digest]*dictionary{}
	}
	s.dicts.loaded[id], s.dicts.active = d, active
	return nil
}

// pruneDictionaries deletes the dictionaries no record uses any more, except the active ones.
// Compact calls it after garbage collection.
func (s *Store) pruneDictionaries() error {
	used := map[store.Digest]bool{}
	var stored []store.Digest
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsContent}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			err := it.Item().Value(func(v []byte) error {
				if rec, err := decodeRecord(v); err == nil && rec.codec == codecDict {
					used[rec.dict] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
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
		if used[d] || slices.Contains(s.dicts.active, d) {
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
// occupy.
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
		return nil
	})
	return n, err
}
