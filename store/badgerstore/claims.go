package badgerstore

import (
	"sync"

	"github.com/oasis-replay/oasis-replay/store"
)

// claims counts, per chunk key, the writes of this process that use it: the writes in
// progress, and every write that completed (a completed write never gives its claims back, its
// chunk list names the chunks). A failed write deletes the chunks it wrote only if nothing else
// claims them. The store is open in one writing process at a time, so a chunk another process
// wrote was present before this process wrote anything: a failed write never wrote it, and
// never deletes it.
type claims struct {
	mu    sync.Mutex
	count map[store.Digest]int
}

// claim records that a write uses key. A write claims a key before it looks for the chunk, so
// a rollback that runs after the claim keeps the chunk, and one that ran before removed it
// before the look-up, which then writes it again.
func (c *claims) claim(key store.Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == nil {
		c.count = map[store.Digest]int{}
	}
	c.count[key]++
}

// release gives back the claims of a failed write and deletes, in one transaction, the chunks
// it wrote that nobody claims any more.
func (c *claims) release(s *Store, claimed, written []store.Digest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range claimed {
		if c.count[k]--; c.count[k] <= 0 {
			delete(c.count, k)
		}
	}
	var gone [][]byte
	for _, k := range written {
		if c.count[k] == 0 {
			gone = append(gone, chunkKey(k))
		}
	}
	if len(gone) == 0 {
		return nil
	}
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for _, key := range gone {
		if err := wb.Delete(key); err != nil {
			return err
		}
	}
	return noSpace(s.dir, wb.Flush())
}
