package badgerstore

import (
	"fmt"
	"runtime"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

// Options tune a store. The zero value gives the defaults, sized for a small machine.
type Options struct {
	// ReadOnly opens an existing store without writing to it. Several read-only processes may
	// share a store; a read-write process excludes all others.
	ReadOnly bool

	// ChunkSize is the size of the chunks larger content is cut into, at fixed offsets, and
	// the largest content stored in one piece. Default DefaultChunkSize on disk and
	// DefaultInMemoryChunkSize in memory; tests use a few KiB to exercise chunking cheaply.
	// Stores written with different chunk sizes read alike; only deduplication between
	// blobs written with different sizes is lost.
	ChunkSize int

	// MaxObjectSize caps a structured object (objects are decoded in memory). Default 64 MiB.
	MaxObjectSize int64

	// Workers compress chunks in parallel while the writer hashes them in order (default
	// GOMAXPROCS). OpenBlob fetches, decompresses and verifies twice as many chunks ahead of
	// its reader.
	Workers int

	// WriteBatch is how many bytes of chunks a large write gathers before it commits them
	// (default DefaultWriteBatch). Badger sizes its transactions by key count for values kept
	// in the value log, so without this bound a batch of large chunks would hold gigabytes in
	// memory; a writer holds up to three batches at once (one filling, two committing).
	WriteBatch int

	// ValueThreshold is the stored value size from which Badger keeps a value in its value
	// log rather than in the LSM tree (default DefaultValueThreshold; ignored in memory).
	ValueThreshold int64

	// SmallMemory keeps the store's own memory small, for writers with a tight budget (a live
	// recording sealing its journal): packs of small records are compressed at zstd's default
	// level rather than its "better" one, whose match tables take about 36 MiB for the moment
	// a pack is cut, against 16 (see "Packs" in doc.go).
	SmallMemory bool

	// LockWait is how long Open waits for another process to release the store (a writer
	// excludes everyone; readers exclude a writer) before it gives up with ErrLocked. Zero
	// fails at once.
	LockWait time.Duration

	// OnLockWait, if set, is called once when Open starts waiting for the lock, with the
	// holder ("pid 1234") when the store knows it, else "".
	OnLockWait func(holder string)

	// freeSpace stands in for the file system's free space in tests (default freeSpace).
	freeSpace func(dir string) (int64, error)

	// Logf receives Badger's warnings and errors. Nil discards them: a store reports failures
	// through its errors, and a CLI must not print an engine's internals.
	Logf func(format string, args ...any)
}

// Defaults, chosen by the measurements in doc.go.
const (
	DefaultChunkSize         = 2 << 20
	DefaultInMemoryChunkSize = 256 << 10
	DefaultMaxObjectSize     = 64 << 20
	DefaultValueThreshold    = 64 << 10
	DefaultWriteBatch        = 4 << 20

	// Badger's memtables: how many, and how large. Their logs and flushes are part of the
	// free space the store keeps (space.go).
	badgerMemtables    = 2
	badgerMemtableSize = 16 << 20
	// valueLogFileSize bounds a value-log file, and so what one value-log compaction rewrites.
	valueLogFileSize = 64 << 20

	// minChunkSize keeps chunk lists and per-chunk overhead sane.
	minChunkSize = 1 << 10
	// inMemoryValueLimit is Badger's largest value in memory mode (its maximum value
	// threshold): a chunk, compressed or not, must fit with its header.
	inMemoryValueLimit = 1 << 20
)

// resolved fills in defaults and checks the options.
func (o Options) resolved(inMemory bool) (Options, error) {
	if o.ChunkSize == 0 {
		o.ChunkSize = DefaultChunkSize
		if inMemory {
			o.ChunkSize = DefaultInMemoryChunkSize
		}
	}
	limit := maxChunkLimit
	if inMemory {
		limit = inMemoryValueLimit - maxRecordHeader
	}
	if o.ChunkSize < minChunkSize || o.ChunkSize > limit {
		return o, fmt.Errorf("badgerstore: chunk size %d out of range [%d, %d]", o.ChunkSize, minChunkSize, limit)
	}
	if o.MaxObjectSize == 0 {
		o.MaxObjectSize = DefaultMaxObjectSize
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.ValueThreshold == 0 {
		o.ValueThreshold = DefaultValueThreshold
	}
	if o.freeSpace == nil {
		o.freeSpace = freeSpace
	}
	if o.WriteBatch <= 0 {
		o.WriteBatch = DefaultWriteBatch
	}
	return o, nil
}

// badgerOptions sizes Badger for a 2-core, small-memory machine: two small memtables, no block
// cache (blocks are not compressed, so reads come straight from the memory-mapped tables), a
// bounded index cache, two compactors and one version per key. Badger's own compression is off
// because values are already zstd-compressed by the store.
func (o Options) badgerOptions(dir string, inMemory bool) badger.Options {
	bo := badger.DefaultOptions(dir).
		WithLogger(quietLogger{logf: o.Logf}).
		WithReadOnly(o.ReadOnly).
		WithCompression(options.None).
		WithNumVersionsToKeep(1).
		WithNumMemtables(badgerMemtables).
		WithMemTableSize(badgerMemtableSize).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(8).
		WithBaseTableSize(4 << 20).
		WithBlockCacheSize(0).
		WithIndexCacheSize(16 << 20).
		WithNumCompactors(2).
		// A writer that closes leaves at most one level-0 table behind: without this, stores
		// written by many short commands pile up level-0 tables that every later read must
		// consult (1,000 record commands made `bundle ls` four times slower).
		WithCompactL0OnClose(true).
		WithValueLogFileSize(valueLogFileSize).
		WithValueThreshold(o.ValueThreshold).
		WithMetricsEnabled(false).
		// The store takes the directory lock itself, so that it can wait for it.
		WithBypassLockGuard(ownLock && !inMemory).
		// Content-addressed keys are written blindly; refs are single-key writes. Nothing
		// needs serializable conflict detection.
		WithDetectConflicts(false)
	if inMemory {
		bo = bo.WithDir("").WithValueDir("").WithInMemory(true).
			WithValueThreshold(inMemoryValueLimit).
			WithMemTableSize(8 * inMemoryValueLimit)
	}
	return bo
}

// quietLogger routes Badger's log lines to Logf, or nowhere.
type quietLogger struct{ logf func(string, ...any) }

func (l quietLogger) Errorf(f string, a ...any) { l.log("error: "+f, a...) }

func (l quietLogger) Warningf(f string, a ...any) { l.log("warning: "+f, a...) }

func (quietLogger) Infof(string, ...any)  {}
func (quietLogger) Debugf(string, ...any) {}

func (l quietLogger) log(f string, a ...any) {
	if l.logf != nil {
		l.logf("badger "+f, a...)
	}
}
