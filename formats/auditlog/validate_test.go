package auditlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// checkInBlocks checks a log as a recorder does: block by block, stopping at the first error.
func checkInBlocks(r io.Reader) error {
	blocks := NewLineBlocks(r)
	var buf []byte
	for {
		blk, last, err := blocks.Next(buf)
		if err != nil {
			return err
		}
		if err := blk.Check(); err != nil || last {
			return err
		}
		buf = nil // the next block gets a buffer of its own, as on several goroutines
	}
}

// TestLineBlocks holds a check block by block to what a scan in order reports, on logs of
// several blocks with damage in the first, a middle and the last block, two damaged blocks, a
// line over the cap, a BOM, blank lines, no final newline and a failing reader.
func TestLineBlocks(t *testing.T) {
	var b strings.Builder
	for b.Len() < 5*blockSize {
		b.WriteString(strings.Join(benchEvents, "\n"))
		b.WriteString("\n\n")
	}
	good := b.String()
	lines := strings.SplitAfter(good, "\n")
	damage := func(at ...int) string {
		ls := append([]string(nil), lines...)
		for _, i := range at {
			ls[i] = strings.Replace(ls[i], `"verb":`, `"verb";`, 1)
		}
		return strings.Join(ls, "")
	}
	n := len(lines)
	tests := map[string]string{
		"good":                    good,
		"BOM, no final newline":   "\xEF\xBB\xBF" + strings.TrimSuffix(good, "\n"),
		"damage in block 1":       damage(3),
		"damage in a middle one":  damage(n / 2),
		"damage in the last":      damage(n - 3),
		"damage in two blocks":    damage(n-3, n/3),
		"a line over the cap":     good[:2*blockSize] + "\n" + strings.Repeat("x", DefaultMaxEntryBytes+10) + "\n" + good,
		"an event that is a list": good + "[1]\n",
		"empty":                   "",
	}
	for name, log := range tests {
		t.Run(name, func(t *testing.T) {
			want := Scan(strings.NewReader(log), jsonl, func(*Entry) error { return nil })
			if (want == nil) != (name == "good" || name == "empty" || strings.HasPrefix(name, "BOM")) {
				t.Fatalf("the scan in order says %v", want)
			}
			if got := checkInBlocks(strings.NewReader(log)); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("in blocks: %v\nin order:  %v", got, want)
			}
		})
	}
	t.Run("a failing reader", func(t *testing.T) {
		failing := func() io.Reader {
			return io.MultiReader(strings.NewReader(good[:3*blockSize+100]), iotest.ErrReader(errors.New("disk gone")))
		}
		want := Scan(failing(), jsonl, func(*Entry) error { return nil })
		if got := checkInBlocks(failing()); want == nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("in blocks: %v\nin order:  %v", got, want)
		}
	})
}

// BenchmarkLineBlocks measures the check a recorder makes of a log, on one goroutine.
func BenchmarkLineBlocks(b *testing.B) {
	log := benchLog(32 << 20)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		if err := checkInBlocks(bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}
