package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Sentinel errors of the engine. Content errors use the store package's sentinels.
var (
	// ErrLocked: another process has the store open.
	ErrLocked = errclass.New(errclass.InUse, "badgerstore: locked")
	// ErrNotStore: the directory exists but does not hold a store.
	ErrNotStore = errclass.New(errclass.Input, "badgerstore: not a store")
	// ErrClosed: the store was closed.
	ErrClosed = errclass.New(errclass.Internal, "badgerstore: store is closed")
	// ErrReadOnly: a write on a store opened read-only.
	ErrReadOnly = errclass.New(errclass.Internal, "badgerstore: store is read-only")
	// ErrNeedsRecovery: a read-only open of a store whose writer did not close it; replaying
	// its log needs a read-write open.
	ErrNeedsRecovery = errclass.New(errclass.InUse, "badgerstore: store needs recovery")
	// ErrNoSpace: the file system holding the store has too little free space for a write, or
	// for the work the store must be able to do after it. Nothing was written.
	ErrNoSpace = errclass.New(errclass.Environment, "badgerstore: not enough free space")
)

// Store is the embedded implementation of store.Store on Badger. It is safe for concurrent use.
type Store struct {
	db    *badger.DB
	opts  Options
	dir   string      // "" in memory
	lock  *dirLock    // nil in memory
	space *spaceGuard // nil in memory, read-only, or where free space is unknown
	// chunkBufs holds free buffers of ChunkSize bytes for chunking and
	// decompression. It is a bounded free list rather than a sync.Pool because a pool is
	// emptied at every garbage collection, and refilling it means allocating and zeroing
	// megabytes per chunk.
	chunkBufs chan *[]byte
	// recordMu serializes writes of content records (see writeContentRecord).
	recordMu sync.Mutex
	// claims keeps a failed write from deleting chunks other writes use (claims.go).
	claims claims
	// dicts are the compression dictionaries of format version 3 (dict.go).
	dicts dictionaries
	// packs are the packs of small records (pack.go).
	packs packs

	mu     sync.Mutex
	closed bool
	active sync.WaitGroup // operations in progress; Close waits for them
}

var _ store.Store = (*Store)(nil)

// Key namespaces: one byte, then a 32-byte binary digest (or a ref name).
const (
	nsContent byte = 'b' // blobs and structured objects, inline or as a chunk list
	nsChunk   byte = 'k' // chunks of large blobs and objects
	nsRef     byte = 'r' // refs: the name after the byte
	nsMeta    byte = 'm' // store metadata
)

// metaFormatKey holds the store format marker. A Badger directory without it is someone
// else's database.
var metaFormatKey = []byte{nsMeta, 'f', 'o', 'r', 'm', 'a', 't'}

// formatMarker is the value under metaFormatKey. Its last byte is the format version, the
// same as formatVersion. A store of version 2 or 3 is read as it is, and becomes version 4
// when it is first opened for writing (versions 3 and 4 only add to what the previous one
// wrote); any other version is refused when it is opened (version 1 named chunks by the digest
// of their own bytes, which this build no longer reads).
var formatMarker = []byte("oasis-replay store\x00\x04")

// upgradable reports whether marker is that of a version this one extends: 2 or 3.
func upgradable(marker []byte) bool {
	prefix := formatMarker[:len(formatMarker)-1]
	return len(marker) == len(formatMarker) && bytes.HasPrefix(marker, prefix) &&
		(marker[len(marker)-1] == 2 || marker[len(marker)-1] == 3)
}

func contentKey(d store.Digest) []byte { return append([]byte{nsContent}, d[:]...) }
func chunkKey(d store.Digest) []byte   { return append([]byte{nsChunk}, d[:]...) }
func refKey(name string) []byte        { return append([]byte{nsRef}, name...) }

// JournalsDir is the directory inside a store directory reserved for the journals of live
// recordings (package recorder/journal): Open ignores it, and a store directory holding only
// it is empty. The journals are not part of the store; they are sealed into it.
const JournalsDir = "journals"

// Open opens the store in dir, creating it if dir does not exist or is empty (unless
// opts.ReadOnly). A directory holding anything else is refused with ErrNotStore, and a store
// another process holds open (after waiting up to opts.LockWait) with ErrLocked.
func Open(dir string, opts Options) (*Store, error) {
	return OpenContext(context.Background(), dir, opts)
}

