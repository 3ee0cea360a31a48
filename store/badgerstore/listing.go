package badgerstore

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

var _ store.ListingCache = (*Store)(nil)

// nsListing keys the listing cache: 'l' <bundle digest> → the bundle's store.Listing, as
// canonical JSON (see doc.go).
const nsListing byte = 'l'

func listingKey(d store.Digest) []byte { return append([]byte{nsListing}, d[:]...) }

// PutListing implements store.ListingCache.
func (s *Store) PutListing(ctx context.Context, d store.Digest, listing []byte) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	v := append([]byte(nil), listing...)
	if err := s.update(len(v)+33, false, func(txn *badger.Txn) error { return txn.Set(listingKey(d), v) }); err != nil {
		return fmt.Errorf("badgerstore: keep the listing of %s: %w", d, err)
	}
	return nil
}

// DeleteListing implements store.ListingCache.
func (s *Store) DeleteListing(ctx context.Context, d store.Digest) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	if err := s.update(33, false, func(txn *badger.Txn) error { return txn.Delete(listingKey(d)) }); err != nil {
		return fmt.Errorf("badgerstore: drop the listing of %s: %w", d, err)
	}
	return nil
}

// Listings implements store.ListingCache, in one pass over the namespace.
func (s *Store) Listings(ctx context.Context) (map[store.Digest][]byte, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	out := map[store.Digest][]byte{}
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsListing}, PrefetchValues: true, PrefetchSize: 256})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			key := it.Item().Key()
			var d store.Digest
			if len(key) != 1+len(d) {
				continue // not a key this build writes
			}
			copy(d[:], key[1:])
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[d] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("badgerstore: listings: %w", err)
	}
	return out, nil
}
