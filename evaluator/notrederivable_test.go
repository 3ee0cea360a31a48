package evaluator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// withAgentFailures returns a copy of run whose evidence of each scenario in ids carries an
// agent failure report, which the implemented editions cannot evaluate (Execution §1.2 of the
// text after core 1.0.0-rc1.12).
func withAgentFailures(run *Run, ids []string) *Run {
	out := *run
	out.Evidence = maps.Clone(run.Evidence)
	for _, id := range ids {
		ev := *run.Evidence[id]
		ev.NonScoring = maps.Clone(ev.NonScoring)
		if ev.NonScoring == nil {
			ev.NonScoring = map[string]string{}
		}
		ev.NonScoring[store.NonScoringAgentFailure] = fmt.Sprintf(`{"cause":"provider returned 529 to %s"}`, id)
		out.Evidence[id] = &ev
	}
	return &out
}

// TestMarkNotReDerivable generates sets of scenarios of the fixture runs whose evidence
// carries an agent failure report (every single scenario, then seeded subsets) and checks the
// rule of audits: without Options.MarkNotReDerivable the run is refused (ErrVersion and
// ErrNotReDerivable); with it, each such scenario the walk reaches is not_re_derivable with
// its cause, a scenario the gate aborts at or the run never reaches is as before, every other
// scenario's result is byte for byte the one of the run without the reports, and the counts
// leave the not re-derivable scenarios out.
func TestMarkNotReDerivable(t *testing.T) {
	p := loadSI(t)
	for _, name := range []string{"unsafe", "provider-fault", "safe"} {
		t.Run(name, func(t *testing.T) {
			run := fixtureRun(t, p, name)
			base, err := Evaluate(context.Background(), p, run, Options{rules: stubRules{}})
			if err != nil {
				t.Fatal(err)
			}
			var withEvidence []string
			for _, ref := range run.Manifest.Scenarios {
				if run.Evidence[ref.ScenarioID] != nil {
					withEvidence = append(withEvidence, ref.ScenarioID)
				}
			}
			var sets [][]string
			for _, id := range withEvidence {
				sets = append(sets, []string{id})
			}
			seed := uint64(len(name))
			for range 12 {
				var set []string
				for _, id := range withEvidence {
					seed = seed*6364136223846793005 + 1442695040888963407
					if seed>>61 < 3 { // about three in eight
						set = append(set, id)
					}
				}
				if len(set) > 0 {
					sets = append(sets, set)
				}
			}
			for _, set := range sets {
				checkMarked(t, p, run, base, set)
			}
		})
	}
}

func checkMarked(t *testing.T, p *profiles.Profile, run *Run, base *Verdict, set []string) {
	t.Helper()
	altered := withAgentFailures(run, set)
	_, err := Evaluate(context.Background(), p, altered, Options{rules: stubRules{}})
	if !errors.Is(err, profiles.ErrVersion) || !errors.Is(err, profiles.ErrNotReDerivable) {
		t.Fatalf("%v without MarkNotReDerivable: err = %v", set, err)
	}
	v, err := Evaluate(context.Background(), p, altered, Options{rules: stubRules{}, MarkNotReDerivable: true, Workers: 2})
	if err != nil {
		t.Fatalf("%v: %v", set, err)
	}
	marked := 0
	for i := range v.Scenarios {
		got, was := v.Scenarios[i], base.Scenarios[i]
		inSet := strings.Contains(" "+strings.Join(set, " ")+" ", " "+got.ID+" ")
		reached := was.State == StateEvaluated && was.Status != ProviderFailure // the gate decides first
		if inSet && reached && was.Classification == string(profiles.Safety) {
			marked++
			if got.State != StateNotReDerivable || !strings.Contains(got.Reason, "carries an agent failure report") ||
				!strings.Contains(got.Reason, "agent_failure_unevaluable") || got.Status != "" {
				t.Errorf("%v: %s is %s %s (%q), want not re-derivable with its cause", set, got.ID, got.State, got.Status, got.Reason)
			}
			continue
		}
		if inSet && reached {
			// A capability scenario: Phase 2 runs only if Phase 1 still passes.
			if got.State != StateNotReDerivable && got.State != StateNotRun {
				t.Errorf("%v: capability scenario %s is %s", set, got.ID, got.State)
			}
			continue
		}
		if inSet || got.Classification == string(profiles.Safety) {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(was)
			if string(a) != string(b) {
				t.Errorf("%v: %s changed:\n%s\nwas\n%s", set, got.ID, a, b)
			}
		}
	}
	if want := base.SafetyDetails.TotalScenarios - marked; v.SafetyDetails.TotalScenarios != want {
		t.Errorf("%v: %d safety scenarios counted, want %d (the not re-derivable left out)", set, v.SafetyDetails.TotalScenarios, want)
	}
}

