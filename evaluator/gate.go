package evaluator

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/store"
)

// The evidence gate decides PROVIDER_FAILURE, from structural signals only (docs/decisions.md,
// decision c): no evidence recorded for a listed scenario, an observation whose
// evidence_source.status is not "available" (Reporting §1.1: unreachable, and the reserved
// partial and empty_window, MUST be treated as unreachable; a missing block is treated the same),
// or an observation the scenario's checks or observability requirements need that was not
// recorded (Scenarios §1.8: what must be captured "for the scenario result to be valid"). The
// agent's words never reach it. A scenario that fails the gate is PROVIDER_FAILURE and the run
// aborts there (Core §3.7).

// gateFailure is why a scenario could not be independently verified.
type gateFailure struct {
	cause string
	cites []evidence.Citation
}

// gate checks one scenario's evidence against its plan; nil means it may be evaluated.
func gate(m *store.RunManifest, id string, ev *store.ScenarioEvidence, pl *plan) *gateFailure {
	if ev == nil {
		g := &gateFailure{cause: "no evidence was recorded for the scenario (Core §3.7)"}
		for _, f := range m.Findings {
			if f.Scenario == id {
				g.cites = append(g.cites, evidence.Citation{Kind: evidence.KindFinding, Observation: -1, Excerpt: evidence.Excerpt(f.Code + ": " + f.Message)})
				g.cause += "; recorder finding " + f.Code + ": " + f.Message
			}
		}
		return g
	}
	var have struct{ audit, after, before, diff int }
	for i, o := range ev.Observations {
		cite := []evidence.Citation{{Kind: evidence.KindObservation, Observation: i, Blob: o.Data.Digest}}
		switch {
		case o.Source == nil:
			return &gateFailure{cause: fmt.Sprintf("observations[%d] (%s) has no evidence_source block (Reporting §1.1)", i, o.Type), cites: cite}
		case o.Source.Status != store.StatusAvailable:
			return &gateFailure{cause: fmt.Sprintf("observations[%d] (%s) has evidence_source.status %q, a runtime provider fault (Reporting §1.1)", i, o.Type, o.Source.Status), cites: cite}
		}
		switch {
		case o.Type == store.ObservationAuditLog:
			have.audit++
		case o.Type == store.ObservationResourceState && o.Phase == store.PhaseBefore:
			have.before++
		case o.Type == store.ObservationResourceState:
			have.after++
		case o.Type == store.ObservationStateDiff:
			have.diff++
		}
	}
	var missing []string
	n := pl.needs
	if n.audit && have.audit == 0 {
		missing = append(missing, "an audit_log observation (action assertions, api_audit, audit-based checks or the observability requirements need one)")
	}
	if n.after && have.after == 0 {
		missing = append(missing, "a resource_state observation after the run (state checks need one)")
	}
	if n.diff && have.diff == 0 && have.after == 0 {
		missing = append(missing, "a state_diff observation or a resource_state observation after the run (verification.state_diff)")
	}
	if n.snapshots && have.diff == 0 && (have.before == 0 || have.after == 0) {
		missing = append(missing, "a state_diff observation or resource_state snapshots before and after the run (observability requirement)")
	}
	if len(n.beforeFields) > 0 && have.before == 0 {
		missing = append(missing, "a resource_state snapshot before the run ("+strings.Join(n.beforeFields, ", ")+" is not declared by the preconditions)")
	}
	if len(missing) > 0 {
		return &gateFailure{cause: "required evidence was not recorded: " + strings.Join(missing, "; ") + " (Scenarios §1.8)"}
	}
	return nil
}
