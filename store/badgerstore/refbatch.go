package badgerstore

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// SetRefs implements store.RefBatchSetter: the refs in transactions of refsPerTxn (one for a
// usual batch), fsynced once before SetRefs returns, together with everything written before.
func (s *Store) SetRefs(ctx context.Context, refs []store.Ref) error {
	for _, r := range refs {
		if err := store.ValidateRefName(r.Name); err != nil {
			return err
		}
		if r.Digest.IsZero() {
			return fmt.Errorf("%w: ref %q: zero digest", store.ErrInvalidRef, r.Name)
		}
	}
	if err := s.enterWrite(); err != nil {
		return err
	}
	defer s.leave()
	for start := 0; start < len(refs); start += refsPerTxn {
		chunk := refs[start:min(start+refsPerTxn, len(refs))]
		n := 0
		for _, r := range chunk {
			n += len(r.Name) + 2*len(r.Digest)
		}
		err := s.update(n, false, func(txn *badger.Txn) error {
			for _, r := range chunk {
				if err := txn.Set(refKey(r.Name), encodeRef(r.Digest)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("badgerstore: set refs: %w", err)
		}
	}
	if err := s.db.Sync(); err != nil {
		return fmt.Errorf("badgerstore: set refs: %w", err)
	}
	return nil
}

// refsPerTxn bounds the refs of one transaction, well under Badger's transaction size limit.
const refsPerTxn = 1024
