package badgerstore

import (
	"context"
	"fmt"

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
