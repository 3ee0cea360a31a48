package kensastats

import (
	"testing"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// Latency outliers are flagged on each trace's unrounded span duration, as Kensa's analyzer
// (analyzer.analyze_traces) measures it, not on the result's duration rounded to 0.01 s: with
// durations 1.004, 1.004 and 3.0119 s the third is 2.9999× the median (no flag), where the
// rounded 1.0, 1.0 and 3.01 would make it 3.01× (a flag).
func TestLatencyOutlierIsUnrounded(t *testing.T) {
	cases := []struct {
		name  string
		exact []float64
		flags int
	}{
		{"just under 3x unrounded", []float64{1.004, 1.004, 3.0119}, 0},
		{"just over 3x unrounded", []float64{1.004, 1.004, 3.0121}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var runs []Run
			for i, d := range c.exact {
				var b store.Digest
				b[0] = byte(i + 1)
				runs = append(runs, Run{Bundle: b, RunID: "r", HasTrace: true,
					Duration: float64(int(d*100+0.5)) / 100, Observed: ekensa.Observed{Duration: d}})
			}
			got := 0
			for _, fs := range analyze(runs) {
				for _, f := range fs {
					if f.Flag == "latency_outlier" {
						got++
					}
				}
			}
			if got != c.flags {
				t.Errorf("%d latency_outlier flags, want %d", got, c.flags)
			}
		})
	}
}
