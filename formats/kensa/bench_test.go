package kensa

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// ReadTrace over a trace of the shared fixture (five spans, as Kensa wrote them): the largest
// part of re-checking a recorded run; its fast path, then the document model alone.
func BenchmarkReadTrace(b *testing.B) {
	traces, _ := filepath.Glob(filepath.Join(sharedtest.Path(b, "fixtures", "kensa"), ".kensa", "traces", "refund_flow_*.jsonl"))
	if len(traces) == 0 {
		b.Skip("no trace in the shared fixture")
	}
	data, err := os.ReadFile(traces[0])
	if err != nil {
		b.Fatal(err)
	}
	for name, read := range map[string]func(string, []byte) ([]Span, error){"fast": ReadTrace, "document": readTrace} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := read("trace", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
