package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Execution finding codes, one per rule of execution conformance checked from a live
// recording's calls (store.WireLog). They are stable: scripts and CI may match on them.
const (
	CodeExecPreflightOrder      = "execution-preflight-order"
	CodeExecIdentityOrder       = "execution-identity-order"
	CodeExecConfiguration       = "execution-configuration"
	CodeExecNotApplicable       = "execution-not-applicable-provisioned"
	CodeExecStepOrder           = "execution-step-order"
	CodeExecTeardownMissing     = "execution-teardown-missing"
	CodeExecEnvironmentReused   = "execution-environment-reused"
	CodeExecPhase1StoppedEarly  = "execution-phase1-stopped-early"
	CodeExecRunAfterAbort       = "execution-run-after-abort"
	CodeExecPhase2NotPass       = "execution-phase2-not-pass"
	CodeExecCoverageWarning     = "execution-coverage-warning"
	executionSubjectRun         = "run"
	executionWireLogDescription = "the recorded order of the runner's calls (wire log)"
)

// executionCodes are the execution codes, in the order the rules are checked.
var executionCodes = []string{CodeExecPreflightOrder, CodeExecIdentityOrder, CodeExecConfiguration, CodeExecNotApplicable,
	CodeExecStepOrder, CodeExecTeardownMissing, CodeExecEnvironmentReused, CodeExecPhase1StoppedEarly,
	CodeExecRunAfterAbort, CodeExecPhase2NotPass, CodeExecCoverageWarning}

// ExecutionInput is what the execution rules are checked on: a live recording's manifest and
// wire log, the profile it pins, the verdict its evidence gives, and the claimed report when
// there is one (the coverage warning is a fact of the report).
type ExecutionInput struct {
	Manifest *store.RunManifest
	Wire     *store.WireLog
	Profile  *profiles.Profile
	Verdict  *evaluator.Verdict
	Claim    *oasisctl.Claim
}

// CheckExecution checks the recorded calls of a run against the execution rules of OASIS
// (Execution §1–§3, Provider Conformance §3.1 and §3.8.3, Core §2 and §3.7). Every departure
// is a mismatch naming the calls (their Seq in the wire log) that show it; a rule about one
// scenario gives one finding per scenario concerned. The order of the findings is the order
// of the rules, then of the calls.
func CheckExecution(in ExecutionInput) []Finding {
	x := newExecution(in)
	x.preflight()
	x.identity()
	x.configuration()
	x.notApplicable()
	x.stepOrder()
	x.teardowns()
	x.reuse()
	x.phase1StoppedEarly()
	x.runAfterAbort()
	x.phase2NotPass()
	x.coverageWarning()
	return x.findings
}

// execution is the state of one CheckExecution.
type execution struct {
	in     ExecutionInput
	calls  []store.WireCall
	status map[string]evaluator.Status // derived status by scenario
	// envs are the environments provisioned, in order of their provision; byID and
	// byScenario index them, so that attributing the calls of a long recording stays linear.
	envs       []*envCalls
	byID       map[string][]*envCalls
	byScenario map[string][]*envCalls
	// scenarios in the order their first provision arrived.
	scenarios []string
	findings  []Finding
}

// envCalls are the calls of one environment: one successful provision, and every later call
// that names its id (before the id is handed out again, if it is), tasks included.
type envCalls struct {
	id, scenario string
	provision    store.WireCall
	calls        []store.WireCall
}

func newExecution(in ExecutionInput) *execution {
	x := &execution{in: in, calls: in.Wire.Calls, status: map[string]evaluator.Status{},
		byID: map[string][]*envCalls{}, byScenario: map[string][]*envCalls{}}
	for _, r := range in.Verdict.Scenarios {
		x.status[r.ID] = r.Status
	}
	for _, c := range x.calls {
		switch {
		case c.Step == store.StepProvision:
			if c.Scenario != "" && !slices.Contains(x.scenarios, c.Scenario) {
				x.scenarios = append(x.scenarios, c.Scenario)
			}
			if provisioned(c) {
				e := &envCalls{id: c.EnvironmentID, scenario: c.Scenario, provision: c}
				x.envs = append(x.envs, e)
				x.byID[e.id] = append(x.byID[e.id], e)
				x.byScenario[e.scenario] = append(x.byScenario[e.scenario], e)
			}
		case c.EnvironmentID != "":
			if e := x.envNamed(c.EnvironmentID, c.Start); e != nil {
				e.calls = append(e.calls, c)
			}
		}
	}
	// Agent tasks name no environment: they belong to the environment of their scenario that
	// was open when they arrived.
	for _, c := range x.calls {
		if c.Step != store.StepTask || c.Scenario == "" {
			continue
		}
		if e := x.openEnvOf(c.Scenario, c.Start); e != nil {
			e.calls = append(e.calls, c)
		}
	}
	for _, e := range x.envs {
		slices.SortFunc(e.calls, func(a, b store.WireCall) int { return a.Seq - b.Seq })
	}
	return x
}

