package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// Walk implements store.Store: blobs, objects and chunks in digest order (a blob or object
// before a chunk with the same digest). Walk reads headers, not content: an entry whose header
// cannot be decoded is reported with its digest and stored size only, and reading it fails with
// store.ErrCorrupt naming it. fn runs inside a read snapshot and may call other methods.
func (s *Store) Walk(ctx context.Context, fn func(store.Entry) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	return s.db.View(func(txn *badger.Txn) error {
		packs := map[uint64]packSizes{}
		blobs := newPrefixIter(txn, nsContent)
		defer blobs.close()
		chunks := newPrefixIter(txn, nsChunk)
		defer chunks.close()
		for blobs.valid() || chunks.valid() {
			if err := ctx.Err(); err != nil {
				return err
			}
			it := chunks
			if blobs.valid() && (!chunks.valid() || bytes.Compare(blobs.digestBytes(), chunks.digestBytes()) <= 0) {
				it = blobs
			}
			e, err := it.entry(txn, packs)
			if err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
			it.it.Next()
		}
		return nil
	})
}

// eachRecord calls fn with the decoded record of every blob and object in txn; records that do
// not decode are left out (reads of them report the damage). The payload fn sees aliases the
// transaction's memory.
func eachRecord(txn *badger.Txn, fn func(*record)) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsContent}})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		err := it.Item().Value(func(v []byte) error {
			if rec, err := decodeRecord(v); err == nil {
				fn(&rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// prefixIter iterates the keys of one namespace.
type prefixIter struct {
	it     *badger.Iterator
	prefix []byte
}

func newPrefixIter(txn *badger.Txn, ns byte) *prefixIter {
	p := &prefixIter{prefix: []byte{ns}}
	// Values are read through mmap in entry; prefetching would copy every chunk.
	p.it = txn.NewIterator(badger.IteratorOptions{Prefix: p.prefix})
	p.it.Rewind()
	return p
}

func (p *prefixIter) valid() bool { return p.it.ValidForPrefix(p.prefix) }
func (p *prefixIter) close()      { p.it.Close() }

func (p *prefixIter) digestBytes() []byte { return p.it.Item().Key()[1:] }

// entry describes the current item, looking the sizes of packs up in txn (and keeping them in
// packs). A key of the wrong length cannot be named by a digest, so it is an error rather than
// an entry.
func (p *prefixIter) entry(txn *badger.Txn, packs map[uint64]packSizes) (store.Entry, error) {
	item := p.it.Item()
	key := item.Key()
	if len(key) != 1+digestSize {
		return store.Entry{}, fmt.Errorf("%w: key %x in namespace %q is not a digest", store.ErrCorrupt, key, key[0])
	}
	d := store.Digest(key[1:])
	var e store.Entry
	err := item.Value(func(v []byte) error {
		rec, err := decodeRecord(v)
		if err != nil {
			// Reported by digest only; reads of it fail with the decoding error.
			e = store.Entry{Digest: d, StoredSize: int64(len(v)), Chunk: key[0] == nsChunk}
			return nil
		}
		stored := int64(len(v))
		if rec.typ == recPacked {
			sizes, ok := packs[rec.pack]
			if !ok {
				sizes = sizesOf(txn, rec.pack)
				packs[rec.pack] = sizes
			}
			stored += sizes.share(rec.size)
		}
		e = entryOf(d, rec, stored)
		e.Chunk = key[0] == nsChunk
		return nil
	})
	return e, err
}

// Delete implements store.Store: it removes the blob or object d or, when d names only a chunk,
// that chunk. Deleting what is not there is not an error, so an interrupted collection can be
// run again.
func (s *Store) Delete(ctx context.Context, d store.Digest) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	key := contentKey(d)
	found, err := s.has(key)
	if err != nil {
		return fmt.Errorf("badgerstore: delete %s: %w", d, err)
	}
	if !found {
		key = chunkKey(d)
	}
	return s.deleteKey(key, d)
}

// DeleteChunk removes the chunk d, leaving a blob or object with the same digest alone.
func (s *Store) DeleteChunk(ctx context.Context, d store.Digest) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	return s.deleteKey(chunkKey(d), d)
}

func (s *Store) deleteKey(key []byte, d store.Digest) error {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	if err := s.update(len(key)+32, false, func(txn *badger.Txn) error { return txn.Delete(key) }); err != nil {
		return fmt.Errorf("badgerstore: delete %s: %w", d, err)
	}
	return nil
}

// Compact reclaims the space of deleted values: Badger rewrites value-log files that are at
// least half garbage. Deleted values kept in the LSM tree are dropped by its own compactions.
// It is a no-op in memory.
func (s *Store) Compact(ctx context.Context) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	if err := s.pruneDictionaries(); err != nil {
		return fmt.Errorf("badgerstore: compact: %w", err)
	}
	if err := s.prunePacks(); err != nil {
		return fmt.Errorf("badgerstore: compact: %w", err)
	}
	if s.dir == "" {
		return nil
	}
	for ctx.Err() == nil {
		// A value-log compaction copies what is still live in a file (at most half of it)
		// into the current one before it deletes the file.
		if err := s.space.admit(valueLogFileSize/2, false); err != nil {
			return fmt.Errorf("badgerstore: compact: %w", err)
		}
		err := s.db.RunValueLogGC(0.5)
		s.space.done(valueLogFileSize / 2)
		if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("badgerstore: compact: %w", err)
		}
	}
	return ctx.Err()
}

// Sync implements store.Store: it fsyncs Badger's write-ahead logs, so everything written
// before the call survives a power loss.
func (s *Store) Sync(ctx context.Context) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if s.opts.ReadOnly {
		return nil // nothing was written
	}
	if err := s.cutPack(); err != nil {
		return err
	}
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("badgerstore: sync: %w", err)
	}
	return nil
}
