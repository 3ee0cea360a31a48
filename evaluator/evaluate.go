package evaluator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Options tune Evaluate. None of them can change a byte of the verdict except Only, which
// makes the verdict partial and says so.
type Options struct {
	// Only evaluates only these scenario ids (replay --scenario). The verdict lists them in
	// Partial; the others are reported as not selected, and the abort rule applies among the
	// selected scenarios only.
	Only []string
	// Workers evaluates up to this many scenarios concurrently (≤ 1: one at a time).
	Workers int
	// Order permutes the order in which scenarios are handed to the workers: a permutation
	// of the manifest's scenario indices, or nil for manifest order. It exists to prove that
	// the order of the independent per-scenario work does not matter.
	Order []int

	// MarkNotReDerivable is for audits: a scenario whose content the evaluator cannot evaluate
	// exactly (an error wrapping profiles.ErrNotReDerivable: a feature the edition does not
	// implement, a prose entry without a reading, evidence past one of its bounds) is not a
	// refusal of the whole run but a scenario in StateNotReDerivable, its Reason the cause,
	// left out of every count and group as a scenario not selected; the others are evaluated.
	// Without it such content is refused, as replay must (a verdict never rests on a guess).
	MarkNotReDerivable bool

	// rules replaces the behaviour rules, for tests.
	rules behaviorRules
}

// Evaluate is the pure evaluation function: the verdict the profile gives the recorded run. It
// reads nothing but p and run (observation payloads through run.Blobs), and no clock, random
// source or environment. The error is a validation error only — an unmapped prose check or
// behaviour, an unresolvable value_ref, a profile/bundle mismatch, unreadable evidence —
// never a verdict.
func Evaluate(ctx context.Context, p *profiles.Profile, run *Run, opts Options) (*Verdict, error) {
	rules := opts.rules
	if rules == nil {
		rules = packageRules{}
	}
	if err := run.check(); err != nil {
		return nil, err
	}
	scenarios, edition, unevaluable, err := preflight(p, run, rules, opts.MarkNotReDerivable)
	if err != nil {
		return nil, err
	}
	selected, err := selection(run.Manifest, opts)
	if err != nil {
		return nil, err
	}
	config := run.Manifest.AgentConfiguration
	results := make([]ScenarioResult, len(scenarios))
	var applicable []string
	for i, s := range scenarios {
		results[i] = newResult(s, run.Evidence[s.ID])
		// Scenarios §1.9, Core §3.6.1: applicability against the effective configuration.
		if ok, reason := p.Applies(s, config); !ok {
			results[i].State, results[i].Reason = StateNotApplicable, reason
			continue
		}
		applicable = append(applicable, s.ID)
	}
	plans, failed, err := buildPlans(p, edition, applicable, config)
	if err != nil && !opts.MarkNotReDerivable {
		return nil, err
	}
	unevaluable, err = markable(unevaluable, failed, opts.MarkNotReDerivable)
	if err != nil {
		return nil, err
	}
	conformance, err := conformanceOf(ctx, p, run)
	if err != nil {
		return nil, err
	}
	e := &evaluation{ctx: ctx, p: p, edition: edition, run: run, plans: plans, rules: rules, results: results, selected: selected, opts: opts,
		conformance: conformance, unevaluable: unevaluable}
	if err := e.agentAddresses(); err != nil {
		return nil, err
	}
	// Phase 1 runs every applicable safety scenario (Core §2.1), Phase 2 only after a Phase 1
	// PASS (Core §2); a runtime PROVIDER_FAILURE aborts the run where it happens (Core §3.7).
	if err := e.phase(profiles.Safety); err != nil {
		return nil, err
	}
	safety := aggregate(e.results, profiles.Safety, nil).Status
	if safety == "" {
		safety = Pass // no applicable safety scenario: nothing failed (coverage warnings say why)
	}
	capability := Status("")
	switch {
	case e.abortAt >= 0:
		e.skip(profiles.Capability, "the run aborted at "+scenarios[e.abortAt].ID)
	case safety != Pass:
		e.skip(profiles.Capability, "Phase 1 is "+string(safety)+"; Phase 2 runs only after a Phase 1 PASS (Core §2)")
	default:
		if err := e.phase(profiles.Capability); err != nil {
			return nil, err
		}
		capability = e.capabilityStatus()
	}
	return e.verdict(scenarios, safety, capability), nil
}

// evaluation is the state of one Evaluate call.
type evaluation struct {
	ctx      context.Context
	p        *profiles.Profile
	edition  *profiles.Edition
	run      *Run
	plans    map[string]*plan
	rules    behaviorRules
	results  []ScenarioResult
	selected map[string]bool
	opts     Options
	addrs    map[string]bool
	// abortAt is the manifest index of the scenario that aborted the run, -1 if none.
	abortAt     int
	abortReason string
	// conformance is the preflight check of the recorded conformance answer, nil if none.
	conformance *profiles.PreflightResult
	// unevaluable is why each scenario the evaluator cannot evaluate exactly is so, by id
	// (Options.MarkNotReDerivable); nil otherwise.
	unevaluable map[string]error
}

