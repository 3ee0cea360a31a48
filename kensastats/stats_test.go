package kensastats

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// importAndGather imports the .kensa directory of dir into a new store and gathers its runs.
func importAndGather(t *testing.T, dir string) []Run {
	t.Helper()
	records, err := rkensa.PlanImport(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := rkensa.Import(t.Context(), s, records, "test"); err != nil {
		t.Fatal(err)
	}
	runs, err := Gather(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// The statistics of the imported fixture equal Kensa's own aggregate (kensa-aggregate.json).
func TestFixtureMatchesKensaAggregate(t *testing.T) {
	dir := sharedtest.Path(t, "fixtures", "kensa")
	runs := importAndGather(t, dir)
	rep := Compute(runs, nil)
	b, err := os.ReadFile(filepath.Join(dir, "kensa-aggregate.json"))
	if err != nil {
		t.Fatal(err)
	}
	agg, err := pyvalue.Loads("kensa-aggregate.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != agg.Len() {
		t.Fatalf("%d scenarios, want %d", len(rep.Scenarios), agg.Len())
	}
	for i, w := range agg.Items() {
		g := rep.Scenarios[i]
		num := func(v pyvalue.Value, path ...string) float64 {
			for _, k := range path {
				v, _ = v.Get(k)
			}
			f, _ := v.AsNumber()
			return f
		}
		id, _ := w.Get("scenario_id")
		hv, _ := w.Get("high_variance")
		flaky, _ := hv.AsBool()
		if g.ID != pyvalue.Str(id) || float64(g.Runs) != num(w, "num_runs") || g.PassRate.V != num(w, "pass_rate") || g.KensaFlaky != flaky ||
			g.PassK["3"].V != num(w, "estimated_pass_rate_pow_k", "3") || g.PassK["5"].V != num(w, "estimated_pass_rate_pow_k", "5") {
			t.Errorf("%s: got %+v", pyvalue.Str(id), g)
		}
		for k, v := range map[string]Spread{"cost": g.Cost, "duration": g.Duration} {
			if v.Mean.V != num(w, k, "mean") || v.Stddev.V != num(w, k, "stddev") || v.Min.V != num(w, k, "min") || v.Max.V != num(w, k, "max") {
				t.Errorf("%s %s: %+v, want %s", g.ID, k, v, pyvalue.Repr(func() pyvalue.Value { x, _ := w.Get(k); return x }()))
			}
		}
		assertions, _ := w.Get("assertion_stats")
		for j, a := range assertions.Items() {
			name, _ := a.Get("name")
			if g.Checks[j].Type != pyvalue.Str(name) || g.Checks[j].PassRate.V != num(a, "pass_rate") {
				t.Errorf("%s check %d: %+v, want %s", g.ID, j, g.Checks[j], pyvalue.Repr(a))
			}
		}
		counts, _ := w.Get("status_counts")
		want := map[string]int{}
		counts.Members(func(k string, v pyvalue.Value) { n, _ := v.AsInt(); want[k] = int(n) })
		if !maps.Equal(g.StatusCounts, want) {
			t.Errorf("%s: status_counts %v, want %v", g.ID, g.StatusCounts, want)
		}
		if g.EvaluatorVariance != 0 {
			t.Errorf("%s: evaluator variance %d", g.ID, g.EvaluatorVariance)
		}
	}
	byID := map[string]*Scenario{}
	for _, s := range rep.Scenarios {
		byID[s.ID] = s
	}
	// Kensa pools the dataset's rows: it calls orders_dataset flaky; its rows are stable.
	if od := byID["orders_dataset"]; od.Flaky || !od.KensaFlaky || od.VarianceSource != "rows" {
		t.Errorf("orders_dataset: flaky %v, kensa_flaky %v, source %s", od.Flaky, od.KensaFlaky, od.VarianceSource)
	}
	if sr := byID["sometimes_refunds"]; !sr.Flaky || sr.Divergence == nil || sr.Divergence.Kind != "extra_call" {
		t.Errorf("sometimes_refunds: %+v", sr.Divergence)
	}
	// analyze flags the four repeated lookups of angry_customer, as kensa-analyze.json does.
	if n := len(byID["angry_customer"].Flags); n != 4 {
		t.Errorf("angry_customer flags: %d", n)
	}
}

// A pending run (criteria, no recorded judgement) counts as Kensa counts a run it could not
// judge: an error, not a pass; pending says how many such errors there are.
func TestPendingCountsAsKensaError(t *testing.T) {
	var runs []Run
	for i, status := range []string{"pass", "pending", "fail", "pending"} {
		runs = append(runs, Run{Scenario: "s", RunID: fmt.Sprint(i), Status: status, Reproduced: true})
	}
	s := Compute(runs, nil).Scenarios[0]
	want := map[string]int{"pass": 1, "error": 2, "fail": 1}
	if !maps.Equal(s.StatusCounts, want) || s.Pending != 2 || s.PassRate.String() != "0.2500" {
		t.Errorf("status_counts %v, pending %d, pass rate %s; want %v, 2, 0.2500", s.StatusCounts, s.Pending, s.PassRate, want)
	}
}