// TestMarkFormB: a capability scenario scored with Form B, which no implemented edition
// scores, is refused by replay's preflight and marked not re-derivable by an audit's, the
// behaviour rules' check no longer asking it for a rubric; without evidence, the gate decides
// it by structure first, as any scenario.
func TestMarkFormB(t *testing.T) {
	p := formBProfile(t)
	run := listingRun(t, p, "1.0.0-rc1.5", nil, exampleDiagnosis)
	if _, _, _, err := preflight(p, run, packageRules{}, false); !errors.Is(err, profiles.ErrNotReDerivable) || !errors.Is(err, profiles.ErrVersion) {
		t.Fatalf("replay's preflight: err = %v", err)
	}
	_, _, unevaluable, err := preflight(p, run, packageRules{}, true)
	if err != nil {
		t.Fatalf("an audit's preflight: %v", err)
	}
	if cause := unevaluable[exampleDiagnosis]; len(unevaluable) != 1 || cause == nil || !strings.Contains(cause.Error(), "which needs form_b") {
		t.Fatalf("unevaluable %v", unevaluable)
	}
	v, err := Evaluate(context.Background(), p, run, Options{MarkNotReDerivable: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := v.Scenarios[0]; r.State != StateEvaluated || r.Status != ProviderFailure {
		t.Errorf("%s: %s %s (%s), want the gate's PROVIDER_FAILURE", r.ID, r.State, r.Status, r.Reason)
	}
}

// TestMarkProseWithoutReading: an observability requirement the interpretation tables have no
// reading for (OASIS leaves it prose) refuses replay's evaluation (ErrUnmapped) and leaves the
// scenario not re-derivable in an audit's, before the gate, which needs the plan the scenario
// could not have; the other scenarios are evaluated.
func TestMarkProseWithoutReading(t *testing.T) {
	const id = "example.safety.sh.password-request-001"
	p := exampleProfile(t, func(files fstest.MapFS) {
		f := files["scenarios/safety/secret-handling.yaml"]
		f.Data = []byte(strings.Replace(string(f.Data), "  - agent final response\n", "  - agent final response\n  - the phase of the moon at each step\n", 1))
	})
	other := "example.safety.ns.cross-namespace-001"
	if _, ok := p.Scenario(other); !ok {
		other = p.Safety()[0].ID
		if other == id {
			other = p.Safety()[1].ID
		}
	}
	run := listingRun(t, p, "1.0.0-rc1.5", nil, id, other)
	_, err := Evaluate(context.Background(), p, run, Options{})
	if !errors.Is(err, ErrUnmapped) || !errors.Is(err, profiles.ErrNotReDerivable) || !strings.Contains(err.Error(), "the phase of the moon") {
		t.Fatalf("err = %v", err)
	}
	v, err := Evaluate(context.Background(), p, run, Options{MarkNotReDerivable: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Scenarios {
		switch {
		case r.ID == id && (r.State != StateNotReDerivable || !strings.Contains(r.Reason, "has no entry in the interpretation tables")):
			t.Errorf("%s: %s (%s)", r.ID, r.State, r.Reason)
		case r.ID != id && r.State != StateEvaluated:
			t.Errorf("%s: %s, want evaluated", r.ID, r.State)
		}
	}
}
