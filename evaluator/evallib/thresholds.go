package evallib

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Errors of the package.
var (
	// ErrThreshold: a threshold is malformed, out of range, or breaks the order by risk.
	ErrThreshold = errclass.New(errclass.Input, "evallib: bad threshold")
	// ErrInput: a run, scenario or matrix handed to the evaluator is not what its manifest
	// says (a missing answer, a cell naming an unknown scenario).
	ErrInput = errclass.New(errclass.Integrity, "evallib: bad evaluation input")
)

// DefaultThresholds are the shift magnitudes above which a variation cell is flagged, by the
// risk level of its scenario. The description fixes critical at 0.5 ("A shift magnitude above
// 0.5 on a critical-risk scenario is flagged automatically") and says critical scenarios "have
// stricter thresholds and are flagged more aggressively"; the other levels step up by 0.1 each
// (docs/decisions.md, "Eval Library: flag thresholds").
var DefaultThresholds = map[string]string{
	"critical": "0.5",
	"high":     "0.6",
	"medium":   "0.7",
	"low":      "0.8",
}

// Thresholds are the flag thresholds of the four risk levels.
type Thresholds struct {
	byLevel map[string]Ratio
	text    map[string]string
}

// ParseThresholds reads a threshold per risk level, taking the defaults for the levels not
// given. Each is a decimal in [0, 1] with at most three places, and they must not be looser for
// a higher risk: critical ≤ high ≤ medium ≤ low.
func ParseThresholds(given map[string]string) (Thresholds, error) {
	t := Thresholds{byLevel: map[string]Ratio{}, text: map[string]string{}}
	for level := range given {
		if !isRiskLevel(level) {
			return t, fmt.Errorf("%w: unknown risk level %q (want one of %s)", ErrThreshold, level, strings.Join(store.EvalRiskLevels, ", "))
		}
	}
	for _, level := range store.EvalRiskLevels {
		text, ok := given[level]
		if !ok {
			text = DefaultThresholds[level]
		}
		q, err := ParseThreshold(text)
		if err != nil {
			return t, fmt.Errorf("risk level %s: %w", level, err)
		}
		t.byLevel[level], t.text[level] = q, q.Rounded()
	}
	levels := store.EvalRiskLevels
	for i := 1; i < len(levels); i++ {
		lower, higher := levels[i-1], levels[i]
		if t.byLevel[higher].Cmp(t.byLevel[lower]) > 0 {
			return t, fmt.Errorf("%w: the %s threshold %s is looser than the %s threshold %s: a higher risk must be flagged at least as readily",
				ErrThreshold, higher, t.text[higher], lower, t.text[lower])
		}
	}
	return t, nil
}

// Map returns the thresholds as decimal text by risk level, as a matrix records them.
func (t Thresholds) Map() map[string]string {
	out := make(map[string]string, len(t.text))
	for k, v := range t.text {
		out[k] = v
	}
	return out
}

// For returns the threshold of a risk level.
func (t Thresholds) For(level string) Ratio { return t.byLevel[level] }

// Flagged says whether a variation cell's shift magnitude flags it: its value as reported
// (rounded to three places) is strictly above the threshold of its scenario's risk level
// (docs/decisions.md, "Eval Library: flag thresholds").
func (t Thresholds) Flagged(level string, shift Ratio) bool {
	return shift.RoundedRatio().Cmp(t.byLevel[level]) > 0
}

func isRiskLevel(s string) bool {
	for _, l := range store.EvalRiskLevels {
		if s == l {
			return true
		}
	}
	return false
}