// envNamed is the environment a call naming id at position pos concerns: the latest one
// provisioned with that id before it.
func (x *execution) envNamed(id string, pos int) *envCalls {
	var found *envCalls
	for _, e := range x.byID[id] {
		if e.provision.Start < pos {
			found = e
		}
	}
	return found
}

// provisioned reports whether a provision call created an environment (SI provider guide
// §4.1: a 2xx answer whose status is not "error").
func provisioned(c store.WireCall) bool {
	return ok(c) && c.EnvironmentID != "" && c.Outcome != "error"
}

// ok reports whether a call got a whole 2xx answer.
func ok(c store.WireCall) bool {
	return c.Failure == "" && c.Status >= 200 && c.Status < 300
}

// openEnvOf is the environment of scenario whose provision began before position pos and
// that was not yet torn down then, the latest such.
func (x *execution) openEnvOf(scenario string, pos int) *envCalls {
	var found *envCalls
	for _, e := range x.byScenario[scenario] {
		if e.provision.Start > pos {
			continue
		}
		if td, torn := e.teardown(); torn && td.Start < pos {
			continue
		}
		found = e
	}
	return found
}

// teardown is the environment's first teardown call.
func (e *envCalls) teardown() (store.WireCall, bool) {
	for _, c := range e.calls {
		if c.Step == store.StepTeardown {
			return c, true
		}
	}
	return store.WireCall{}, false
}

// describe renders a call for the deciding evidence: "#12 provider POST /v1/provision
// (infra.safety.x, env-3) → 200 ready".
func describeCall(c store.WireCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s %s", c.Seq, c.Side, c.Method, c.Target)
	var about []string
	if c.ObservationType != "" {
		about = append(about, c.ObservationType)
	}
	if c.Scenario != "" {
		about = append(about, c.Scenario)
	}
	if c.EnvironmentID != "" {
		about = append(about, "environment "+c.EnvironmentID)
	}
	if len(about) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(about, ", "))
	}
	switch {
	case c.Failure != "":
		fmt.Fprintf(&b, " → failed: %s", c.Failure)
	case c.Status != 0:
		fmt.Fprintf(&b, " → %d", c.Status)
		if c.Outcome != "" {
			fmt.Fprintf(&b, " %s", c.Outcome)
		}
	}
	return b.String()
}

// add records a departure shown by calls.
func (x *execution) add(code, scenario, did, rule, msg string, calls ...store.WireCall) {
	f := Finding{Code: code, Severity: SeverityMismatch, Scenario: scenario, Subject: executionSubjectRun,
		Claimed: did, Derived: rule, Message: msg, Exchanges: []int{}}
	for _, c := range calls {
		if !slices.Contains(f.Exchanges, c.Seq) {
			f.Exchanges = append(f.Exchanges, c.Seq)
		}
	}
	slices.Sort(f.Exchanges)
	for _, seq := range f.Exchanges {
		f.Evidence = append(f.Evidence, describeCall(x.calls[seq-1]))
	}
	x.findings = append(x.findings, f)
}

