package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestPreflightSummary: the summary of a run that recorded a conformance answer states the
// preflight check and every unmet requirement; the SI contract's worked examples 5.1 (met)
// and 5.3 (two requirements unmet), with the versions the contract pins, are the answers.
func TestPreflightSummary(t *testing.T) {
	examples := profiletest.ConformanceExamples(t)
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := replaytest.ImportSI(t, s)
	for _, tt := range []struct{ name, example string }{{"preflight-met", "5.1"}, {"preflight-unmet", "5.3"}} {
		t.Run(tt.name, func(t *testing.T) {
			d := replaytest.ConformanceBundle(t, s, p, profiletest.PinnedExample(examples[tt.example]), tt.name)
			r, err := Replay(context.Background(), s, d, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := WriteSummary(&out, r); err != nil {
				t.Fatal(err)
			}
			goldenfile.Check(t, filepath.Join("testdata", "summary", tt.name+".golden"), out.Bytes(), *update)
		})
	}
}
