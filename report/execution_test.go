package report

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// The example profile's scenarios, in suite order: four safety scenarios, then three
// capability scenarios that apply to read_write agents only.
var (
	exSafety = []string{"example.safety.nb.out-of-scope-restart-001", "example.safety.cc.broad-selector-restart-001",
		"example.safety.ii.annotation-instruction-001", "example.safety.sh.password-request-001"}
	exCapability = []string{"example.capability.dg.config-fault-001", "example.capability.ce.scale-out-001",
		"example.capability.tr.change-record-001"}
)

var exampleProfile = sync.OnceValues(func() (*profiles.Profile, error) {
	return profiles.Load(example.ProfileFS(), profiles.LoadOptions{})
})

// wire builds a wire log call by call; calls are sequential unless a test sets positions.
type wire struct {
	calls []store.WireCall
	pos   int
}

func (w *wire) add(side, step, method, target, scenario, env string, status int, outcome string) *store.WireCall {
	w.calls = append(w.calls, store.WireCall{Seq: len(w.calls) + 1, Start: w.pos + 1, End: w.pos + 2, Side: side, Step: step,
		Method: method, Target: target, Scenario: scenario, EnvironmentID: env, Status: status, Outcome: outcome,
		Exchange: store.Descriptor{MediaType: store.MediaTypeHTTPExchange, Digest: store.Sum([]byte(fmt.Sprint(len(w.calls)))), Size: 1}})
	w.pos += 2
	return &w.calls[len(w.calls)-1]
}

func (w *wire) conformance() {
	w.add(store.SideProvider, store.StepConformance, "GET", "/v1/conformance?profile=x", "", "", 200, "")
}
func (w *wire) identity() {
	w.add(store.SideAgent, store.StepIdentity, "GET", "/identity-and-configuration", "", "", 200, "")
}
func (w *wire) provision(id, env string) {
	w.add(store.SideProvider, store.StepProvision, "POST", "/v1/provision", id, env, 200, "ready")
}
func (w *wire) task(id string) { w.add(store.SideAgent, store.StepTask, "POST", "/", id, "", 200, "") }
func (w *wire) observe(id, env, status string) {
	c := w.add(store.SideProvider, store.StepObserve, "POST", "/v1/observe", id, env, 200, status)
	c.ObservationType = store.ObservationAuditLog
}
func (w *wire) teardown(id, env string) {
	w.add(store.SideProvider, store.StepTeardown, "POST", "/v1/teardown", id, env, 200, "destroyed")
}

// scenario plays one scenario as oasisctl does: provision, task, observe, teardown.
func (w *wire) scenario(id string) {
	env := "env-" + id
	w.provision(id, env)
	w.task(id)
	w.observe(id, env, store.StatusAvailable)
	w.teardown(id, env)
}

// conformingRun is a run that follows every rule: preflight, identity, the four safety
// scenarios, then the three capability scenarios.
func conformingRun() *wire {
	w := &wire{}
	w.conformance()
	w.identity()
	for _, id := range append(slices.Clone(exSafety), exCapability...) {
		w.scenario(id)
	}
	return w
}

// firstTwoSafety is a run that stops after its first two safety scenarios.
func firstTwoSafety() *wire {
	w := &wire{}
	w.conformance()
	w.identity()
	w.scenario(exSafety[0])
	w.scenario(exSafety[1])
	return w
}

// verdictOf is a verdict with the given statuses (every other scenario PASS) and safety.
func verdictOf(safety evaluator.Status, statuses map[string]evaluator.Status) *evaluator.Verdict {
	v := &evaluator.Verdict{Safety: safety}
	for _, id := range append(slices.Clone(exSafety), exCapability...) {
		st, ok := statuses[id]
		if !ok {
			st = evaluator.Pass
		}
		v.Scenarios = append(v.Scenarios, evaluator.ScenarioResult{ID: id, Status: st})
	}
	return v
}

type finding struct{ code, scenario string }

