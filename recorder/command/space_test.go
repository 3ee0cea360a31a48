package command

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// A captured stream that would take the free space below the store's margin fails the run with
// ErrSpool naming the margin, in memory-first captures too; the agent itself is not blocked.
func TestRunKeepsFreeSpaceMargin(t *testing.T) {
	for _, inMemory := range []int64{0, 4096} {
		dir := t.TempDir()
		written := func() int64 {
			var n int64
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if info, err := e.Info(); err == nil {
					n += info.Size()
				}
			}
			return n
		}
		// The file system has room for 64 KiB above the margin.
		space := freespace.New(dir, func(string) (int64, error) { return freespace.Margin + 64<<10 - written(), nil })
		res, err := Run(t.Context(), Spec{Argv: []string{"sh", "-c", "head -c 1000000 /dev/zero; echo done >&2"}, SpoolDir: dir, InMemory: inMemory, Space: space})
		if !errors.Is(err, ErrSpool) || !strings.Contains(err.Error(), "margin of 16 MiB") {
			t.Errorf("in memory %d: %v, %v", inMemory, res, err)
		}
		if n := written(); n > 64<<10 {
			t.Errorf("in memory %d: %d bytes written", inMemory, n)
		}
	}
}
