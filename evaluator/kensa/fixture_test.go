package kensa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// fixtureEvidence builds the evidence of every run of the shared .kensa fixture, in the order
// of Kensa's results files, with the result Kensa recorded for each.
func fixtureEvidence(t *testing.T) (evs []*Evidence, claimed []pyvalue.Value) {
	t.Helper()
	dir := sharedtest.Path(t, "fixtures", "kensa")
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, ".kensa", "runs", "*.json"))
	for _, mpath := range manifests {
		m, err := kensa.ParseRunManifest(mpath, read(strings.TrimPrefix(mpath, dir+"/")))
		if err != nil {
			t.Fatal(err)
		}
		results, err := kensa.ParseResults("results", read(filepath.Join(".kensa", "results", m.RunID+".json")))
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for _, sr := range m.Scenarios {
			sc, err := kensa.ParseScenario(sr.ScenarioID, read(filepath.Join(".kensa", "scenarios", sr.ScenarioID+".yaml")))
			if err != nil {
				t.Fatal(err)
			}
			for n, run := range sr.Runs {
				spans, err := kensa.ReadTrace(run.TracePath, read(run.TracePath))
				if err != nil {
					t.Fatal(err)
				}
				ev := &Evidence{Scenario: sc, Row: run.DatasetRow, Input: run.Input, ExitCode: int(run.ExitCode),
					HasTrace: true, TracePath: run.TracePath, Spans: spans, Stdout: run.Stdout, Stderr: run.Stderr}
				if sc.Dataset != "" {
					ev.Case = n + 1
				}
				evs = append(evs, ev)
				claimed = append(claimed, results[i].Value)
				i++
			}
		}
	}
	if len(evs) != 28 {
		t.Fatalf("%d runs in the fixture, want 28", len(evs))
	}
	return evs, claimed
}

// Every run of the fixture reproduces Kensa's recorded result exactly, field by field.
func TestFixtureReproducesKensa(t *testing.T) {
	evs, claimed := fixtureEvidence(t)
	for i, ev := range evs {
		r := Evaluate(ev)
		if diffs := Compare(r, claimed[i]); len(diffs) > 0 {
			t.Errorf("%s run %d: %+v", ev.Scenario.ID, i, diffs)
		}
	}
}

// Evaluating the same evidence twice gives the same verdict bytes.
func TestDeterministic(t *testing.T) {
	evs, _ := fixtureEvidence(t)
	for _, ev := range evs {
		a, da, err := Evaluate(ev).Encode()
		if err != nil {
			t.Fatal(err)
		}
		b, db, _ := Evaluate(ev).Encode()
		if string(a) != string(b) || da != db {
			t.Fatalf("%s: verdicts differ:\n%s\n%s", ev.Scenario.ID, a, b)
		}
	}
}
