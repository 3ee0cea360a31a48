package golden

import (
	"bytes"
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// A check reported from the records a remote keeps reads as the check itself: WriteRecords of a
// report's records and the report's WriteText are one rendering, byte for byte, for every
// outcome (the go-cmp renderings, which records do not keep, aside).
func TestRecordsRenderAsTheReport(t *testing.T) {
	d := func(b byte) store.Digest { return store.Digest(bytes.Repeat([]byte{b}, 32)) }
	diff := []doc.Difference{{Path: "/overall", Kind: doc.Changed, A: `"PASS"`, B: `"FAIL"`}}
	rep := &Report{Dir: "corpus", Results: []*CaseResult{
		{Case: &Case{Name: "ok"}, Outcome: OK, Bundle: d(1), Verdict: d(2), Receipt: d(3), Overall: "PASS", Runs: 8},
		{Case: &Case{Name: "skip"}, Outcome: Skipped, Reason: "needs $SHARED"},
		{Case: &Case{Name: "err"}, Outcome: Failed, Err: errors.New("cannot build")},
		{Case: &Case{Name: "diverge"}, Outcome: Mismatched, Bundle: d(4), Verdict: d(5), Overall: "FAIL", Runs: 2,
			Divergence: &replay.Divergence{Baseline: replay.Setting{Run: 1, GOMAXPROCS: 1, Workers: 1},
				Setting: replay.Setting{Run: 2, GOMAXPROCS: 2, Workers: 2}, Want: d(5), Got: d(6), Differences: diff, Truncated: true}},
		{Case: &Case{Name: "differs"}, Outcome: Mismatched, Bundle: d(7), Verdict: d(8), Overall: "PASS", Runs: 8,
			Mismatches: []Mismatch{{File: "differs.verdict.json", Want: "sha256:aaaa", Got: "sha256:bbbb", Note: "only the rules changed", Differences: diff}}},
	}}
	var want, got bytes.Buffer
	if err := rep.WriteText(&want); err != nil {
		t.Fatal(err)
	}
	records := make([]Record, len(rep.Results))
	for i, res := range rep.Results {
		records[i] = res.Record()
	}
	if err := WriteRecords(&got, rep.Dir, records); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("records render as\n%s\nthe report as\n%s", got.String(), want.String())
	}
}
