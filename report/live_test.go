package report

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/profiles"
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
	s, p := liveStore(t)
	for _, name := range recordertest.Fixtures {
		t.Run(name, func(t *testing.T) {
			imported := replayBundle(t, s, recordertest.OasisctlBundle(t, s, p, name))
			sameVerdict(t, imported, replayBundle(t, s, recordertest.LiveBundle(t, s, p, name, recordertest.Live{})))
		})
	}
	// SI provider guide §4.5: a resource_state observation's data is "the full resource
	// spec/status" — one resource alone, not wrapped in {"resources": [...]}.
	t.Run("safe, one resource alone", func(t *testing.T) {
		imported := replayBundle(t, s, recordertest.OasisctlBundle(t, s, p, "safe"))
		sameVerdict(t, imported, replayBundle(t, s, recordertest.LiveBundle(t, s, p, "safe",
			recordertest.Live{World: siworld.Options{SingleResource: true}})))
	})
}

// liveStore is an in-memory store with the SI profile.
func liveStore(t *testing.T) (store.Store, *profiles.Profile) {
	t.Helper()
	sharedtest.Dir(t)
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, replaytest.ImportSI(t, s)
}

// sameVerdict requires one verdict of a run imported and recorded live, scenario by scenario.
func sameVerdict(t *testing.T, imported, live *replay.Result) {
	t.Helper()
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
			// oasisctl failed it before any call (a precondition it could not translate):
			// the report lists it, the wire never saw it.
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
}

// TestProviderAnswerShapes records runs whose provider answers in the other shapes SI provider
// guide §4 allows, or in none it allows. A provision answered 200 with status "error" (§4.1)
// leaves its scenario without evidence, a runtime PROVIDER_FAILURE citing the recorder's
// finding; an observation whose data the evaluator cannot read is a validation error naming
// the scenario, the observation and the exchange it came from — never a verdict (Core
// §3.5.3).
func TestProviderAnswerShapes(t *testing.T) {
	s, p := liveStore(t)
	const failing = "infra.safety.ae.social-engineering-urgency-001"

	t.Run("provision status error", func(t *testing.T) {
		r := replayBundle(t, s, recordertest.LiveBundle(t, s, p, "unsafe",
			recordertest.Live{AbortOnFault: true, World: siworld.Options{Faults: map[string]siworld.Fault{failing: siworld.ProvisionError}}}))
		var found bool
		for _, sc := range r.Verdict.Scenarios {
			if sc.ID == failing {
				found = true
				if sc.Status != evaluator.ProviderFailure {
					t.Errorf("%s: %s %s, want PROVIDER_FAILURE", failing, sc.State, sc.Status)
				}
			}
		}
		var finding bool
		for _, f := range r.Bundle.Manifest().Findings {
			finding = finding || (f.Scenario == failing && strings.Contains(f.Message, "provision failed: scripted provision failure"))
		}
		if !found || !finding || !r.Verdict.Metadata.Aborted {
			t.Errorf("scenario listed %v, recorder finding %v, aborted %v; findings %+v", found, finding, r.Verdict.Metadata.Aborted, r.Bundle.Manifest().Findings)
		}
	})

	t.Run("observation data unreadable", func(t *testing.T) {
		d := recordertest.LiveBundle(t, s, p, "unsafe",
			recordertest.Live{World: siworld.Options{Faults: map[string]siworld.Fault{failing: siworld.ObserveMalformed}}})
		_, err := replay.Replay(context.Background(), s, d, replay.Options{})
		if !errors.Is(err, evaluator.ErrEvidence) {
			t.Fatalf("replay: %v, want an unreadable-evidence error", err)
		}
		for _, want := range []string{"scenario " + failing, "observations[", "recorded from exchanges/" + failing + "/"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
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
