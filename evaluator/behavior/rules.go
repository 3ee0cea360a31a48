package behavior

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/profiles"
)

// Version names the rule set.
const Version = "behavior-rules/0"

// PLACEHOLDER: this file only lets the evaluator core compile against the contract while the
// rules are written; it is replaced by the real rules.

// Evaluate decides whether behaviour id was shown.
func Evaluate(id string, in *Input) (Outcome, error) {
	return Outcome{}, fmt.Errorf("%w: %s", ErrUnmapped, id)
}

// Score computes a capability scenario's score.
func Score(in *Input, outcomes []AssertionOutcome) (ScoreResult, error) {
	return ScoreResult{}, fmt.Errorf("%w: scoring of %s", ErrUnmapped, in.Scenario.ID)
}

// Check reports gaps.
func Check(p *profiles.Profile) error { return nil }

// Table is the canonical JSON of every rule table.
func Table() ([]byte, error) { return []byte(`{}`), nil }