// OpenContext is Open whose wait for the lock ends with ctx.
func OpenContext(ctx context.Context, dir string, opts Options) (*Store, error) {
	o, err := opts.resolved(false)
	if err != nil {
		return nil, err
	}
	fresh, err := checkDir(dir, o.ReadOnly)
	if err != nil {
		return nil, err
	}
	if fresh {
		// Badger creates the directory; the lock needs it first.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("badgerstore: %w", err)
		}
	}
	lock, err := lockForOpen(ctx, dir, o)
	if err != nil {
		return nil, err
	}
	s, err := openLocked(dir, o, fresh)
	if err != nil {
		lock.release()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

// lockForOpen takes the directory lock an open needs, after removing what a process killed
// while opening the store can leave behind (see removeStaleLogs), which needs the lock
// exclusively for a moment.
func lockForOpen(ctx context.Context, dir string, o Options) (*dirLock, error) {
	lock, err := lockDir(ctx, dir, !o.ReadOnly, o.LockWait, o.OnLockWait)
	if err != nil {
		return nil, err
	}
	stale, err := staleLogs(dir)
	if err != nil || len(stale) == 0 {
		if err != nil {
			lock.release()
		}
		return lock, err
	}
	if o.ReadOnly {
		// Only the holder of the exclusive lock may remove files: no writer can be creating
		// them then.
		lock.release()
		if lock, err = lockDir(ctx, dir, true, o.LockWait, o.OnLockWait); err != nil {
			return nil, err
		}
	}
	if err := removeStaleLogs(dir); err != nil {
		lock.release()
		return nil, err
	}
	if o.ReadOnly {
		lock.release()
		return lockDir(ctx, dir, false, o.LockWait, o.OnLockWait)
	}
	return lock, nil
}

// openLocked opens Badger in dir, whose lock the caller holds.
func openLocked(dir string, o Options, fresh bool) (*Store, error) {
	var guard *spaceGuard
	if o.ReadOnly {
		if err := checkLogReadable(dir, o.freeSpace); err != nil {
			return nil, err
		}
	} else {
		var err error
		if guard, err = newSpaceGuard(dir, o, o.freeSpace); err != nil {
			return nil, err
		}
	}
	db, err := badger.Open(o.badgerOptions(dir, false))
	if err != nil {
		// Badger does not wrap these conditions in sentinel errors; its messages are matched
		// here, and the tests pin both so an upgrade that changes them fails loudly.
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("%w: store %s is in use by another process", ErrLocked, dir)
		}
		if o.ReadOnly && strings.Contains(err.Error(), "Log truncate required") {
			return nil, fmt.Errorf("%w: store %s was not closed cleanly; open it read-write once to replay its log", ErrNeedsRecovery, dir)
		}
		return nil, fmt.Errorf("badgerstore: open %s: %w", dir, noSpace(dir, err))
	}
	s := newStore(db, o, dir)
	s.space = guard
	if err := s.checkFormat(fresh); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return s, nil
}

// OpenInMemory opens an empty store that lives in memory only, for tests and one-shot
// verification. ReadOnly is ignored.
func OpenInMemory(opts Options) (*Store, error) {
	opts.ReadOnly = false
	o, err := opts.resolved(true)
	if err != nil {
		return nil, err
	}
	db, err := badger.Open(o.badgerOptions("", true))
	if err != nil {
		return nil, fmt.Errorf("badgerstore: open in memory: %w", err)
	}
	s := newStore(db, o, "")
	if err := s.checkFormat(true); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func newStore(db *badger.DB, o Options, dir string) *Store {
	// Enough buffers for a writer's pipeline (reader, queue, workers) and a reader's
	// read-ahead; more are allocated when concurrent operations need them.
	return &Store{db: db, opts: o, dir: dir, chunkBufs: make(chan *[]byte, 4*o.Workers+4)}
}

// CheckDir reports whether a store can be created or opened in dir, without opening it (nor
// waiting for another process that holds it): ErrNotStore when dir is a file or holds other
// files. It does not tell a store from another program's Badger database; Open does.
func CheckDir(dir string) error {
	_, err := checkDir(dir, false)
	return err
}

// checkDir reports whether dir is absent or empty (a new store), and refuses files and
// directories that hold something other than a Badger database.
func checkDir(dir string, readOnly bool) (fresh bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if readOnly {
			return false, fmt.Errorf("%w: %s does not exist", ErrNotStore, dir)
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("badgerstore: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%w: %s is not a directory", ErrNotStore, dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("badgerstore: %w", err)
	}
	entries = slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return e.Name() == JournalsDir && e.IsDir() })
	if len(entries) == 0 {
		if readOnly {
			return false, fmt.Errorf("%w: %s is empty", ErrNotStore, dir)
		}
		return true, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return false, fmt.Errorf("%w: %s holds other files (no store MANIFEST)", ErrNotStore, dir)
	}
	return false, nil
}