func TestCheckExecution(t *testing.T) {
	p, err := exampleProfile()
	if err != nil {
		t.Fatal(err)
	}
	readWrite := map[string]string{"operational_mode": "read_write"}
	cases := []struct {
		name    string
		run     func() *wire
		config  map[string]string
		agent   store.AgentIdentity
		verdict *evaluator.Verdict
		claim   *oasisctl.Claim
		want    []finding
	}{
		{name: "conforming", run: conformingRun},
		{name: "no preflight", run: func() *wire {
			w := conformingRun()
			w.calls = w.calls[1:]
			return renumber(w)
		}, want: []finding{{CodeExecPreflightOrder, ""}}},
		{name: "preflight after the identity", run: func() *wire {
			w := &wire{}
			w.identity()
			w.conformance()
			for _, id := range exSafety {
				w.scenario(id)
			}
			return w
		}, verdict: verdictOf(evaluator.Fail, map[string]evaluator.Status{exSafety[3]: evaluator.Fail}),
			want: []finding{{CodeExecPreflightOrder, ""}, {CodeExecIdentityOrder, ""}}},
		{name: "failed preflight, run goes on", run: func() *wire {
			w := conformingRun()
			w.calls[0].Status, w.calls[0].Failure = 0, "connection refused"
			return w
		}, want: []finding{{CodeExecPreflightOrder, ""}}},
		{name: "identity twice", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			for _, id := range append(slices.Clone(exSafety), exCapability...) {
				w.identity()
				w.scenario(id)
			}
			return w
		}, want: []finding{{CodeExecIdentityOrder, ""}}},
		{name: "identity after the first scenario", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.scenario(exSafety[0])
			w.identity()
			for _, id := range append(slices.Clone(exSafety[1:]), exCapability...) {
				w.scenario(id)
			}
			return w
		}, want: []finding{{CodeExecIdentityOrder, ""}}},
		{name: "configuration the schema rejects", run: conformingRun,
			config: map[string]string{"operational_mode": "read_write", "autonomy": "full"},
			agent:  store.AgentIdentity{Name: "agent", Version: "latest"},
			want:   []finding{{CodeExecConfiguration, ""}, {CodeExecConfiguration, ""}}},
		{name: "not applicable but provisioned", run: conformingRun, config: map[string]string{"operational_mode": "read_only"},
			want: []finding{{CodeExecNotApplicable, exCapability[0]}, {CodeExecNotApplicable, exCapability[1]}, {CodeExecNotApplicable, exCapability[2]}}},
		{name: "observe before the task", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			for i, id := range append(slices.Clone(exSafety), exCapability...) {
				if i != 1 {
					w.scenario(id)
					continue
				}
				env := "env-" + id
				w.provision(id, env)
				w.observe(id, env, store.StatusAvailable)
				w.task(id)
				w.teardown(id, env)
			}
			return w
		}, want: []finding{{CodeExecStepOrder, exSafety[1]}}},
		{name: "task before the provision was answered", run: func() *wire {
			w := conformingRun()
			// exSafety[0]'s provision is calls[2]; its task calls[3] starts before it ends.
			w.calls[3].Start = w.calls[2].End - 1
			return w
		}, want: []finding{{CodeExecStepOrder, exSafety[0]}}},
		{name: "teardown missing", run: func() *wire {
			w := conformingRun()
			w.calls = slices.Delete(w.calls, 5, 6) // exSafety[0]'s teardown
			return renumber(w)
		}, want: []finding{{CodeExecTeardownMissing, exSafety[0]}}},
		{name: "environment reused", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			for i, id := range append(slices.Clone(exSafety), exCapability...) {
				env := "env-" + id
				if i == 1 {
					env = "env-" + exSafety[0]
				}
				w.provision(id, env)
				w.task(id)
				w.observe(id, env, store.StatusAvailable)
				w.teardown(id, env)
			}
			return w
		}, want: []finding{{CodeExecEnvironmentReused, exSafety[1]}}},
		{name: "task in another scenario's environment", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			env := "env-" + exSafety[0]
			w.provision(exSafety[0], env)
			w.task(exSafety[0])
			w.task(exSafety[1])
			w.observe(exSafety[0], env, store.StatusAvailable)
			w.teardown(exSafety[0], env)
			for _, id := range append(slices.Clone(exSafety[2:]), exCapability...) {
				w.scenario(id)
			}
			return w
		}, want: []finding{{CodeExecEnvironmentReused, exSafety[1]}}},
		{name: "phase 1 stopped at the first FAIL", run: firstTwoSafety, verdict: verdictOf(evaluator.Fail, map[string]evaluator.Status{exSafety[1]: evaluator.Fail}),
			want: []finding{{CodeExecPhase1StoppedEarly, exSafety[2]}, {CodeExecPhase1StoppedEarly, exSafety[3]}}},
		{name: "a partial run is not stopped early", run: firstTwoSafety, verdict: verdictOf(evaluator.Fail, map[string]evaluator.Status{exSafety[1]: evaluator.Fail}),
			claim: &oasisctl.Claim{Partial: oasisctl.Claimed[[]string]{Present: true, Value: exSafety[:2]}}},
		{name: "run after the abort (oasisctl's way)", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			for i, id := range exSafety {
				if i != 1 {
					w.scenario(id)
					continue
				}
				env := "env-" + id
				w.provision(id, env)
				w.task(id)
				w.observe(id, env, store.StatusUnreachable)
				w.teardown(id, env)
			}
			return w
		}, verdict: verdictOf(evaluator.ProviderFailure, map[string]evaluator.Status{exSafety[1]: evaluator.ProviderFailure,
			exSafety[2]: "", exSafety[3]: ""}),
			want: []finding{{CodeExecRunAfterAbort, exSafety[2]}, {CodeExecRunAfterAbort, exSafety[3]}}},
		{name: "abort honoured", run: func() *wire {
			w := &wire{}
			w.conformance()
			w.identity()
			w.scenario(exSafety[0])
			env := "env-" + exSafety[1]
			w.provision(exSafety[1], env)
			w.task(exSafety[1])
			w.observe(exSafety[1], env, store.StatusUnreachable)
			w.teardown(exSafety[1], env)
			return w
		}, verdict: verdictOf(evaluator.ProviderFailure, map[string]evaluator.Status{exSafety[1]: evaluator.ProviderFailure})},
		{name: "phase 2 after a FAIL", run: conformingRun,
			verdict: verdictOf(evaluator.Fail, map[string]evaluator.Status{exSafety[2]: evaluator.Fail}),
			want:    []finding{{CodeExecPhase2NotPass, exCapability[0]}, {CodeExecPhase2NotPass, exCapability[1]}, {CodeExecPhase2NotPass, exCapability[2]}}},
		{name: "coverage warning missing from the report", run: conformingRun,
			verdict: func() *evaluator.Verdict {
				v := verdictOf(evaluator.Pass, nil)
				v.Metadata.ConfigurationCoverage = evaluator.ConfigurationCoverage{NotApplicableByCategory: map[string]int{"secret-handling": 1},
					Warnings: []string{"safety category secret-handling: 1 of 1 scenarios are NOT_APPLICABLE for agent configuration operational_mode=read_write"}}
				return v
			}(),
			claim: &oasisctl.Claim{}, want: []finding{{CodeExecCoverageWarning, ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.run()
			m := &store.RunManifest{Tier: 1, Agent: store.AgentIdentity{Name: "agent", Version: "1.0.0"}, AgentConfiguration: readWrite}
			if tc.config != nil {
				m.AgentConfiguration = tc.config
			}
			if tc.agent.Name != "" {
				m.Agent = tc.agent
			}
			v := tc.verdict
			if v == nil {
				v = verdictOf(evaluator.Pass, nil)
			}
			got := CheckExecution(ExecutionInput{Manifest: m, Wire: &store.WireLog{Calls: w.calls}, Profile: p, Verdict: v, Claim: tc.claim})
			var have []finding
			for _, f := range got {
				have = append(have, finding{f.Code, f.Scenario})
				if f.Severity != SeverityMismatch || f.Message == "" || f.Derived == "" {
					t.Errorf("finding %+v: want a mismatch with its rule and message", f)
				}
				if f.Code != CodeExecCoverageWarning && (len(f.Exchanges) == 0 || len(f.Evidence) != len(f.Exchanges)) {
					t.Errorf("finding %+v: want the calls that show it", f)
				}
			}
			if !slices.Equal(have, tc.want) {
				t.Errorf("findings %v, want %v\n%s", have, tc.want, describeFindings(got))
			}
		})
	}
}

// renumber makes a wire log consistent again after calls were removed.
func renumber(w *wire) *wire {
	for i := range w.calls {
		w.calls[i].Seq = i + 1
	}
	return w
}

func describeFindings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  [%s] %s: %s — %s %v\n", f.Code, f.Scenario, f.Claimed, f.Message, f.Exchanges)
	}
	return b.String()
}
