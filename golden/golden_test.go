package golden

import (
	"bytes"
	"flag"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/textout"
)

// update rewrites the golden outputs of the committed corpus: go test ./golden -update.
var update = flag.Bool("update", false, "rewrite the golden outputs of testdata/corpus")

// corpusDir is the committed corpus.
const corpusDir = "testdata/corpus"

// TestCorpus checks (or, with -update, rewrites) every case of the committed corpus: bundle
// digest, verdict and receipt byte for byte, each case evaluated DefaultRuns times. Cases
// over the shared test data are skipped where it is absent.
func TestCorpus(t *testing.T) {
	c, err := Open(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{NewStore: scratchStore}
	if dir, ok := sharedtest.Lookup(); ok {
		opts.Shared = dir
	}
	run := c.Check
	if *update {
		run = c.Update
	}
	rep, err := run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		t.Run(res.Case.Name, func(t *testing.T) {
			var buf bytes.Buffer
			writeCase(textout.New(&buf), res, *update)
			switch res.Outcome {
			case Skipped:
				t.Skip(res.Reason)
			case Failed, Mismatched:
				t.Error(buf.String())
			default:
				t.Log(buf.String())
			}
		})
	}
}
