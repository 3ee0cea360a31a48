package badgerstore

import (
	"errors"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// maxBatchesInFlight bounds batches committing in the background while the next one fills.
const maxBatchesInFlight = 2

// errBatchDone reports a write queued after finish or cancel: a bug in the caller.
var errBatchDone = errors.New("badgerstore: write after the batch was finished")

// batcher feeds blind writes into Badger write batches from several goroutines, committing a
// batch in the background every size bytes so memory stays bounded while hashing and
// compression go on.
type batcher struct {
	db       *badger.DB
	space    *spaceGuard // admits every write before it is queued
	dir      string
	size     int // value bytes a batch gathers before it is handed off to commit (Options.WriteBatch)
	mu       sync.Mutex
	wb       *badger.WriteBatch
	pending  int
	inflight chan struct{}
	wg       sync.WaitGroup
	errMu    sync.Mutex
	err      error
}

func newBatcher(s *Store) *batcher {
	return &batcher{db: s.db, space: s.space, dir: s.dir, size: s.opts.WriteBatch, wb: s.db.NewWriteBatch(), inflight: make(chan struct{}, maxBatchesInFlight)}
}

// set queues one write. The value must not be modified afterwards.
func (b *batcher) set(key, value []byte) error {
	if err := b.failure(); err != nil {
		return err
	}
	n := len(key) + len(value)
	if err := b.space.admit(int64(n), true); err != nil {
		return err
	}
	b.mu.Lock()
	if b.wb == nil {
		b.mu.Unlock()
		b.space.done(int64(n))
		return errBatchDone
	}
	if err := b.wb.Set(key, value); err != nil {
		b.mu.Unlock()
		b.space.done(int64(n))
		return noSpace(b.dir, err)
	}
	b.pending += n
	if b.pending < b.size {
		b.mu.Unlock()
		return nil
	}
	full, admitted := b.wb, b.pending
	b.wb, b.pending = b.db.NewWriteBatch(), 0
	b.mu.Unlock()

	b.inflight <- struct{}{} // waits while maxBatchesInFlight batches commit
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.inflight }()
		b.record(full.Flush())
		b.space.done(int64(admitted))
	}()
	return nil
}

// finish commits everything queued and waits until all of it is applied: after it returns,
// the writes are visible to readers and ordered before any later write.
func (b *batcher) finish() error {
	b.mu.Lock()
	last, admitted := b.wb, b.pending
	b.wb, b.pending = nil, 0
	b.mu.Unlock()
	b.record(last.Flush())
	b.space.done(int64(admitted))
	b.wg.Wait()
	return b.failure()
}

// cancel drops what is not committed yet and waits for commits in flight. Writes already
// committed stay: they are content-addressed and unreferenced, so garbage collection removes
// them.
func (b *batcher) cancel() {
	b.mu.Lock()
	if b.wb != nil {
		b.wb.Cancel()
		b.space.done(int64(b.pending))
		b.wb, b.pending = nil, 0
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *batcher) record(err error) {
	if err == nil {
		return
	}
	b.errMu.Lock()
	b.err = errors.Join(b.err, noSpace(b.dir, err))
	b.errMu.Unlock()
}

func (b *batcher) failure() error {
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}
