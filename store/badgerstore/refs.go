package badgerstore

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// refValueVersion opens every ref value, followed by the 32-byte digest.
const refValueVersion = 1

func encodeRef(d store.Digest) []byte { return append([]byte{refValueVersion}, d[:]...) }

func decodeRef(name string, v []byte) (store.Digest, error) {
	if len(v) != 1+digestSize || v[0] != refValueVersion {
		return store.Digest{}, fmt.Errorf("%w: ref %q: value of %d bytes is not a version %d digest", store.ErrCorrupt, name, len(v), refValueVersion)
	}
	return store.Digest(v[1:]), nil
}

// SetRef implements store.Store. The write is fsynced before SetRef returns, together with
// everything written before it: a ref never survives a crash that its target did not.
func (s *Store) SetRef(ctx context.Context, name string, d store.Digest) error {
	if err := store.ValidateRefName(name); err != nil {
		return err
	}
	if d.IsZero() {
		return fmt.Errorf("%w: ref %q: zero digest", store.ErrInvalidRef, name)
	}
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	err := s.update(len(name)+64, false, func(txn *badger.Txn) error { return txn.Set(refKey(name), encodeRef(d)) })
	if err == nil {
		err = s.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("badgerstore: set ref %q: %w", name, err)
	}
	return nil
}

// GetRef implements store.Store.
func (s *Store) GetRef(ctx context.Context, name string) (store.Digest, error) {
	if err := s.enter(); err != nil {
		return store.Digest{}, err
	}
	defer s.leave()
	var d store.Digest
	err := s.viewValue(refKey(name), func(v []byte) error {
		var err error
		d, err = decodeRef(name, v)
		return err
	})
	if err == errNoKey {
		return store.Digest{}, fmt.Errorf("%w: ref %q", store.ErrNotFound, name)
	}
	if err != nil {
		return store.Digest{}, fmt.Errorf("badgerstore: get ref %q: %w", name, err)
	}
	return d, nil
}

// DeleteRef implements store.Store. The removal is fsynced, so a deleted bundle ref stays
// deleted.
func (s *Store) DeleteRef(ctx context.Context, name string) error {
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	err := s.update(len(name)+32, false, func(txn *badger.Txn) error { return txn.Delete(refKey(name)) })
	if err == nil {
		err = s.db.Sync()
	}
	if err != nil {
		return fmt.Errorf("badgerstore: delete ref %q: %w", name, err)
	}
	return nil
}

// ListRefs implements store.Store. Keys sort bytewise, so the refs come out sorted by name.
func (s *Store) ListRefs(ctx context.Context, prefix string) ([]store.Ref, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	var refs []store.Ref
	err := s.db.View(func(txn *badger.Txn) error {
		p := refKey(prefix)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p, PrefetchValues: true, PrefetchSize: 64})
		defer it.Close()
		for it.Rewind(); it.ValidForPrefix(p); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			name := string(it.Item().Key()[1:])
			err := it.Item().Value(func(v []byte) error {
				d, err := decodeRef(name, v)
				refs = append(refs, store.Ref{Name: name, Digest: d})
				return err
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("badgerstore: list refs %q: %w", prefix, err)
	}
	return refs, nil
}
