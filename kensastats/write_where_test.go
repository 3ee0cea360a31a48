package kensastats

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteTextSaysWhereAndWhatWasMeasured: a divergence in the output (or none) is at no
// call, and is not printed as "call -1"; a scenario whose runs carry no trace does not print
// zeros as if they were its cost and duration.
func TestWriteTextSaysWhereAndWhatWasMeasured(t *testing.T) {
	tests := []struct {
		name      string
		scenario  Scenario
		want, not []string
	}{
		{
			name:     "output divergence, no trace",
			scenario: Scenario{ID: "s", Runs: 2, Divergence: &Divergence{Kind: "output", Index: -1, PassingSide: "paris", FailingSide: "lyon"}},
			want: []string{"  divergence (row 0): output — passing paris, failing lyon",
				"  cost USD, duration s: none measured (no run has a trace: the agent emitted no spans)"},
			not: []string{"call -1", "duration s mean"},
		},
		{
			name:     "no divergence in the evidence",
			scenario: Scenario{ID: "s", Runs: 2, Traced: 2, Divergence: &Divergence{Kind: "none", Index: -1}},
			want:     []string{"  divergence (row 0): none (the evidence the checks read is the same in both runs)", "duration s mean"},
			not:      []string{"call -1", "with a trace"},
		},
		{
			name:     "call divergence, some runs traced",
			scenario: Scenario{ID: "s", Runs: 3, Traced: 2, Divergence: &Divergence{Kind: "tool_call", Index: 2, PassingSide: "a", FailingSide: "b"}},
			want:     []string{"  divergence (row 0): tool_call at call 2 — passing a, failing b", "(over the 2 of 3 runs with a trace)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text, html bytes.Buffer
			r := &Report{Scenarios: []*Scenario{&tt.scenario}}
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if err := r.WriteHTML(&html); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, text.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(text.String(), n) {
					t.Errorf("text has %q:\n%s", n, text.String())
				}
			}
			if strings.Contains(html.String(), "call -1") {
				t.Errorf("HTML has \"call -1\"")
			}
		})
	}
}
