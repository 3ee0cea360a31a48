package badgerstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// Badger writes its files through writable memory maps: the memtable logs, the value log and
// every table it builds are created at their full length (sparse) and filled by copying into
// the mapping. When the file system cannot allocate a page the process gets SIGBUS, not an
// error, and dies wherever it stands. The space guard keeps that from happening: before each
// write it checks that the file system keeps enough free space for the write and for the work
// Badger may still do on its own (see spaceReserve), and refuses the write with ErrNoSpace
// otherwise. See "Free space" in doc.go.

// Space the guard keeps free, on top of Badger's reserve (see spaceReserve).
const (
	// contentMargin is left free by new content (blobs, objects), so that a store refused for
	// lack of space can still be opened read-write to recover its log or collect garbage.
	contentMargin = 16 << 20
	// reserveSlack covers the small files a read-write open and a close write: the headers of
	// a new memtable and value-log file, the discard statistics, manifest rewrites.
	reserveSlack = 8 << 20
)

// spaceGuard admits writes while the file system holding dir keeps enough free space.
type spaceGuard struct {
	dir     string
	reserve int64
	free    func(dir string) (int64, error)
	// pending counts bytes admitted and not yet committed: they are not allocated on disk yet,
	// so the file system's free space does not show them.
	pending atomic.Int64
}

// spaceReserve is what Badger may write on its own, beyond the writes the store makes: flushing
// every memtable to a table, compacting the whole LSM tree (a compaction writes its output
// before it deletes its input), flushing the memtable logs a killed writer left behind, plus
// reserveSlack.
func spaceReserve(dir string, memtables int, memtableSize int64) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("badgerstore: %w", err)
	}
	reserve := int64(memtables)*memtableSize + reserveSlack
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sst") && !strings.HasSuffix(name, ".mem") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		size := info.Size()
		if n, ok := allocated(info.Sys()); ok && n < size {
			size = n // a sparse memtable log holds only what was written
		}
		reserve += size
	}
	return reserve, nil
}

// newSpaceGuard measures the reserve of the store in dir and checks that the file system has
// it now: a read-write open writes too, so without it the open itself could die of SIGBUS.
// free is freeSpace, or a test's stand-in. A system where free space is unknown gets no guard.
func newSpaceGuard(dir string, o Options, free func(string) (int64, error)) (*spaceGuard, error) {
	if _, err := free(dir); err != nil {
		return nil, nil
	}
	reserve, err := spaceReserve(dir, badgerMemtables, badgerMemtableSize)
	if err != nil {
		return nil, err
	}
	g := &spaceGuard{dir: dir, reserve: reserve, free: free}
	if err := g.admit(0, false); err != nil {
		return nil, err
	}
	return g, nil
}

// logReadReserve is the free space a read-only open needs to read the memtable logs a killed
// writer left. Badger reads them through memory maps up to the first invalid entry, which lies
// in the unwritten, sparse part of the file; on tmpfs, a fault on such a page allocates it even
// for reading, and the process gets SIGBUS when the file system is full.
const logReadReserve = 4 << 20

// checkLogReadable refuses a read-only open that would read memtable logs on a file system with
// less than logReadReserve free.
func checkLogReadable(dir string, free func(string) (int64, error)) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("badgerstore: %w", err)
	}
	if !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), ".mem") }) {
		return nil
	}
	n, err := free(dir)
	if err != nil || n >= logReadReserve {
		return nil
	}
	return fmt.Errorf("%w: store %s was not closed cleanly, and reading the log its writer left needs %s free on its file system, which has %s: "+
		"free some space and retry", ErrNoSpace, dir, mib(logReadReserve), mib(n))
}

// admit checks that n more bytes can be written and counts them as pending until done. New
// content keeps contentMargin free as well; refs, deletions and compaction only the reserve.
func (g *spaceGuard) admit(n int64, content bool) error {
	if g == nil {
		return nil
	}
	free, err := g.free(g.dir)
	if err != nil {
		return fmt.Errorf("badgerstore: free space of %s: %w", g.dir, err)
	}
	need := g.reserve + g.pending.Load() + n
	if content {
		need += contentMargin
	}
	if free < need {
		what := "open it for writing"
		if n > 0 {
			what = fmt.Sprintf("write %s", mib(n))
		}
		return fmt.Errorf("%w: store %s: its file system has %s free; to %s it needs %s free, of which %s for the store's own "+
			"flushes and compactions: free some space, or use a store on another file system (--store)",
			ErrNoSpace, g.dir, mib(free), what, mib(need), mib(g.reserve))
	}
	g.pending.Add(n)
	return nil
}

// done releases bytes admitted earlier, once they are written (or dropped).
func (g *spaceGuard) done(n int64) {
	if g != nil {
		g.pending.Add(-n)
	}
}

// mib formats a byte count in MiB.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// noSpace turns Badger's report of a full file system, which it returns as text, into
// ErrNoSpace.
func noSpace(dir string, err error) error {
	if err != nil && strings.Contains(err.Error(), "no space left on device") {
		return fmt.Errorf("%w: store %s: the file system is full: %v", ErrNoSpace, filepath.Clean(dir), err)
	}
	return err
}
