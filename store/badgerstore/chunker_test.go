package badgerstore

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func generatedLog(t testing.TB, seed, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := auditgen.Write(&b, seed, size); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// cutAll splits data the way PutBlob does: each cut sees up to maxSize bytes.
func cutAll(c chunker, data []byte) [][]byte {
	var chunks [][]byte
	for len(data) > 0 {
		n := c.cut(data[:min(len(data), c.maxSize())])
		chunks = append(chunks, data[:n])
		data = data[n:]
	}
	return chunks
}

func TestChunkerSizes(t *testing.T) {
	data := generatedLog(t, 1, 4<<20)
	for _, c := range []chunker{fixedChunker{size: 64 << 10}, newCDCChunker(64 << 10)} {
		chunks := cutAll(c, data)
		lo, hi := 64<<10, 64<<10
		if cdc, ok := c.(cdcChunker); ok {
			lo, hi = cdc.min, cdc.max
		}
		total := 0
		for i, ch := range chunks {
			total += len(ch)
			if len(ch) > hi || len(ch) < lo && i != len(chunks)-1 {
				t.Errorf("%T: chunk %d has %d bytes, outside [%d, %d]", c, i, len(ch), lo, hi)
			}
		}
		if total != len(data) {
			t.Errorf("%T: chunks add up to %d bytes, want %d", c, total, len(data))
		}
	}
}

// TestCDCCutPoints pins the content-defined boundaries of a generated log. They depend on the
// gear table and the masks; a change makes new chunks stop deduplicating against old stores, so
// it must be deliberate (run with -update).
func TestCDCCutPoints(t *testing.T) {
	chunks := cutAll(newCDCChunker(16<<10), generatedLog(t, 1, 1<<20))
	var b strings.Builder
	offset := 0
	for _, ch := range chunks {
		fmt.Fprintf(&b, "%d %d %s\n", offset, len(ch), store.Sum(ch).Short())
		offset += len(ch)
	}
	golden := filepath.Join("testdata", "cdc-cut-points.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("CDC cut points changed (run with -update if intended):\n%s", b.String())
	}
}

// TestCDCDedupsShiftedContent shows why content-defined chunking exists: the same log with a
// few hundred bytes inserted at the front still shares almost all its chunks, while fixed-size
// chunks all move.
func TestCDCDedupsShiftedContent(t *testing.T) {
	original := generatedLog(t, 2, 2<<20)
	shifted := append([]byte(`{"kind":"Event","note":"an inserted line"}`+"\n"), original...)
	shared := func(c chunker) float64 {
		seen := map[store.Digest]bool{}
		for _, ch := range cutAll(c, original) {
			seen[store.Sum(ch)] = true
		}
		chunks := cutAll(c, shifted)
		n := 0
		for _, ch := range chunks {
			if seen[store.Sum(ch)] {
				n++
			}
		}
		return float64(n) / float64(len(chunks))
	}
	cdc, fixed := shared(newCDCChunker(32<<10)), shared(fixedChunker{size: 32 << 10})
	if cdc < 0.9 || fixed > 0.1 {
		t.Fatalf("shared chunks after an insertion: CDC %.0f%%, fixed %.0f%%; want CDC ≥ 90%%, fixed ≤ 10%%", 100*cdc, 100*fixed)
	}
}

func BenchmarkChunker(b *testing.B) {
	data := generatedLog(b, 1, 64<<20)
	for _, c := range []chunker{fixedChunker{size: DefaultChunkSize}, newCDCChunker(DefaultChunkSize)} {
		b.Run(fmt.Sprintf("%T", c), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				cutAll(c, data)
			}
		})
	}
}
