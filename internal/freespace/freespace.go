package freespace

import (
	"fmt"
	"io"
	"sync"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrNoSpace: a write would leave less than Margin free on its file system.
var ErrNoSpace = errclass.New(errclass.Environment, "freespace: not enough free space")

// Margin is the free space every spool write leaves: the store's margin for new content
// (store/badgerstore's contentMargin), so that a spool filling the disk the store is on stops
// where the store itself would, and the store can still be opened to seal or collect garbage.
const Margin = 16 << 20

// Recheck is how many bytes a guard admits on one measure of the free space.
const Recheck = 1 << 20

// Func returns the bytes an unprivileged process may still write on the file system holding
// dir.
type Func func(dir string) (int64, error)

// Guard admits writes to one directory while its file system keeps Margin free. Its methods
// may be called from several goroutines; one guard shared by every writer of a spool counts
// all of them.
type Guard struct {
	dir  string
	free Func

	mu       sync.Mutex
	measured bool
	avail    int64 // free space at the last measure
	since    int64 // bytes admitted since
}

// New returns a guard for writes under dir, measuring free space with free (nil: Statfs).
func New(dir string, free Func) *Guard {
	if free == nil {
		free = Statfs
	}
	return &Guard{dir: dir, free: free}
}

// Admit reports whether n more bytes may be written, counting them when they may. A nil guard
// admits everything.
func (g *Guard) Admit(n int64) error {
	if g == nil || n <= 0 {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.measured || g.since+n > Recheck || g.avail-g.since-n < Margin+Recheck {
		avail, err := g.free(g.dir)
		if err != nil {
			return nil // unknown: admitted, as the store admits writes it cannot measure
		}
		g.measured, g.avail, g.since = true, avail, 0
	}
	if left := g.avail - g.since - n; left < Margin {
		return fmt.Errorf("%w: writing %d bytes under %s would leave %d bytes free on its file system, less than the margin of %s (%d bytes) kept free for the store: free some space and retry",
			ErrNoSpace, n, g.dir, max(left, 0), mib(Margin), int64(Margin))
	}
	g.since += n
	return nil
}

// Writer returns w with every write admitted by g first; a refused write writes nothing and
// returns the refusal.
func (g *Guard) Writer(w io.Writer) io.Writer { return &writer{g: g, w: w} }

type writer struct {
	g *Guard
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	if err := w.g.Admit(int64(len(p))); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}

// mib formats n bytes in MiB, one decimal.
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
