package replay

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestSettings pins the cycle of GOMAXPROCS, workers and orders, and the reproducibility of
// every permutation from its run number.
func TestSettings(t *testing.T) {
	tests := []struct {
		run, procs, workers int
		permuted            bool
	}{
		{1, 1, 1, false}, {2, 2, 1, true}, {3, 4, 1, true}, {4, 8, 1, true},
		{5, 1, 1, true}, {6, 2, 2, true}, {7, 4, 4, true}, {8, 8, 8, true},
		{9, 1, 1, true}, {13, 1, 1, true}, {14, 2, 2, true},
	}
	for _, tt := range tests {
		s := settingFor(tt.run, 21, DefaultSeed)
		if s.Run != tt.run || s.GOMAXPROCS != tt.procs || s.Workers != tt.workers || (s.Order != nil) != tt.permuted {
			t.Errorf("run %d: %s", tt.run, s)
			continue
		}
		if s.Order == nil {
			continue
		}
		sorted := slices.Sorted(slices.Values(s.Order))
		for i, v := range sorted {
			if i != v {
				t.Fatalf("run %d: order %v is not a permutation", tt.run, s.Order)
			}
		}
		if again := settingFor(tt.run, 21, DefaultSeed); !slices.Equal(again.Order, s.Order) {
			t.Errorf("run %d: the permutation is not reproducible", tt.run)
		}
	}
	if slices.Equal(settingFor(2, 21, DefaultSeed).Order, settingFor(3, 21, DefaultSeed).Order) {
		t.Error("runs 2 and 3 share a permutation")
	}
}

// TestRepeat: every run of every fixture reproduces run 1's verdict, and GOMAXPROCS is
// restored.
func TestRepeat(t *testing.T) {
	c := sharedStore(t)
	before := runtime.GOMAXPROCS(0)
	for _, name := range []string{"safe", "unsafe", "provider-fault"} {
		b, err := Load(context.Background(), c.s, c.bundles[name])
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Repeat(context.Background(), RepeatOptions{Runs: 9})
		if err != nil {
			t.Fatal(err)
		}
		if res.Runs != 9 || res.Divergence != nil {
			t.Fatalf("%s: %d runs, divergence %+v", name, res.Runs, res.Divergence)
		}
		single := c.replay(t, name, Options{})
		if res.First.Receipt.Digest != single.Receipt.Digest {
			t.Errorf("%s: repeat proved %s, a single evaluation gives %s", name, res.First.Receipt.Verdict, single.Receipt.Verdict)
		}
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d after Repeat, %d before", after, before)
	}
}

// TestRepeatDivergence injects a divergence through the test hook and requires it to be
// reported with its run, settings, digests, path, scenario and field.
func TestRepeatDivergence(t *testing.T) {
	c := sharedStore(t)
	b, err := Load(context.Background(), c.s, c.bundles["unsafe"])
	if err != nil {
		t.Fatal(err)
	}
	const target = 4 // infra.safety.br.proportionality-check-001 in the fixture's order
	var tampered store.Digest
	res, err := b.Repeat(context.Background(), RepeatOptions{Runs: 10, tamper: func(run int, canonical []byte) []byte {
		if run != 7 {
			return canonical
		}
		var v evaluator.Verdict
		if err := json.Unmarshal(canonical, &v); err != nil {
			t.Fatal(err)
		}
		v.Scenarios[target].Status = evaluator.Pass
		out, err := v.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		tampered = store.Sum(out)
		return out
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Divergence
	if d == nil || res.Runs != 7 {
		t.Fatalf("%d runs, divergence %+v", res.Runs, d)
	}
	if d.Setting.Run != 7 || d.Setting.GOMAXPROCS != 4 || d.Setting.Workers != 4 || d.Baseline.Run != 1 {
		t.Errorf("settings: %s vs %s", d.Setting, d.Baseline)
	}
	if d.Want != res.First.Receipt.Verdict || d.Got != tampered || d.Err != nil || d.Truncated {
		t.Errorf("digests %s %s, err %v, truncated %v", d.Want, d.Got, d.Err, d.Truncated)
	}
	if len(d.Differences) != 1 || d.Differences[0].Path != "/scenarios/4/status" ||
		d.Differences[0].A != `"FAIL"` || d.Differences[0].B != `"PASS"` {
		t.Errorf("differences %v", d.Differences)
	}
	if d.Scenario != "infra.safety.br.proportionality-check-001" || d.Field != "/status" {
		t.Errorf("located at %q %q", d.Scenario, d.Field)
	}
}

// TestLocate maps verdict paths to scenarios and fields.
func TestLocate(t *testing.T) {
	v := &evaluator.Verdict{Scenarios: []evaluator.ScenarioResult{{ID: "a"}, {ID: "b"}}}
	tests := []struct{ path, scenario, field string }{
		{"/scenarios/1/status", "b", "/status"},
		{"/scenarios/0/verification/2/citations/0/line", "a", "/verification/2/citations/0/line"},
		{"/scenarios/1", "b", ""},
		{"/scenarios/7/status", "", "/scenarios/7/status"},
		{"/scenarios/x", "", "/scenarios/x"},
		{"/safety_details/passed", "", "/safety_details/passed"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if s, f := locate(v, tt.path); s != tt.scenario || f != tt.field {
			t.Errorf("%q: %q %q, want %q %q", tt.path, s, f, tt.scenario, tt.field)
		}
	}
}
