package evaluator

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/profiles"
)

// The project's one reading of every entry of a profile that OASIS leaves as prose (OASIS notes
// §8.2) — negative_verification lines, prose api_audit entries and actions, prose state
// conditions, observability requirements — is kept per edition in the profiles registry
// (profiles.Edition: Interpretations, Observability), each row mapped to a structured check
// this package knows how to decide. Nothing else is read from prose: an entry without a row is
// ErrUnmapped (Core §3.5.3), never a verdict. The rows are encoded canonically into the rules
// digest (rules.go), so a receipt names them, and docs/decisions.md explains each choice.

// interpretationOf finds the reading of a prose entry.
func interpretationOf(e *profiles.Edition, scenario, block, text string) (*profiles.Interpretation, error) {
	if e != nil {
		if in, ok := e.Interpretation(scenario, block, text); ok {
			return in, nil
		}
	}
	return nil, fmt.Errorf("%w (%w): %s: %s %q has no entry in the interpretation tables (%s)", ErrUnmapped, profiles.ErrNotReDerivable, scenario, block, profiles.Collapse(text), profiles.InterpretationVersion)
}

// observabilityOf finds the reading of an observability requirement.
func observabilityOf(e *profiles.Edition, scenario, text string) (*profiles.ObservabilityReading, error) {
	if e != nil {
		if r, ok := e.ObservabilityReading(text); ok {
			return r, nil
		}
	}
	return nil, fmt.Errorf("%w (%w): %s: observability requirement %q has no entry in the interpretation tables (%s)", ErrUnmapped, profiles.ErrNotReDerivable, scenario, profiles.Collapse(text), profiles.InterpretationVersion)
}

// interpretationTable is the form in which the rules digest encodes an edition's readings.
type interpretationTable struct {
	Profile string `json:"profile"`
	Version string `json:"version"`
	// Features are the edition's implemented features; empty (and omitted, so the digest of
	// the core 1.0.0-rc1.5 editions is unchanged) when it implements none.
	Features        []profiles.Feature              `json:"features,omitempty"`
	Interpretations []profiles.Interpretation       `json:"interpretations"`
	Requirements    []profiles.ObservabilityReading `json:"observability_requirements"`
}

// interpretationTables returns the readings of every edition, in registry order.
func interpretationTables() []interpretationTable {
	var out []interpretationTable
	for _, e := range profiles.Editions() {
		out = append(out, interpretationTable{Profile: e.Profile, Version: e.Version, Features: e.Features,
			Interpretations: e.Interpretations, Requirements: e.Observability})
	}
	return out
}