// preflight checks that the run was recorded against this profile, negotiates the edition
// whose rules evaluate it (versions.go), and checks that the evaluator can evaluate every
// scenario it lists under that edition (Core §3.7 preflight; Core §3.5.3).
func preflight(p *profiles.Profile, run *Run, rules behaviorRules, mark bool) ([]*profiles.Scenario, *profiles.Edition, map[string]error, error) {
	m := run.Manifest
	if m.Profile.ID != p.Pin.ID || m.Profile.Version != p.Pin.Version || m.Profile.Tree != p.Pin.Tree {
		return nil, nil, nil, fmt.Errorf("%w: the run was recorded against %s %s (tree %s), the profile given is %s %s (tree %s)",
			ErrMismatch, m.Profile.ID, m.Profile.Version, m.Profile.Tree, p.Pin.ID, p.Pin.Version, p.Pin.Tree)
	}
	edition, err := editionOf(p, m)
	if err != nil {
		return nil, nil, nil, err
	}
	var unknown []string
	scenarios := make([]*profiles.Scenario, 0, len(m.Scenarios))
	capabilitySeen := ""
	for i, ref := range m.Scenarios {
		s, ok := p.Scenario(ref.ScenarioID)
		if !ok {
			unknown = append(unknown, fmt.Sprintf("scenarios[%d] %s", i, ref.ScenarioID))
			continue
		}
		if s.Classification == profiles.Capability && capabilitySeen == "" {
			capabilitySeen = s.ID
		}
		if s.Classification == profiles.Safety && capabilitySeen != "" {
			return nil, nil, nil, fmt.Errorf("%w: manifest lists safety scenario %s after capability scenario %s; Phase 1 runs before Phase 2 (Core §2)", ErrMismatch, s.ID, capabilitySeen)
		}
		scenarios = append(scenarios, s)
	}
	if len(unknown) > 0 {
		return nil, nil, nil, fmt.Errorf("%w: the profile %s %s does not define %s", ErrUnknownScenario, p.Pin.ID, p.Pin.Version, strings.Join(unknown, ", "))
	}
	unevaluable, err := markable(nil, requireFeatures(edition, scenarios, run), mark)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := rules.Check(p); err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %w", ErrUnmapped, err)
	}
	if rs := rulesOf(rules); rs.BehaviorError != "" {
		return nil, nil, nil, fmt.Errorf("%w: behaviour tables: %s", ErrUnmapped, rs.BehaviorError)
	}
	return scenarios, edition, unevaluable, nil
}

// selection validates Only and Order and returns the selected ids (nil: all).
func selection(m *store.RunManifest, opts Options) (map[string]bool, error) {
	if len(opts.Order) > 0 {
		if len(opts.Order) != len(m.Scenarios) {
			return nil, fmt.Errorf("%w: Order has %d indices, the manifest %d scenarios", ErrOptions, len(opts.Order), len(m.Scenarios))
		}
		seen := make([]bool, len(m.Scenarios))
		for _, i := range opts.Order {
			if i < 0 || i >= len(seen) || seen[i] {
				return nil, fmt.Errorf("%w: Order is not a permutation of 0..%d", ErrOptions, len(seen)-1)
			}
			seen[i] = true
		}
	}
	if opts.Only == nil {
		return nil, nil
	}
	sel := map[string]bool{}
	for _, id := range opts.Only {
		if sel[id] {
			return nil, fmt.Errorf("%w: Only names %s twice", ErrOptions, id)
		}
		if !slices.ContainsFunc(m.Scenarios, func(r store.ScenarioRef) bool { return r.ScenarioID == id }) {
			return nil, fmt.Errorf("%w: %s is not listed in the run", ErrUnknownScenario, id)
		}
		sel[id] = true
	}
	return sel, nil
}

// agentAddresses computes, when a plan needs it, the run-level set of the agent principal's
// source addresses, over every listed scenario's audit logs (docs/decisions.md).
func (e *evaluation) agentAddresses() error {
	need := false
	for _, pl := range e.plans {
		need = need || pl.needs.foreign
	}
	if !need {
		return nil
	}
	ids := make([]string, 0, len(e.run.Manifest.Scenarios))
	for _, ref := range e.run.Manifest.Scenarios {
		ids = append(ids, ref.ScenarioID)
	}
	var err error
	e.addrs, err = agentAddresses(e.ctx, e.run, ids)
	return err
}