// checkFormat writes the format marker into a new store, or checks it in an existing one. A
// Badger database with keys but no marker belongs to another program; one with no keys at all
// is a store whose creation was interrupted before the marker was written.
func (s *Store) checkFormat(fresh bool) error {
	var marker []byte
	empty := true
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(metaFormatKey)
		if err == nil {
			marker, err = item.ValueCopy(nil)
			return err
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		return nil
	})
	if err != nil {
		return fmt.Errorf("badgerstore: read format marker: %w", err)
	}
	switch {
	case marker != nil && bytes.Equal(marker, formatMarker):
		return s.loadBases()
	case upgradable(marker) && s.opts.ReadOnly:
		return nil
	case upgradable(marker):
		// Upgrade: what this build writes from now on is version 4, which has no active
		// dictionaries.
		err := s.update(len(metaFormatKey)+len(formatMarker), false, func(txn *badger.Txn) error {
			if err := txn.Delete(metaDictKey); err != nil {
				return err
			}
			return txn.Set(metaFormatKey, formatMarker)
		})
		if err == nil {
			err = s.db.Sync()
		}
		if err != nil {
			return fmt.Errorf("badgerstore: upgrade the store from format %s to %s: %w", describeFormat(marker), describeFormat(formatMarker), err)
		}
		return nil
	case marker != nil:
		return fmt.Errorf("%w: store format %s, this build reads %s; read it with a build of its version, which can export its bundles for this one to import",
			store.ErrUnsupportedVersion, describeFormat(marker), describeFormat(formatMarker))
	case !fresh && !empty:
		return fmt.Errorf("%w: a Badger database without the oasis-replay format marker", ErrNotStore)
	case s.opts.ReadOnly:
		return fmt.Errorf("%w: no format marker", ErrNotStore)
	}
	if err := s.update(len(metaFormatKey)+len(formatMarker), false, func(txn *badger.Txn) error { return txn.Set(metaFormatKey, formatMarker) }); err != nil {
		return fmt.Errorf("badgerstore: write format marker: %w", err)
	}
	return s.db.Sync()
}

// describeFormat names a format marker by its version when it has the shape of this one's.
func describeFormat(marker []byte) string {
	prefix := formatMarker[:len(formatMarker)-1]
	if len(marker) == len(formatMarker) && bytes.HasPrefix(marker, prefix) {
		return fmt.Sprintf("version %d", marker[len(marker)-1])
	}
	return fmt.Sprintf("%q", marker)
}

// update runs one write transaction of about n bytes, after the space guard admits it.
func (s *Store) update(n int, content bool, fn func(txn *badger.Txn) error) error {
	if err := s.space.admit(int64(n), content); err != nil {
		return err
	}
	defer s.space.done(int64(n))
	return noSpace(s.dir, s.db.Update(fn))
}

// enter registers an operation; it fails once the store is closed.
func (s *Store) enter() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.active.Add(1)
	return nil
}

func (s *Store) leave() { s.active.Done() }

// enterWrite is enter for operations that write.
func (s *Store) enterWrite() error {
	if s.opts.ReadOnly {
		return ErrReadOnly
	}
	return s.enter()
}

// Close waits for operations in progress, then closes the database. Writes not yet synced
// survive a process exit but not a power loss. Closing twice is not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.active.Wait()
	err := s.db.Close()
	if lockErr := s.lock.release(); err == nil {
		err = lockErr
	}
	if err != nil {
		return fmt.Errorf("badgerstore: close: %w", err)
	}
	return nil
}

// Dir returns the store directory, or "" for a store in memory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) getBuf() *[]byte {
	select {
	case b := <-s.chunkBufs:
		return b
	default:
		b := make([]byte, 0, s.opts.ChunkSize)
		return &b
	}
}

func (s *Store) putBuf(b *[]byte) {
	*b = (*b)[:0]
	select {
	case s.chunkBufs <- b:
	default: // enough spare buffers already
	}
}
