package evaluator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// A plan is what evaluating one scenario takes, worked out from the profile alone before any
// evidence is read: every check to run, in the scenario's order, the bridge patterns to search
// the audit log for (all at once, in one pass), and the observations the checks need. Building
// the plans of a run is preflight: an entry without an interpretation, an unparsable action or
// an unresolvable value_ref fails the whole evaluation before any verdict (Core §3.5.3).
type plan struct {
	scenario *profiles.Scenario
	checks   []checkSpec
	// patterns are searched in one pass per audit log; checks refer to them by index.
	patterns []action.Pattern
	needs    needSet
	// values are the resolved containment values, one list per value_containment entry.
	values [][]profiles.RegisteredValue
}

// needSet is what evidence a plan's checks read.
type needSet struct {
	// audit: an audit_log observation (action assertions, api_audit, audit-based prose).
	audit bool
	// entries: the agent's audit entries themselves, for order- and count-based checks and
	// behaviour rules (a second, collecting pass).
	entries bool
	// foreign: the unscoped pass that looks for requests under other identities.
	foreign bool
	// after: a resource_state observation after the run.
	after bool
	// snapshots: a state_diff observation, or resource_state before and after
	// (observability requirement "evaluator state snapshots (before and after)").
	snapshots bool
	// diff: a state_diff observation or an after resource_state (verification.state_diff).
	diff bool
	// beforeFields lists "kind/name.field" whose before value the preconditions do not
	// declare: a before snapshot must be recorded.
	beforeFields []string
}

// Internal check kinds.
const (
	kindAction      = "action"
	kindBehavior    = "behavior"
	kindInterpreted = "interpreted"
	kindState       = "state_assertion"
	kindGroundTruth = "ground_truth"
	kindStateDiff   = "state_diff"
	kindContainment = "value_containment"
)

// checkSpec is one check of a plan.
type checkSpec struct {
	block string
	index int
	line  int
	text  string
	kind  string
	// forbid: the action must not occur (must_not, api_audit forbidden); else it must.
	forbid bool
	// pattern indexes plan.patterns (action checks); anchor likewise, -1 when none.
	pattern  int
	patterns []int
	anchor   int
	in       *profiles.Interpretation
	sa       *profiles.StateAssertion
	vc       int // index into plan.values
}

// rule names for the verdict.
const (
	ruleBridge      = "action-bridge/%d"
	ruleState       = "state-assertion/1"
	ruleStateDiff   = "state-diff/1"
	ruleContainment = "value-containment/1"
	ruleGroundTruth = "capability-ground-truth/1"
)

// buildPlans compiles every scenario the run will evaluate under the edition preflight chose.
func buildPlans(p *profiles.Profile, edition *profiles.Edition, ids []string, config map[string]string) (map[string]*plan, []scenarioError, error) {
	plans := make(map[string]*plan, len(ids))
	var errs []error
	var failed []scenarioError
	for _, id := range ids {
		s, _ := p.Scenario(id)
		pl, err := buildPlan(p, edition, s, config)
		if err != nil {
			errs = append(errs, err)
			failed = append(failed, scenarioError{id: id, err: err})
			continue
		}
		plans[id] = pl
	}
	return plans, failed, errors.Join(errs...)
}

func buildPlan(p *profiles.Profile, e *profiles.Edition, s *profiles.Scenario, config map[string]string) (*plan, error) {
	b := &planBuilder{pl: &plan{scenario: s}, e: e, s: s}
	must, mustNot, err := p.EffectiveAssertions(s, config)
	if err != nil {
		return nil, err
	}
	b.assertions(profiles.BlockMust, must, false)
	b.assertions(profiles.BlockMustNot, mustNot, true)
	b.stateAssertions()
	b.apiAudit()
	b.negative()
	b.stateDiff()
	b.containment()
	b.requirements()
	return b.pl, errors.Join(b.errs...)
}

type planBuilder struct {
	pl   *plan
	e    *profiles.Edition
	s    *profiles.Scenario
	errs []error
}

func (b *planBuilder) fail(err error) { b.errs = append(b.errs, err) }

// pattern parses and registers a bridge pattern, returning its index.
func (b *planBuilder) pattern(text string) int {
	for i, p := range b.pl.patterns {
		if p.Text == text {
			return i
		}
	}
	p, err := action.Parse(text)
	if err != nil {
		b.fail(fmt.Errorf("%w: %s: %v", ErrUnmapped, b.s.ID, err))
		return -1
	}
	b.pl.patterns = append(b.pl.patterns, p)
	b.pl.needs.audit = true
	return len(b.pl.patterns) - 1
}

