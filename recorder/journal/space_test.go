package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/freespace"
)

// A record that would take the free space below the store's margin is refused with an error
// naming the margin, nothing of it is written, and the journal takes no more records: what it
// holds stays readable.
func TestAppendKeepsFreeSpaceMargin(t *testing.T) {
	w, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Dir(), FileName)
	size := func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	start := size()
	// Room for 4 KiB above the margin.
	w.space = freespace.New(w.Dir(), func(string) (int64, error) { return freespace.Margin + 4<<10 - (size() - start), nil })
	if _, err := w.Append(1, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	held := size()
	for _, n := range []int{8 << 10, 10} {
		if _, err := w.Append(1, make([]byte, n)); !errors.Is(err, freespace.ErrNoSpace) || !strings.Contains(err.Error(), "margin of 16 MiB") {
			t.Errorf("a record of %d bytes: %v", n, err)
		}
	}
	if size() != held {
		t.Errorf("%d bytes written past the refusal", size()-held)
	}
	j := w.Finish()
	defer j.Close()
	records := 0
	if _, err := j.Scan(func(Record) error { records++; return nil }); err != nil || records != 1 {
		t.Errorf("%d records, %v", records, err)
	}
}
