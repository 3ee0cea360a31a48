package kensastats

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Annotation keys and recorded times a filter reads, as recorder/kensa writes them. They are
// spelled here rather than imported: recorder/kensa sits above this package in the layers.
const (
	// annotationTag is the --tag of the kensa run that recorded a run.
	annotationTag = "kensa.tag"
	// startedKey is when kensa run started a run (RFC 3339); timestampKey when Kensa started
	// the run an import read (its run manifest's timestamp).
	startedKey   = "started"
	timestampKey = "timestamp"
)

// Filter chooses the runs a report counts. The zero Filter counts every run, of the latest
// definition of each scenario only.
type Filter struct {
	// RunIDs keeps the runs of these run ids: one kensa run invocation (--run-id, or the id
	// made from its start time) or one run of Kensa's (results/<run_id>.json) each.
	RunIDs []string
	// Tags keeps the runs a kensa run --tag T annotated with one of these.
	Tags []string
	// Since keeps the runs recorded at or after it (zero: no bound); SinceText is the bound as
	// given (an RFC 3339 time or a duration), for the report.
	Since     time.Time
	SinceText string
	// Scenarios keeps these scenarios (every one when empty).
	Scenarios []string
	// AllDefinitions counts the runs of every definition of a scenario; otherwise only the
	// runs of its latest definition count when its definition changed.
	AllDefinitions bool
}

// Selection says which runs a report counts: how many of those recorded, by which filter,
// and which definitions were left out.
type Selection struct {
	Recorded int             `json:"recorded_runs"`
	Counted  int             `json:"counted_runs"`
	Filter   SelectionFilter `json:"filter"`
	// Untimed is how many runs --since left out because they have no recorded time.
	Untimed int `json:"untimed_runs,omitempty"`
	// Dropped are the earlier definitions of scenarios whose runs were not counted.
	Dropped []Dropped `json:"dropped_definitions"`
	// Runs are the runs counted, by scenario, dataset row, run id and bundle.
	Runs []Listed `json:"runs"`
}

// SelectionFilter is the filter as the report states it.
type SelectionFilter struct {
	RunIDs         []string `json:"run"`
	Tags           []string `json:"tag"`
	Since          *string  `json:"since"`
	Scenarios      []string `json:"scenario"`
	AllDefinitions bool     `json:"all_definitions"`
}

// Dropped is one earlier definition of a scenario whose runs were left out.
type Dropped struct {
	Scenario   string       `json:"scenario"`
	Definition store.Digest `json:"definition"`
	Runs       int          `json:"runs"`
	// Latest is the definition counted instead.
	Latest store.Digest `json:"latest"`
}

// Listed is one counted run as the report lists it, with the first cause of its not passing.
type Listed struct {
	Bundle     store.Digest `json:"bundle"`
	RunID      string       `json:"run_id"`
	Scenario   string       `json:"scenario"`
	Case       int          `json:"case"`
	Definition store.Digest `json:"definition"`
	Status     string       `json:"status"`
	Reason     string       `json:"reason"`
}

// GatherSelected is Gather over the runs f keeps, with what the report must say about them.
// The run id, tag, time and scenario filters read only manifests, so a run left out is never
// replayed; the latest definition is chosen among the runs those filters keep.
func GatherSelected(ctx context.Context, s store.Store, f Filter) ([]Run, *Selection, error) {
	var recorded, untimed atomic.Int64
	want := func(m *store.KensaRun) bool {
		recorded.Add(1)
		switch {
		case len(f.RunIDs) > 0 && !slices.Contains(f.RunIDs, m.RunID):
			return false
		case len(f.Tags) > 0 && !slices.Contains(f.Tags, m.Annotations[annotationTag]):
			return false
		case len(f.Scenarios) > 0 && !slices.Contains(f.Scenarios, m.Scenario):
			return false
		case !f.Since.IsZero():
			t, ok := recordedTime(m)
			if !ok {
				untimed.Add(1)
			}
			return ok && !t.Before(f.Since)
		}
		return true
	}
	runs, err := replay.EachKensa(ctx, s, want, replayRun)
	if err != nil {
		return nil, nil, err
	}
	sel := &Selection{Recorded: int(recorded.Load()), Untimed: int(untimed.Load()), Filter: f.stated(), Dropped: []Dropped{}, Runs: []Listed{}}
	if !f.AllDefinitions {
		runs, sel.Dropped = latestDefinitions(runs)
	}
	sel.Counted = len(runs)
	return runs, sel, nil
}

func (f Filter) stated() SelectionFilter {
	out := SelectionFilter{RunIDs: nonNil(f.RunIDs), Tags: nonNil(f.Tags), Scenarios: nonNil(f.Scenarios), AllDefinitions: f.AllDefinitions}
	if !f.Since.IsZero() {
		since := f.Since.UTC().Format(time.RFC3339Nano)
		if f.SinceText != "" && f.SinceText != since {
			since += " (" + f.SinceText + ")"
		}
		out.Since = &since
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// recordedTime is when the run was started, as its recorder wrote it; false when it wrote no
// time it can be read from. The clock of the report never decides it.
func recordedTime(m *store.KensaRun) (time.Time, bool) {
	for _, k := range []string{startedKey, timestampKey} {
		if v, ok := m.NonScoring[k]; ok {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// latestDefinitions keeps, for each scenario whose runs have more than one definition, the
// runs of the definition of its latest run: the one recorded last, then the greatest run id,
// then the greatest bundle digest, so that the choice never depends on the order of loading.
func latestDefinitions(runs []Run) ([]Run, []Dropped) {
	latest := map[string]*Run{}
	for i := range runs {
		r := &runs[i]
		if l, ok := latest[r.Scenario]; !ok || later(r, l) {
			latest[r.Scenario] = r
		}
	}
	counts := map[string]map[store.Digest]int{}
	kept := make([]Run, 0, len(runs))
	for _, r := range runs {
		def := latest[r.Scenario].Definition
		if r.Definition == def {
			kept = append(kept, r)
			continue
		}
		if counts[r.Scenario] == nil {
			counts[r.Scenario] = map[store.Digest]int{}
		}
		counts[r.Scenario][r.Definition]++
	}
	dropped := []Dropped{}
	for _, sc := range slices.Sorted(mapsKeys(counts)) {
		for d, n := range counts[sc] {
			dropped = append(dropped, Dropped{Scenario: sc, Definition: d, Runs: n, Latest: latest[sc].Definition})
		}
	}
	slices.SortFunc(dropped, func(a, b Dropped) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), a.Definition.Compare(b.Definition))
	})
	return kept, dropped
}

func later(a, b *Run) bool {
	return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.RunID, b.RunID), a.Bundle.Compare(b.Bundle)) > 0
}

// ComputeSelected is Compute over the runs a selection counts, stating the selection and
// listing the runs counted.
func ComputeSelected(runs []Run, sel *Selection) *Report {
	rep := Compute(runs, nil)
	for _, s := range rep.Scenarios {
		sel.Runs = append(sel.Runs, s.Listed...)
	}
	rep.Selection = sel
	return rep
}