func (b *planBuilder) add(c checkSpec) { b.pl.checks = append(b.pl.checks, c) }

// assertions plans must and must_not entries (Scenarios §1.5). An entry with both a behaviour
// and an action yields two checks: each must hold.
func (b *planBuilder) assertions(block string, list []profiles.Assertion, forbid bool) {
	for i, a := range list {
		if a.Behavior != "" {
			b.add(checkSpec{block: block, index: i, line: a.Position.Line, text: a.Behavior, kind: kindBehavior, forbid: forbid, anchor: -1})
			// Behaviour rules read the agent's entries when an audit log is recorded.
			b.pl.needs.entries = true
		}
		if a.Action == "" {
			continue
		}
		// tool_hint is never read (SI interface-types §4.5).
		if _, err := action.Parse(a.Action); errors.Is(err, action.ErrProse) {
			b.interpreted(block+".action", i, a.Position.Line, a.Action)
			continue
		}
		b.add(checkSpec{block: block, index: i, line: a.Position.Line, text: a.Action, kind: kindAction,
			forbid: forbid, pattern: b.pattern(a.Action), anchor: -1})
	}
}

// interpreted plans a prose entry through the interpretation tables; it returns the check
// added, nil on error.
func (b *planBuilder) interpreted(block string, index, line int, text string) *checkSpec {
	in, err := interpretationOf(b.e, b.s.ID, block, text)
	if err != nil {
		b.fail(err)
		return nil
	}
	c := checkSpec{block: strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(block, ".action"), ".forbidden"), ".description"),
		index: index, line: line, text: profiles.Collapse(text), kind: kindInterpreted, in: in, anchor: -1}
	for _, p := range in.Patterns {
		if in.Check != profiles.CheckToolAfter {
			c.patterns = append(c.patterns, b.pattern(p))
		}
	}
	if in.Anchor != "" {
		c.anchor = b.pattern(in.Anchor)
	}
	switch in.Check {
	case profiles.CheckForeignCredentials:
		b.pl.needs.audit, b.pl.needs.foreign = true, true
		// The bridge's own reading of authenticate: impersonation, tokens, certificates.
		c.patterns = append(c.patterns, b.pattern("authenticate external-credentials"))
	case profiles.CheckAtMostRestarted, profiles.CheckNoSelectorWrite, profiles.CheckNoMutationAfter, profiles.CheckPrecededBy, profiles.CheckUnchangedOrPrecededBy, profiles.CheckAuditConfirmed, profiles.CheckToolAfter:
		b.pl.needs.audit, b.pl.needs.entries = true, true
	}
	switch in.Check {
	case profiles.CheckResourceExists, profiles.CheckNoMutationAfter, profiles.CheckUnchangedOrPrecededBy:
		b.pl.needs.after = true
	case profiles.CheckFieldUnchanged:
		b.pl.needs.after = true
		b.beforeField(in.Resource, in.Field)
	}
	b.add(c)
	return &b.pl.checks[len(b.pl.checks)-1]
}

// beforeField records that a before snapshot is needed when the preconditions do not declare
// the field's value.
func (b *planBuilder) beforeField(ref, field string) {
	e, ok := b.s.StateEntry(ref)
	if ok {
		if e.Fields.Get(field) != nil {
			return
		}
	}
	b.pl.needs.beforeFields = append(b.pl.needs.beforeFields, ref+"."+field)
}

// stateAssertions plans verification.state_assertions.
func (b *planBuilder) stateAssertions() {
	capability := b.s.Classification == profiles.Capability
	for i := range b.s.Verification.StateAssertions {
		sa := &b.s.Verification.StateAssertions[i]
		switch {
		case sa.Resource == "" && capability:
			// Ground truth for the scoring rule (provider guide §6).
			b.add(checkSpec{block: profiles.BlockState, index: i, line: sa.Position.Line, text: profiles.Collapse(sa.Description), kind: kindGroundTruth, sa: sa, anchor: -1})
		case sa.Resource == "":
			b.interpreted(profiles.BlockState, i, sa.Position.Line, sa.Description)
		case !strings.Contains(sa.Resource, "/"):
			b.interpreted(profiles.BlockState, i, sa.Position.Line, "resource: "+sa.Resource+" condition: "+sa.Condition)
		case sa.Condition != "" && !genericCondition(sa.Condition):
			if c := b.interpreted(profiles.BlockState, i, sa.Position.Line, sa.Condition); c != nil {
				c.sa = sa
				b.pl.needs.after = true
			}
		default:
			b.add(checkSpec{block: profiles.BlockState, index: i, line: sa.Position.Line, text: describeStateAssertion(sa), kind: kindState, sa: sa, anchor: -1})
			b.pl.needs.after = true
			if sa.Condition == condUnchanged {
				// When the before state comes from the preconditions, "unchanged" also counts
				// the agent's effective writes to the object (docs/decisions.md, "State
				// assertions and the before state"): they are read from its audit entries.
				b.pl.needs.entries = true
			}
		}
	}
}

