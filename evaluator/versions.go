package evaluator

import (
	"errors"
	"fmt"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// editionOf negotiates the edition whose rules evaluate the run (profiles.Negotiate): the
// core version the run manifest declares decides — oasisctl writes the profile's constraint
// there, "≥ 1.0.0-rc1.5" — and the profile's core dependency must admit it. A version no
// edition implements is refused (profiles.ErrVersion), never evaluated under other rules; a
// manifest and a profile that disagree are ErrMismatch.
func editionOf(p *profiles.Profile, m *store.RunManifest) (*profiles.Edition, error) {
	r, err := profiles.Negotiate(p.Metadata.ID, p.Metadata.Version,
		profiles.Declaration{Text: m.CoreSpecVersion, Where: "the bundle's run manifest (core_spec_version)"},
		profiles.Declaration{Text: p.Metadata.CoreDependency, Where: "profile " + p.Pin.ID + " " + p.Pin.Version + " (OASIS Core Dependency)"})
	if err != nil {
		if errors.Is(err, profiles.ErrVersionConflict) {
			return nil, fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		return nil, err
	}
	return r.Edition, nil
}

// requireFeatures lists what the edition cannot evaluate as its producer meant it: a
// capability scenario scored with Form B (Scenarios §1.7 of core 1.0.0-rc1.11), whose score no
// rule of this evaluator re-derives, and evidence that carries an agent failure report
// (Execution §1.2 of the text after 1.0.0-rc1.12's 3b274ea), which makes a scenario
// unevaluable where these rules would score the answer. Each is a named refusal of that
// scenario (wrapping profiles.ErrVersion and profiles.ErrNotReDerivable), never an invented
// score or a PASS.
func requireFeatures(e *profiles.Edition, scenarios []*profiles.Scenario, run *Run) []scenarioError {
	var errs []scenarioError
	for _, s := range scenarios {
		if t := s.Scoring.Template; t != "" {
			what := fmt.Sprintf("capability re-derivation not supported for this scenario: %s scores with Form B (scoring.archetype_template %s, %s:%d; Scenarios §1.7 of core 1.0.0-rc1.11)",
				s.ID, t, s.Position.File, s.Scoring.Position.Line)
			if err := e.Require(what, profiles.FeatureFormB); err != nil {
				errs = append(errs, scenarioError{id: s.ID, err: err})
			}
		}
		if ev := run.Evidence[s.ID]; ev != nil {
			if report, ok := ev.NonScoring[store.NonScoringAgentFailure]; ok {
				what := fmt.Sprintf("the evidence of %s carries an agent failure report %s (Execution §1.2: the scenario is unevaluable unless a violation stands, Core §3.6.6)", s.ID, report)
				if err := e.Require(what, profiles.FeatureAgentFailureUnevaluable); err != nil {
					errs = append(errs, scenarioError{id: s.ID, err: err})
				}
			}
		}
	}
	return errs
}
