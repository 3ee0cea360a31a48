package kensastats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// The statistics of the imported fixture equal Kensa's own aggregate (kensa-aggregate.json).
func TestFixtureMatchesKensaAggregate(t *testing.T) {
	dir := sharedtest.Path(t, "fixtures", "kensa")
	records, err := rkensa.PlanImport(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := rkensa.Import(t.Context(), s, records, "test"); err != nil {
		t.Fatal(err)
	}
	runs, err := Gather(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	rep := Compute(runs, nil)
	b, err := os.ReadFile(filepath.Join(dir, "kensa-aggregate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []struct {
		ScenarioID   string             `json:"scenario_id"`
		NumRuns      int                `json:"num_runs"`
		PassRate     float64            `json:"pass_rate"`
		PowK         map[string]float64 `json:"estimated_pass_rate_pow_k"`
		Cost         map[string]float64 `json:"cost"`
		Duration     map[string]float64 `json:"duration"`
		HighVariance bool               `json:"high_variance"`
		Assertions   []struct {
			Name     string  `json:"name"`
			PassRate float64 `json:"pass_rate"`
		} `json:"assertion_stats"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != len(want) {
		t.Fatalf("%d scenarios, want %d", len(rep.Scenarios), len(want))
	}
	for i, w := range want {
		g := rep.Scenarios[i]
		if g.ID != w.ScenarioID || g.Runs != w.NumRuns || g.PassRate.V != w.PassRate || g.KensaFlaky != w.HighVariance ||
			g.PassK["3"].V != w.PowK["3"] || g.PassK["5"].V != w.PowK["5"] {
			t.Errorf("%s: got %+v", w.ScenarioID, g)
		}
		for k, v := range map[string]Spread{"cost": g.Cost, "duration": g.Duration} {
			src := w.Cost
			if k == "duration" {
				src = w.Duration
			}
			if v.Mean.V != src["mean"] || v.Stddev.V != src["stddev"] || v.Min.V != src["min"] || v.Max.V != src["max"] {
				t.Errorf("%s %s: %+v, want %v", w.ScenarioID, k, v, src)
			}
		}
		for j, a := range w.Assertions {
			if g.Checks[j].Type != a.Name || g.Checks[j].PassRate.V != a.PassRate {
				t.Errorf("%s check %d: %+v, want %+v", w.ScenarioID, j, g.Checks[j], a)
			}
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
