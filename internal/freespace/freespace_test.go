package freespace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A guard admits writes while Margin stays free, counts its own writes between measures, and
// refuses the write that would go below, naming the margin.
func TestGuard(t *testing.T) {
	tests := []struct {
		name   string
		free   int64 // what the file system reports, constant
		writes []int64
		refuse int // index of the first refused write; -1: none
	}{
		{"plenty", 1 << 30, []int64{Recheck, Recheck, 10 << 20}, -1},
		{"exactly the margin left", Margin + 1000, []int64{1000}, -1},
		{"one byte below", Margin + 1000, []int64{1001}, 0},
		{"counted between measures", Margin + 3000, []int64{1000, 1000, 1000, 1}, 3},
		{"already below", Margin - 1, []int64{1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			used := int64(0)
			g := New("/spool", func(string) (int64, error) { return tt.free - used, nil })
			refused := -1
			for i, n := range tt.writes {
				if err := g.Admit(n); err != nil {
					if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "margin of 16 MiB") || !strings.Contains(err.Error(), "/spool") {
						t.Errorf("error %v", err)
					}
					refused = i
					break
				}
				used += n
			}
			if refused != tt.refuse {
				t.Errorf("refused write %d, want %d", refused, tt.refuse)
			}
		})
	}
}

// Free space that cannot be measured admits every write; so does a nil guard.
func TestGuardUnknown(t *testing.T) {
	g := New("/spool", func(string) (int64, error) { return 0, errors.New("no statfs") })
	if err := g.Admit(1 << 40); err != nil {
		t.Error(err)
	}
	if err := (*Guard)(nil).Admit(1 << 40); err != nil {
		t.Error(err)
	}
	var out bytes.Buffer
	w := New("/spool", func(string) (int64, error) { return Margin + 2 - int64(out.Len()), nil }).Writer(&out)
	if n, err := w.Write([]byte("ab")); n != 2 || err != nil {
		t.Errorf("%d %v", n, err)
	}
	if n, err := w.Write([]byte("c")); n != 0 || !errors.Is(err, ErrNoSpace) || out.String() != "ab" {
		t.Errorf("%d %v %q", n, err, out.String())
	}
}
