package kensastats

import (
	"testing"
	"time"

	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// importStore imports the .kensa directory of dir into a new store.
func importStore(t *testing.T, dir string) store.Store {
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
	return s
}

// The filters of kensa stats keep the runs of a run id (one Kensa invocation each in the
// two-ways fixture: 7 runs, orders having 3 rows), of a tag, recorded since a time, of a
// scenario; and the selection says how many of how many recorded it counts.
func TestGatherSelectedFilters(t *testing.T) {
	s := importStore(t, twoWays)
	since := time.Date(2026, 11, 25, 4, 30, 50, 0, time.UTC)
	tests := []struct {
		name    string
		filter  Filter
		counted int
		runIDs  []string
	}{
		{"every run", Filter{}, 21, []string{"20261125T043039422", "20261125T043050579", "20261125T043058411"}},
		{"one run id", Filter{RunIDs: []string{"20261125T043050579"}}, 7, []string{"20261125T043050579"}},
		{"two run ids", Filter{RunIDs: []string{"20261125T043050579", "20261125T043039422"}}, 14, []string{"20261125T043039422", "20261125T043050579"}},
		{"since a time", Filter{Since: since}, 14, []string{"20261125T043050579", "20261125T043058411"}},
		{"a tag no run has", Filter{Tags: []string{"t"}}, 0, nil},
		{"a scenario since a time", Filter{Scenarios: []string{"orders"}, Since: since}, 6, []string{"20261125T043050579", "20261125T043058411"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, sel, err := GatherSelected(t.Context(), s, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			rep := ComputeSelected(runs, sel)
			if sel.Recorded != 21 || sel.Counted != tt.counted || len(runs) != tt.counted || len(sel.Runs) != tt.counted || len(sel.Dropped) != 0 {
				t.Errorf("recorded %d, counted %d (%d runs, %d listed), dropped %v; want 21, %d", sel.Recorded, sel.Counted, len(runs), len(sel.Runs), sel.Dropped, tt.counted)
			}
			ids := map[string]bool{}
			for _, r := range sel.Runs {
				ids[r.RunID] = true
			}
			for _, id := range tt.runIDs {
				if !ids[id] {
					t.Errorf("run id %s not counted", id)
				}
			}
			if len(ids) != len(tt.runIDs) {
				t.Errorf("run ids counted %v, want %v", ids, tt.runIDs)
			}
			if rep.Selection != sel {
				t.Errorf("the report does not state its selection")
			}
		})
	}
}

// Where a scenario's definition changed, only the runs of the definition of its run recorded
// last count (then the greatest run id, then the greatest bundle, whatever the order of the
// runs); the others are reported dropped, per definition.
func TestLatestDefinitions(t *testing.T) {
	d := func(b byte) store.Digest { var x store.Digest; x[0] = b; return x }
	at := func(m int) time.Time { return time.Date(2026, 11, 28, 10, m, 0, 0, time.UTC) }
	runs := []Run{
		{Bundle: d(1), Scenario: "a", RunID: "r1", Definition: d(10), Time: at(1)},
		{Bundle: d(2), Scenario: "a", RunID: "r2", Definition: d(11), Time: at(3)},
		{Bundle: d(3), Scenario: "a", RunID: "r1", Definition: d(10), Time: at(2)},
		{Bundle: d(4), Scenario: "a", RunID: "r0", Definition: d(12), Time: at(0)},
		{Bundle: d(5), Scenario: "b", RunID: "r1", Definition: d(20), Time: at(1)},
		// c: no recorded time; the greatest run id decides.
		{Bundle: d(6), Scenario: "c", RunID: "r9", Definition: d(30)},
		{Bundle: d(7), Scenario: "c", RunID: "r8", Definition: d(31)},
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}} {
		in := make([]Run, len(runs))
		for i, j := range order {
			in[i] = runs[j]
		}
		kept, dropped := latestDefinitions(in)
		var got []byte
		for _, r := range kept {
			got = append(got, r.Bundle[0])
		}
		want := map[byte]bool{2: true, 5: true, 6: true}
		if len(got) != len(want) {
			t.Errorf("kept %v, want bundles 2, 5, 6", got)
		}
		for _, b := range got {
			if !want[b] {
				t.Errorf("kept %v, want bundles 2, 5, 6", got)
			}
		}
		wantDropped := []Dropped{
			{Scenario: "a", Definition: d(10), Runs: 2, Latest: d(11)},
			{Scenario: "a", Definition: d(12), Runs: 1, Latest: d(11)},
			{Scenario: "c", Definition: d(31), Runs: 1, Latest: d(30)},
		}
		if len(dropped) != len(wantDropped) {
			t.Fatalf("dropped %+v, want %+v", dropped, wantDropped)
		}
		for i := range dropped {
			if dropped[i] != wantDropped[i] {
				t.Errorf("dropped[%d] = %+v, want %+v", i, dropped[i], wantDropped[i])
			}
		}
	}
}

// The annotation and the recorded times the filters read are the ones recorder/kensa writes.
func TestSelectReadsWhatTheRecorderWrites(t *testing.T) {
	if annotationTag != rkensa.AnnotationTag {
		t.Errorf("annotationTag %q, recorder/kensa writes %q", annotationTag, rkensa.AnnotationTag)
	}
	for _, m := range []*store.KensaRun{
		{NonScoring: map[string]string{startedKey: "2026-11-28T10:00:00.123456789Z"}},
		{NonScoring: map[string]string{timestampKey: "2026-11-24T22:20:03.074397Z"}},
	} {
		if _, ok := recordedTime(m); !ok {
			t.Errorf("no time read from %v", m.NonScoring)
		}
	}
	if _, ok := recordedTime(&store.KensaRun{}); ok {
		t.Errorf("a time read from a run without one")
	}
}
