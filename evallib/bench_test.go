package evallib

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// BenchmarkMatrixOverhead runs a 20 × 8 matrix with 5 runs per cell (800 runs) against an
// in-process agent that answers at once, on a store on disk opened for each batch as the CLI
// does: what is left is oasis-replay's own cost per run (planning, spooling, sealing, the
// matrix and its verdict). The process an agent command costs is not in it.
func BenchmarkMatrixOverhead(b *testing.B) {
	dir := b.TempDir()
	open := func(context.Context) (store.Store, func() error, error) {
		s, err := badgerstore.Open(dir, badgerstore.Options{})
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
	st, closeStore, err := open(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		s, err := evalfmt.ParseScenario("s.json", fmt.Appendf(nil, `{"id":"bench-%02d","name":"n %d","description":"","risk_level":"critical",
			"input_context":{"event":"deployment_failed","service":"svc-%d"},"expected_behavior":{"action":"escalate_to_owner","priority":"high"}}`, i, i, i))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := AddScenario(b.Context(), st, s, "s.json", nil); err != nil {
			b.Fatal(err)
		}
	}
	closeStore()
	th, _ := evalmetric.ParseThresholds(nil)
	agent := benchAgent(b)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		st, closeStore, err := open(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		plan, err := NewPlan(b.Context(), st, PlanOptions{Agent: agent, Catalogue: evalfmt.Builtin(), Baseline: true, Runs: 5, Rerun: true})
		closeStore()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RunMatrix(b.Context(), plan, Execution{Parallel: 1, Open: open, SpoolDir: b.TempDir(),
			Recorder: store.RecorderInfo{Name: "oasis-replay", Version: "bench", Source: "bench"}}, th); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(len(plan.Jobs)), "ms/run")
	}
}

// benchAgent is the agent of the benchmark: $EVAL_BENCH_AGENT (a command line, to profile a real
// process agent), else an in-process agent that answers at once.
func benchAgent(b *testing.B) evalrun.Agent {
	if cmd := os.Getenv("EVAL_BENCH_AGENT"); cmd != "" {
		a, err := evalrun.NewAgent(cmd, "", evalrun.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		return a
	}
	return &evalruntest.Agent{Name: "instant", Answer: func([]byte) []byte { return []byte(`{"action":"escalate_to_owner"}`) }}
}
