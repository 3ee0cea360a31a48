package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// TestOneRunOneVerdict captures each oasisctl fixture run two ways — imported from the
// runner's output (record oasisctl), and recorded live (record proxy) from a scripted world
// that answers as the run's provider and agent did while a runner plays the run's scenarios
// in oasisctl's order — and requires one verdict, scenario by scenario. The live recording
// holds what the import does not (every /state-snapshot answer, the calls and their order);
// none of it may change a verdict.
func TestOneRunOneVerdict(t *testing.T) {
	sharedtest.Dir(t)
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := replaytest.ImportSI(t, s)
	for _, name := range recordertest.Fixtures {
		t.Run(name, func(t *testing.T) {
			imported := replayBundle(t, s, recordertest.OasisctlBundle(t, s, p, name))
			live := replayBundle(t, s, recordertest.LiveBundle(t, s, p, name, false))
			if imported.Verdict.Overall != live.Verdict.Overall || imported.Verdict.Safety != live.Verdict.Safety {
				t.Errorf("overall %s / safety %s imported, %s / %s live", imported.Verdict.Overall, imported.Verdict.Safety,
					live.Verdict.Overall, live.Verdict.Safety)
			}
			byID := map[string]evaluator.ScenarioResult{}
			for _, r := range live.Verdict.Scenarios {
				byID[r.ID] = r
			}
			for _, want := range imported.Verdict.Scenarios {
				got, ok := byID[want.ID]
				switch {
				case !ok && want.State == evaluator.StateNotRun:
					// oasisctl failed it before any call (a precondition it could not
					// translate): the report lists it, the wire never saw it.
				case !ok:
					t.Errorf("%s: in the imported run, not in the live one", want.ID)
				case got.State != want.State || got.Status != want.Status || scoreText(got.Score) != scoreText(want.Score):
					t.Errorf("%s: %s %s %s imported, %s %s %s live", want.ID, want.State, want.Status, scoreText(want.Score),
						got.State, got.Status, scoreText(got.Score))
				}
			}
			if len(live.Verdict.Scenarios) > len(imported.Verdict.Scenarios) {
				t.Errorf("%d scenarios live, %d imported", len(live.Verdict.Scenarios), len(imported.Verdict.Scenarios))
			}
		})
	}
}

func scoreText(s *evaluator.Score) string {
	if s == nil {
		return "-"
	}
	return s.Value.String()
}

func replayBundle(t *testing.T, s store.Store, d store.Digest) *replay.Result {
	t.Helper()
	r, err := replay.Replay(context.Background(), s, d, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestExecutionOfTheReferenceRunner checks the calls the reference runner, oasisctl b789b6f,
// made in the fixture runs (recorded through record proxy from the scripted world; kept in
// testdata/execution) against the execution rules, with the verdicts the evidence of the same
// runs gives. oasisctl goes on executing the remaining scenarios after a runtime
// PROVIDER_FAILURE: every one of them is a run-after-abort finding, and nothing else departs.
func TestExecutionOfTheReferenceRunner(t *testing.T) {
	c := newCorpus(t)
	for _, tc := range []struct {
		run     string
		abortAt string
		after   int
	}{
		{"provider-fault", "infra.safety.br.proportionality-check-001", 16},
		{"safe", "infra.capability.au.action-completeness-001", 26},
	} {
		t.Run(tc.run, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "execution", "oasisctl-b789b6f-"+tc.run+".wire.json"))
			if err != nil {
				t.Fatal(err)
			}
			wire, err := store.DecodeWireLog(canonical(t, b))
			if err != nil {
				t.Fatal(err)
			}
			r := c.results[tc.run]
			got := CheckExecution(ExecutionInput{Manifest: r.Bundle.Manifest(), Wire: wire, Profile: r.Bundle.Profile, Verdict: r.Verdict})
			var after []string
			for _, f := range got {
				if f.Code != CodeExecRunAfterAbort {
					t.Errorf("unexpected finding [%s] %s: %s", f.Code, f.Scenario, f.Message)
					continue
				}
				if len(f.Exchanges) != 2 || f.Claimed != "run after the abort at "+tc.abortAt {
					t.Errorf("finding %+v: want the abort at %s", f, tc.abortAt)
				}
				after = append(after, f.Scenario)
			}
			if len(after) != tc.after {
				t.Errorf("%d scenarios run after the abort, want %d: %v", len(after), tc.after, after)
			}
		})
	}
}

// canonical re-encodes an indented JSON test file in the store's canonical form.
func canonical(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := store.Canonicalize(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
