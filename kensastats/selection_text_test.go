package kensastats

import (
	"bytes"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// The report's first lines say how many runs it counts of how many recorded, by which filter,
// and which runs a filter left out that a reader may expect: earlier definitions, runs with no
// recorded time. An empty store prints nothing (the command says so on stderr).
func TestSelectionText(t *testing.T) {
	since := "2026-11-27T13:00:00Z (24h)"
	var def, latest store.Digest
	def[0], latest[0] = 0xaa, 0xbb
	tests := []struct {
		name string
		sel  Selection
		want []string
	}{
		{"empty store", Selection{}, nil},
		{"every run", Selection{Recorded: 3, Counted: 3}, []string{"counting 3 of 3 Kensa runs recorded (every run)"}},
		{"filters and drops", Selection{Recorded: 9, Counted: 2, Untimed: 1,
			Filter:  SelectionFilter{RunIDs: []string{"a", "b"}, Tags: []string{"t"}, Since: &since, Scenarios: []string{"where"}},
			Dropped: []Dropped{{Scenario: "where", Definition: def, Runs: 1, Latest: latest}}},
			[]string{"counting 2 of 9 Kensa runs recorded (run a, b; tag t; since 2026-11-27T13:00:00Z (24h); scenario where; the latest definition of each scenario)",
				"  not counted: 1 run of scenario where under an earlier definition " + def.Short() + " (latest " + latest.Short() + "; --all-definitions counts them)",
				"  not counted: 1 run with no recorded time (--since)"}},
		{"every definition", Selection{Recorded: 4, Counted: 4, Filter: SelectionFilter{AllDefinitions: true}},
			[]string{"counting 4 of 4 Kensa runs recorded (every definition)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := (&Report{Selection: &tt.sel}).WriteText(&b); err != nil {
				t.Fatal(err)
			}
			want := ""
			if tt.want != nil {
				want = strings.Join(tt.want, "\n") + "\n"
			}
			if b.String() != want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), want)
			}
		})
	}
}