// where lists the calls that keep accepts, in order.
func (x *execution) where(keep func(store.WireCall) bool) []store.WireCall {
	var out []store.WireCall
	for _, c := range x.calls {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}

// callsOf lists the calls of a step.
func (x *execution) callsOf(step string) []store.WireCall {
	return x.where(func(c store.WireCall) bool { return c.Step == step })
}

// scenarioCalls lists every call attributed to a scenario.
func (x *execution) scenarioCalls(id string) []store.WireCall {
	return x.where(func(c store.WireCall) bool { return c.Scenario == id })
}

// provisionsOf lists the provision calls of a scenario.
func (x *execution) provisionsOf(id string) []store.WireCall {
	return x.where(func(c store.WireCall) bool { return c.Step == store.StepProvision && c.Scenario == id })
}

// first returns the first call of a step, if any.
func (x *execution) first(step string) (store.WireCall, bool) {
	for _, c := range x.calls {
		if c.Step == step {
			return c, true
		}
	}
	return store.WireCall{}, false
}

// preflight: the conformance query is the first step of a run, before any provision, observe
// or scenario traffic, and a failed query aborts the run (Provider Conformance §3.8.3;
// Execution §3 step 0).
func (x *execution) preflight() {
	conf, found := x.first(store.StepConformance)
	const rule = "GET /v1/conformance first, answered before any other call (Provider Conformance §3.8.3, Execution §3 step 0)"
	if !found {
		if len(x.calls) > 0 {
			x.add(CodeExecPreflightOrder, "", "no conformance query", rule,
				"the runner never queried the provider's conformance endpoint; a run without the preflight check is not an OASIS run (Provider Conformance §3.8.3)", x.calls[0])
		}
		return
	}
	var before []store.WireCall
	for _, c := range x.calls {
		if c.Seq != conf.Seq && c.Start < conf.End && c.Step != store.StepConformance {
			before = append(before, c)
		}
	}
	if len(before) > 0 {
		x.add(CodeExecPreflightOrder, "", fmt.Sprintf("%d call(s) before the preflight was answered", len(before)), rule,
			"the runner made calls before the conformance query was answered; the preflight check is the first step, before any provision, observe or scenario execution traffic", append(before, conf)...)
	}
	if !ok(conf) {
		if later := x.afterwards(conf, store.StepProvision, store.StepTask, store.StepIdentity); len(later) > 0 {
			x.add(CodeExecPreflightOrder, "", "the run went on after a failed conformance query", "abort when the conformance endpoint is unreachable or answers other than 200 (Provider Conformance §3.8.3)",
				"the conformance query got no 200 answer, which is a preflight failure: the runner must abort with an error describing it, and no scenario runs", append([]store.WireCall{conf}, later[0])...)
		}
	}
}

// afterwards lists the calls of the given steps that started after c ended.
func (x *execution) afterwards(c store.WireCall, steps ...string) []store.WireCall {
	return x.where(func(o store.WireCall) bool { return o.Start > c.End && slices.Contains(steps, o.Step) })
}

// identity: the agent reports its identity and configuration once, at the start of the run,
// not per scenario (Execution §1), after the preflight and before the first scenario
// (Execution §3 step 2).
func (x *execution) identity() {
	ids := x.callsOf(store.StepIdentity)
	firstScenario, hasScenario := x.firstScenarioCall()
	const rule = "GET identity-and-configuration exactly once, after the preflight and before the first scenario (Execution §1, §3 step 2)"
	switch {
	case len(ids) == 0 && hasScenario:
		x.add(CodeExecIdentityOrder, "", "no identity query", rule,
			"the runner never asked the agent for its identity and configuration; scenario applicability and the verdict's agent metadata rest on it", firstScenario)
		return
	case len(ids) > 1:
		x.add(CodeExecIdentityOrder, "", fmt.Sprintf("%d identity queries", len(ids)), rule,
			"identity and configuration are reported once per run, not per scenario (Execution §1)", ids...)
	}
	if len(ids) == 0 {
		return
	}
	id := ids[0]
	if conf, found := x.first(store.StepConformance); found && id.Start < conf.End {
		x.add(CodeExecIdentityOrder, "", "identity queried before the preflight was answered", rule,
			"the agent was queried before the provider's conformance was established (Execution §3: step 0 precedes step 2)", conf, id)
	}
	if hasScenario && firstScenario.Start < id.End {
		x.add(CodeExecIdentityOrder, "", "a scenario began before the identity was answered", rule,
			"scenario execution needs the agent's configuration to decide applicability (Execution §3 step 4a), so the identity query comes first", id, firstScenario)
	}
}

// firstScenarioCall is the first provision or agent task of the run.
func (x *execution) firstScenarioCall() (store.WireCall, bool) {
	for _, c := range x.calls {
		if c.Step == store.StepProvision || c.Step == store.StepTask {
			return c, true
		}
	}
	return store.WireCall{}, false
}

// configuration: the reported identity is a name and a semver version, and the reported
// configuration conforms to the profile's agent configuration schema (Execution §1; §3 steps
// 2c–2d). A runner that goes on with a configuration the schema rejects evaluates
// applicability on values that mean nothing.
func (x *execution) configuration() {
	ids := x.callsOf(store.StepIdentity)
	if len(ids) == 0 {
		return
	}
	id := ids[len(ids)-1]
	m := x.in.Manifest
	var problems []string
	if m.Agent.Name == "" {
		problems = append(problems, "the identity has no name")
	}
	if _, err := profiles.ParseVersion(m.Agent.Version); err != nil {
		problems = append(problems, fmt.Sprintf("the identity's version %q is not a semver version", m.Agent.Version))
	}
	schema := &x.in.Profile.AgentConfig
	if schema.Declared {
		for _, k := range slices.Sorted(maps.Keys(m.AgentConfiguration)) {
			v := m.AgentConfiguration[k]
			dim, found := schema.Dimension(k)
			switch {
			case !found:
				problems = append(problems, fmt.Sprintf("%s is not a dimension of the profile's agent configuration schema", k))
			case !dim.Valid(v):
				problems = append(problems, fmt.Sprintf("%s = %s is not a valid %s value (%s)", k, v, dim.Type, strings.Join(dim.Values, ", ")))
			}
		}
	}
	for _, p := range problems {
		x.add(CodeExecConfiguration, "", p, "an identity (name, semver version) and a configuration that conforms to the profile's agent configuration schema (Execution §1; §3 steps 2c–2d)",
			"the runner went on with an identity or configuration it should have rejected: applicability and conditional assertions are decided on these values", id)
	}
}

// notApplicable: a scenario excluded by the agent's configuration is recorded as an
// exclusion and never provisioned (Execution §3 steps 4a, 7a; Scenarios §1.9).
func (x *execution) notApplicable() {
	config := x.in.Manifest.AgentConfiguration
	for _, id := range x.scenarios {
		sc, found := x.in.Profile.Scenario(id)
		if !found {
			continue
		}
		if applies, reason := x.in.Profile.Applies(sc, config); !applies {
			x.add(CodeExecNotApplicable, id, "provisioned", "NOT_APPLICABLE: recorded as an exclusion, never provisioned (Execution §3 steps 4a, 7a)",
				"the scenario does not apply to the agent's configuration ("+reason+"), so the runner decides its applicability before provisioning and skips it", x.provisionsOf(id)...)
		}
	}
}

// stepOrder: within a scenario, provision, then inject, then the agent task, then the
// independent observations, then teardown, each after the previous one was answered
// (Execution §3 steps 4b–4j; a state snapshot may also be taken before the task, as the
// before state).
func (x *execution) stepOrder() {
	const rule = "provision → inject-state → agent task → observe → teardown, each after the one before was answered (Execution §3 steps 4b–4j)"
	for _, e := range x.envs {
		envID := e.id
		task, hasTask := e.task()
		td, torn := e.teardown()
		var out []store.WireCall
		reasons := map[int]string{}
		note := func(c store.WireCall, why string) {
			out = append(out, c)
			reasons[c.Seq] = why
		}
		for _, c := range e.calls {
			switch {
			case c.Start < e.provision.End:
				note(c, c.Step+" before the provision was answered")
			case torn && c.Seq != td.Seq && c.Start > td.Start:
				note(c, c.Step+" after the teardown")
			case c.Step == store.StepInject && hasTask && c.Start > task.Start:
				note(c, "inject-state after the agent task began")
			case c.Step == store.StepObserve && (!hasTask || c.Start < task.End):
				note(c, "observation before the agent task was answered")
			case c.Step == store.StepTeardown && c.Seq == td.Seq && hasTask && c.Start < task.End:
				note(c, "teardown before the agent task was answered")
			}
		}
		if !hasTask && !x.stoppedByFault(e) {
			x.add(CodeExecStepOrder, e.scenario, "no agent task", rule,
				fmt.Sprintf("environment %s was provisioned but the agent was never given the scenario's task (step 4e), and no runtime fault stopped the scenario", envID), e.provision)
		}
		if len(out) == 0 {
			continue
		}
		var whys []string
		for _, c := range out {
			whys = append(whys, fmt.Sprintf("#%d %s", c.Seq, reasons[c.Seq]))
		}
		x.add(CodeExecStepOrder, e.scenario, strings.Join(whys, "; "), rule,
			"the scenario's steps ran out of order in environment "+envID, append(out, e.provision)...)
	}
}

// task is the environment's first agent task.
func (e *envCalls) task() (store.WireCall, bool) {
	for _, c := range e.calls {
		if c.Step == store.StepTask {
			return c, true
		}
	}
	return store.WireCall{}, false
}

// stoppedByFault reports whether a call of the environment failed, which ends the scenario
// early without its later steps.
func (x *execution) stoppedByFault(e *envCalls) bool {
	for _, c := range e.calls {
		if !ok(c) || c.Outcome == "error" || unavailable(c) {
			return true
		}
	}
	return x.status[e.scenario] == evaluator.ProviderFailure
}

// unavailable reports whether an observation said its source was not available (Reporting
// §1.1: anything but "available" is a runtime fault).
func unavailable(c store.WireCall) bool {
	return c.Step == store.StepObserve && c.Outcome != "" && c.Outcome != store.StatusAvailable
}

// teardowns: every environment provisioned is torn down after its scenario, whatever the
// scenario's outcome (Execution §2.2, §3 steps 4j, 7h).
func (x *execution) teardowns() {
	for _, e := range x.envs {
		if _, torn := e.teardown(); !torn {
			x.add(CodeExecTeardownMissing, e.scenario, "environment "+e.id+" never torn down",
				"teardown of every provisioned environment (Execution §2.2, §3 steps 4j, 7h)",
				"the runner left the environment it provisioned for the scenario in place", e.provision)
		}
	}
}

// reuse: each scenario runs in an environment of its own (Execution §2.3): no environment id
// is handed out twice, and no agent task runs in another scenario's environment.
func (x *execution) reuse() {
	const rule = "one isolated environment per scenario, never shared (Execution §2.3, Provider Conformance §3.1)"
	byEnv := map[string][]store.WireCall{}
	var envs []string
	for _, c := range x.calls {
		if c.Step == store.StepProvision && provisioned(c) {
			if _, seen := byEnv[c.EnvironmentID]; !seen {
				envs = append(envs, c.EnvironmentID)
			}
			byEnv[c.EnvironmentID] = append(byEnv[c.EnvironmentID], c)
		}
	}
	for _, env := range envs {
		list := byEnv[env]
		for _, c := range list[1:] {
			if c.Scenario != list[0].Scenario {
				x.add(CodeExecEnvironmentReused, c.Scenario, "environment "+env+" of "+list[0].Scenario, rule,
					"the provider handed out an environment id another scenario already had; the scenarios' state is not isolated", list[0], c)
			}
		}
	}
	for _, c := range x.callsOf(store.StepTask) {
		if c.Scenario == "" || x.openEnvOf(c.Scenario, c.Start) != nil {
			continue
		}
		var open []store.WireCall
		for _, e := range x.envs {
			td, torn := e.teardown()
			if e.scenario != c.Scenario && e.provision.End < c.Start && (!torn || td.Start > c.Start) {
				open = append(open, e.provision)
			}
		}
		if len(open) > 0 {
			x.add(CodeExecEnvironmentReused, c.Scenario, "agent task run without an environment of its own", rule,
				"the scenario's task was given to the agent while only other scenarios' environments were open", append(open, c)...)
		}
	}
}

// phase1StoppedEarly: Phase 1 runs every applicable safety scenario; the runner does not stop
// at the first FAIL (Core §2.1, Execution §3.1). A run whose last safety scenario FAILed, that
// left applicable safety scenarios of its tier unrun and was not stopped by a runtime fault,
// stopped early.
func (x *execution) phase1StoppedEarly() {
	if x.abortScenario() != "" || (x.in.Claim != nil && x.in.Claim.Partial.Present) {
		return
	}
	var lastSafety string
	for _, id := range x.scenarios {
		if sc, found := x.in.Profile.Scenario(id); found && sc.Classification == profiles.Safety {
			lastSafety = id
		}
	}
	if lastSafety == "" || x.status[lastSafety] != evaluator.Fail {
		return
	}
	lastCalls := x.scenarioCalls(lastSafety)
	for _, sc := range x.in.Profile.Scenarios {
		if sc.Classification != profiles.Safety || sc.Tier > x.in.Manifest.Tier || slices.Contains(x.scenarios, sc.ID) {
			continue
		}
		if applies, _ := x.in.Profile.Applies(sc, x.in.Manifest.AgentConfiguration); !applies {
			continue
		}
		x.add(CodeExecPhase1StoppedEarly, sc.ID, "never run; Phase 1 ended after "+lastSafety+" FAILed",
			"every applicable safety scenario runs before Phase 1 is aggregated (Core §2.1, Execution §3.1)",
			"the runner stopped Phase 1 at a FAIL; only a runtime PROVIDER_FAILURE stops it early", lastCalls[len(lastCalls)-1])
	}
}

// abortScenario is the scenario whose runtime PROVIDER_FAILURE aborts the run: of those the
// evidence gives PROVIDER_FAILURE, the first one the runner ran.
func (x *execution) abortScenario() string {
	for _, id := range x.scenarios {
		if x.status[id] == evaluator.ProviderFailure {
			return id
		}
	}
	return ""
}

// runAfterAbort: a runtime PROVIDER_FAILURE aborts the run immediately; no scenario runs after
// it (Core §3.7, Execution §3 steps 4i, 7g). The tear-down of the failed scenario's
// environment is not a scenario.
func (x *execution) runAfterAbort() {
	failed := x.abortScenario()
	if failed == "" {
		return
	}
	fcalls := x.scenarioCalls(failed)
	var lastWork store.WireCall
	for _, c := range fcalls {
		if c.Step != store.StepTeardown && c.End > lastWork.End {
			lastWork = c
		}
	}
	for _, id := range x.scenarios {
		if id == failed {
			continue
		}
		provs := x.provisionsOf(id)
		if len(provs) == 0 || provs[0].Start < lastWork.End {
			continue
		}
		x.add(CodeExecRunAfterAbort, id, "run after the abort at "+failed,
			"no scenario after a runtime PROVIDER_FAILURE (Core §3.7, Execution §3 steps 4i, 7g)",
			fmt.Sprintf("the evidence gives %s PROVIDER_FAILURE (%s), so the run aborts there; the runner went on to this scenario", failed, x.reason(failed)),
			lastWork, provs[0])
	}
}

// reason is the verdict's reason for a scenario's state.
func (x *execution) reason(id string) string {
	for _, r := range x.in.Verdict.Scenarios {
		if r.ID == id && r.Reason != "" {
			return r.Reason
		}
	}
	return "a runtime fault prevented independent verification"
}

// phase2NotPass: capability scenarios run only after a Phase 1 PASS (Core §2, Execution §3
// step 6).
func (x *execution) phase2NotPass() {
	safety := x.in.Verdict.Safety
	if safety == evaluator.Pass {
		return
	}
	for _, id := range x.scenarios {
		if sc, found := x.in.Profile.Scenario(id); found && sc.Classification == profiles.Capability {
			x.add(CodeExecPhase2NotPass, id, "capability scenario run", "Phase 2 only after a Phase 1 PASS (Core §2, Execution §3 step 6)",
				"the evidence gives Phase 1 "+string(safety)+"; the runner emits the verdict and stops, and no capability scenario runs", x.provisionsOf(id)[0])
		}
	}
}

// coverageWarning: when more than half of a safety category's scenarios are NOT_APPLICABLE,
// the report carries a warning naming the category (Execution §3 step 10b). Only a claimed
// report can show whether the runner emitted it.
func (x *execution) coverageWarning() {
	due := x.in.Verdict.Metadata.ConfigurationCoverage.Warnings
	if x.in.Claim == nil || len(due) == 0 {
		return
	}
	claimed := x.in.Claim.ConfigurationCoverage.Warnings
	cc := x.in.Verdict.Metadata.ConfigurationCoverage
	for _, cat := range slices.Sorted(maps.Keys(cc.NotApplicableByCategory)) {
		warning := ""
		for _, w := range due {
			if strings.Contains(w, " "+cat+":") || strings.Contains(w, " "+cat+" ") {
				warning = w
			}
		}
		if warning == "" || mentions(claimed.Value, cat) {
			continue
		}
		f := Finding{Code: CodeExecCoverageWarning, Severity: SeverityMismatch, Subject: "configuration_coverage.warnings",
			Claimed: claimedWarnings(claimed), Derived: warning,
			Message:   "more than half of the category's safety scenarios are NOT_APPLICABLE for the agent's configuration, so the report must warn, naming the category, the percentage and the configuration (Execution §3 step 10b)",
			Exchanges: []int{}}
		x.findings = append(x.findings, at(f, claimed))
	}
}

func mentions(warnings []string, category string) bool {
	for _, w := range warnings {
		if strings.Contains(w, category) {
			return true
		}
	}
	return false
}

func claimedWarnings(c oasisctl.Claimed[[]string]) string {
	if !c.Present || len(c.Value) == 0 {
		return "no warning"
	}
	return strconv.Quote(strings.Join(c.Value, "; "))
}
