package badgerstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// GetObjects returns the verified canonical bytes of the structured objects ds names, in
// order: what GetObject returns for each, read with one lookup each where GetObject makes
// two (the record's header, then its content) — a reader of many small objects (kensa replay:
// every run's manifest and evidence) spends a fifth of its time in the store's lookups. The
// first failure is the error, naming its digest.
func (s *Store) GetObjects(ctx context.Context, ds []store.Digest) ([][]byte, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	out := make([][]byte, len(ds))
	for i, d := range ds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, content, err := s.loadContent(d)
		switch {
		case err != nil:
			return nil, err
		case rec.kind == "":
			return nil, fmt.Errorf("%w: %s is a blob, not a structured object", store.ErrNotFound, d)
		case rec.size > s.opts.MaxObjectSize:
			return nil, fmt.Errorf("%w: object %s has %d bytes, the limit is %d", store.ErrTooLarge, d, rec.size, s.opts.MaxObjectSize)
		case rec.typ == recChunkList: // a large object: read as GetObject reads it
			if content, err = s.GetObject(ctx, d); err != nil {
				return nil, err
			}
		}
		out[i] = content
	}
	return out, nil
}

// ReadOrder returns the indices of ds in the order in which they are read at least cost:
// records packed together (format version 4, "Packs" in doc.go) in the order they were packed,
// then the others in the order given. A reader of many small records in an order of its own
// (kensa replay reads runs in digest order, which is no order of writing) would decode a pack
// again for most records, the cache holding a few packs; in this order it decodes each once.
// A digest not stored, or whose record cannot be read, keeps its place among the others:
// reading it reports it.
func (s *Store) ReadOrder(ctx context.Context, ds []store.Digest) ([]int, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	type place struct {
		i      int
		pack   uint64 // 0: not packed
		offset int64
	}
	places := make([]place, len(ds))
	err := s.db.View(func(txn *badger.Txn) error {
		for i, d := range ds {
			if err := ctx.Err(); err != nil {
				return err
			}
			places[i].i = i
			item, err := txn.Get(contentKey(d))
			if err != nil {
				continue
			}
			_ = item.Value(func(v []byte) error {
				if rec, err := decodeRecord(v); err == nil && rec.typ == recPacked {
					places[i].pack, places[i].offset = rec.pack, rec.offset
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(places, func(a, b place) int {
		switch {
		case a.pack == 0 || b.pack == 0:
			return cmp.Compare(b.pack, a.pack) // packed first
		}
		return cmp.Or(cmp.Compare(a.pack, b.pack), cmp.Compare(a.offset, b.offset))
	})
	order := make([]int, len(ds))
	for k, p := range places {
		order[k] = p.i
	}
	return order, nil
}
