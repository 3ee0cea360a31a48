package kensastats

import (
	"bytes"
	"flag"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// twoWays is the .kensa directory real Kensa wrote over the scripted agent (see its README).
const twoWays = "../recorder/kensa/testdata/twoways"

// The report over real Kensa's runs of the scripted agent, in text, JSON and HTML, is the one
// in testdata, byte for byte (go test -update rewrites it). Each scenario's part of the JSON
// is what it was before kensa stats stated its selection: the selection is a member of its
// own, after "scenarios".
func TestReportGolden(t *testing.T) {
	// As kensa stats makes it: over the runs selected (every run here), the selection stated.
	runs, sel, err := GatherSelected(t.Context(), importStore(t, twoWays), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	rep := ComputeSelected(runs, sel)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"stats.txt":  func(b *bytes.Buffer) error { return rep.WriteText(b) },
		"stats.json": func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
		"stats.html": func(b *bytes.Buffer) error { return rep.WriteHTML(b) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, filepath.Join("testdata", name), b.Bytes(), *update)
	}
	only := Compute(runs, []string{"maybe"})
	if len(only.Scenarios) != 1 || only.Scenarios[0].ID != "maybe" || !only.Scenarios[0].Flaky || only.Scenarios[0].Divergence == nil {
		t.Errorf("kensa stats maybe: %+v", only.Scenarios)
	}
}
