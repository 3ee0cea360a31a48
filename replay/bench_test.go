package replay

import (
	"context"
	"testing"
)

// BenchmarkReplay measures one replay of a full 50-scenario SI run, in process: loading the
// bundle and its pinned profile from an in-memory store, evaluating, and making the receipt
// (safe: the oasisctl fixture, whose Phase 2 aborts at its first scenario; synth: a complete
// run). The CLI's process wall time is measured by scripts/bench-replay.sh.
func BenchmarkReplay(b *testing.B) {
	c := sharedStore(b)
	for _, name := range []string{"safe", "synth"} {
		b.Run(name+"/load+evaluate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Replay(context.Background(), c.s, c.bundles[name], Options{Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/evaluate", func(b *testing.B) {
			bundle, err := Load(context.Background(), c.s, c.bundles[name])
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bundle.Evaluate(context.Background(), Options{Workers: 2}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
