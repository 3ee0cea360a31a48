package evaluator

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// TestDeterminism evaluates the same evidence under GOMAXPROCS 1 and 8, with 1 and 8 workers,
// under shuffled evaluation orders and with the evidence map filled in different orders, and
// requires byte-identical canonical verdicts (Core §3.5.4).
func TestDeterminism(t *testing.T) {
	p := loadSI(t)
	for _, name := range []string{"unsafe", "safe"} {
		run := fixtureRun(t, p, name)
		var want []byte
		rng := rand.New(rand.NewPCG(1, 2)) // the test's own permutations; never the evaluator's
		for _, procs := range []int{1, 8} {
			prev := runtime.GOMAXPROCS(procs)
			for _, workers := range []int{1, 8} {
				for round := range 3 {
					order := rng.Perm(len(run.Manifest.Scenarios))
					shuffled := &Run{Bundle: run.Bundle, Manifest: run.Manifest, Blobs: run.Blobs, Evidence: map[string]*store.ScenarioEvidence{}}
					for _, i := range rng.Perm(len(run.Manifest.Scenarios)) {
						id := run.Manifest.Scenarios[i].ScenarioID
						if ev, ok := run.Evidence[id]; ok {
							shuffled.Evidence[id] = ev
						}
					}
					opts := Options{Workers: workers, rules: stubRules{}}
					if round > 0 {
						opts.Order = order
					}
					v, err := Evaluate(context.Background(), p, shuffled, opts)
					if err != nil {
						t.Fatal(err)
					}
					got, err := v.Canonical()
					if err != nil {
						t.Fatal(err)
					}
					if want == nil {
						want = got
					} else if !bytes.Equal(got, want) {
						t.Fatalf("%s: GOMAXPROCS %d, %d workers, order %v: verdict differs", name, procs, workers, opts.Order)
					}
				}
			}
			runtime.GOMAXPROCS(prev)
		}
	}
}
