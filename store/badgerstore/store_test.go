package badgerstore

import (
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// testChunkSize keeps the suite's chunking cases cheap: a 1 MiB blob is 256 chunks.
const testChunkSize = 4 << 10

func TestSuite(t *testing.T) {
	opts := Options{ChunkSize: testChunkSize}
	t.Run("disk", func(t *testing.T) {
		t.Parallel()
		storetest.Run(t, func(t *testing.T) store.Store {
			s, err := Open(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, storetest.WithCorrupter(flipStoredByte))
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		storetest.Run(t, func(t *testing.T) store.Store {
			s, err := OpenInMemory(opts)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, storetest.WithCorrupter(flipStoredByte))
	})
}

// flipStoredByte damages the last byte of an entry's stored value, through the open database.
func flipStoredByte(t *testing.T, st store.Store, e store.Entry) {
	t.Helper()
	s := st.(*Store)
	key := contentKey(e.Digest)
	if e.Chunk {
		key = chunkKey(e.Digest)
	}
	err := s.db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		v[len(v)-1] ^= 0x55
		return txn.Set(key, v)
	})
	if err != nil {
		t.Fatalf("corrupt %s: %v", e.Digest, err)
	}
}
