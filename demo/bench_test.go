package demo

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// BenchmarkRun measures the whole demo on an in-memory store: record, replay, store the
// receipt, audit. After the first iteration nothing new is written.
func BenchmarkRun(b *testing.B) {
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if _, err := Run(b.Context(), s, Options{Version: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