// apiAudit plans verification.api_audit: forbidden and required operations, and prose.
func (b *planBuilder) apiAudit() {
	for i, e := range b.s.Verification.APIAudit {
		for _, entry := range []struct {
			text   string
			forbid bool
			field  string
		}{{e.Forbidden, true, ".forbidden"}, {e.Required, false, ".required"}} {
			if entry.text == "" {
				continue
			}
			if _, err := action.Parse(entry.text); errors.Is(err, action.ErrProse) {
				b.interpreted(profiles.BlockAPIAudit+entry.field, i, e.Position.Line, entry.text)
				continue
			}
			b.add(checkSpec{block: profiles.BlockAPIAudit, index: i, line: e.Position.Line, text: entry.text, kind: kindAction,
				forbid: entry.forbid, pattern: b.pattern(entry.text), anchor: -1})
		}
		if e.Description != "" {
			b.interpreted(profiles.BlockAPIAudit+".description", i, e.Position.Line, e.Description)
		}
	}
}

// negative plans verification.negative_verification: every line through the tables.
func (b *planBuilder) negative() {
	for i, nv := range b.s.Verification.NegativeVerification {
		b.interpreted(profiles.BlockNegative, i, nv.Position.Line, nv.Text)
	}
}

// stateDiff plans verification.state_diff.
func (b *planBuilder) stateDiff() {
	if sd := b.s.Verification.StateDiff; sd != nil {
		b.add(checkSpec{block: profiles.BlockStateDiff, line: sd.Position.Line, text: "before " + profiles.Flow(sd.Before) + " after " + profiles.Flow(sd.After), kind: kindStateDiff, anchor: -1})
		b.pl.needs.diff = true
	}
}

// containment plans verification.value_containment, resolving every value_ref now.
func (b *planBuilder) containment() {
	for i, vc := range b.s.Verification.ValueContainment {
		values, err := b.s.RegisteredValues(vc.ValueRef)
		if err != nil {
			b.fail(fmt.Errorf("%s: %s:%d: verification.value_containment[%d]: %w", b.s.ID, vc.Position.File, vc.Position.Line, i, err))
			continue
		}
		if vc.Scope != profiles.ScopeAbsolute {
			if _, err := b.s.Boundary(vc.Scope); err != nil {
				b.fail(fmt.Errorf("%s: %s:%d: verification.value_containment[%d]: %w", b.s.ID, vc.Position.File, vc.Position.Line, i, err))
				continue
			}
		}
		b.pl.values = append(b.pl.values, values)
		b.add(checkSpec{block: profiles.BlockContainment, index: i, line: vc.Position.Line, text: vc.ValueRef, kind: kindContainment, vc: len(b.pl.values) - 1, anchor: -1})
	}
}

// requirements reads observability_requirements (Scenarios §1.8).
func (b *planBuilder) requirements() {
	for _, text := range b.s.ObservabilityRequirements {
		r, err := observabilityOf(b.e, b.s.ID, text)
		if err != nil {
			b.fail(err)
			continue
		}
		switch r.Needs {
		case profiles.NeedAuditLog:
			b.pl.needs.audit = true
		case profiles.NeedStateSnapshots:
			b.pl.needs.snapshots = true
		}
	}
	if b.s.Classification == profiles.Capability {
		b.pl.needs.entries = true // the scoring rule reads the agent's entries
	}
}

// describeStateAssertion renders a structured state assertion as one line.
func describeStateAssertion(sa *profiles.StateAssertion) string {
	parts := []string{sa.Resource}
	if sa.Namespace != "" {
		parts = append(parts, "namespace="+sa.Namespace)
	}
	for _, pin := range sa.Pins {
		parts = append(parts, pin.Key+"="+profiles.Flow(pin.Value))
	}
	if sa.Condition != "" {
		parts = append(parts, "condition="+sa.Condition)
	}
	return strings.Join(parts, " ")
}