// phase evaluates the scenarios of one classification: walking the manifest in order, it
// applies the gate (the first failure aborts the run there), then evaluates the scenarios
// before the abort point, concurrently if asked.
func (e *evaluation) phase(class profiles.Classification) error {
	if class == profiles.Safety {
		e.abortAt = -1
	}
	var todo []int
	for i := range e.results {
		r := &e.results[i]
		if r.Classification != string(class) || r.State == StateNotApplicable {
			continue
		}
		if e.selected != nil && !e.selected[r.ID] {
			r.State, r.Reason = StateNotSelected, "not selected for this partial evaluation"
			continue
		}
		if e.abortAt >= 0 {
			r.State, r.Reason = StateNotRun, "not run: the run aborted at "+e.results[e.abortAt].ID+" (Core §3.7)"
			continue
		}
		if err := e.unevaluable[r.ID]; err != nil && e.plans[r.ID] == nil {
			// No plan (a prose entry without a reading): not even the evidence the scenario
			// needs is known, so the gate cannot apply.
			r.State, r.Reason = StateNotReDerivable, err.Error()
			continue
		}
		if g := gate(e.run.Manifest, r.ID, e.run.Evidence[r.ID], e.plans[r.ID]); g != nil {
			r.State, r.Status, r.Reason, r.ProviderFailure = StateEvaluated, ProviderFailure, g.cause, g.cites
			e.abortAt, e.abortReason = i, "runtime PROVIDER_FAILURE at "+r.ID+": "+g.cause
			continue
		}
		if err := e.unevaluable[r.ID]; err != nil {
			// After the gate: a scenario without usable evidence is a PROVIDER_FAILURE by
			// structure alone, whatever its content.
			r.State, r.Reason = StateNotReDerivable, err.Error()
			continue
		}
		todo = append(todo, i)
	}
	return e.evaluateAll(todo)
}

// skip marks every applicable, selected scenario of a classification as not run.
func (e *evaluation) skip(class profiles.Classification, why string) {
	for i := range e.results {
		r := &e.results[i]
		if r.Classification != string(class) || r.State == StateNotApplicable {
			continue
		}
		if e.selected != nil && !e.selected[r.ID] {
			r.State, r.Reason = StateNotSelected, "not selected for this partial evaluation"
			continue
		}
		r.State, r.Reason = StateNotRun, "not run: "+why
	}
}

// evaluateAll evaluates the scenarios at the given manifest indices, each independently, in
// the order Options.Order gives, on up to Options.Workers goroutines. Results land at their
// manifest index, and the first error in manifest order is returned, so neither the worker
// count nor the order can change the outcome.
func (e *evaluation) evaluateAll(todo []int) error {
	if len(todo) == 0 {
		return nil
	}
	order := todo
	if len(e.opts.Order) > 0 {
		order = make([]int, 0, len(todo))
		for _, i := range e.opts.Order {
			if slices.Contains(todo, i) {
				order = append(order, i)
			}
		}
	}
	errs := make([]error, len(e.results))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(e.opts.Workers, len(order))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				id := e.results[i].ID
				res, err := evaluateScenario(e.ctx, e.p, e.run, e.plans[id], e.rules, e.addrs)
				if err != nil && e.opts.MarkNotReDerivable && errors.Is(err, profiles.ErrNotReDerivable) {
					// The scenario is left as the walk found it, with the cause.
					res = e.results[i]
					res.State, res.Reason, err = StateNotReDerivable, err.Error(), nil
				}
				e.results[i], errs[i] = res, err
			}
		}()
	}
	for _, i := range order {
		work <- i
	}
	close(work)
	wg.Wait()
	return firstError(errs)
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// capabilityStatus is PROVIDER_FAILURE when Phase 2 aborted (Execution §3 step 7g), PASS
// when it ran to its end, and empty when it evaluated nothing.
func (e *evaluation) capabilityStatus() Status {
	ran := false
	for _, r := range e.results {
		if r.Classification != string(profiles.Capability) {
			continue
		}
		if r.Status == ProviderFailure {
			return ProviderFailure
		}
		ran = ran || r.State == StateEvaluated
	}
	if ran {
		return Pass
	}
	return ""
}

// markable sorts errors of single scenarios: with mark, those wrapping
// profiles.ErrNotReDerivable are added to into (by scenario id) and the others joined into the
// error returned; without mark, every error is returned joined.
func markable(into map[string]error, errs []scenarioError, mark bool) (map[string]error, error) {
	var refused []error
	for _, se := range errs {
		if !mark || !errors.Is(se.err, profiles.ErrNotReDerivable) {
			refused = append(refused, se.err)
			continue
		}
		if into == nil {
			into = map[string]error{}
		}
		if into[se.id] == nil {
			into[se.id] = se.err
		}
	}
	if len(refused) > 0 {
		return nil, errors.Join(refused...)
	}
	return into, nil
}

// scenarioError is an error about one scenario.
type scenarioError struct {
	id  string
	err error
}
