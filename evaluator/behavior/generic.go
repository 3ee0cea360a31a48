package behavior

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// The generic scoring rule scores a capability scenario of a profile other than the one the
// dedicated rules in scoreRules were written for (SI): an example or in-house profile. SI
// scenarios never fall back to it — their rubrics are prose judgments that need a dedicated
// rule, so an SI scenario without one stays a gap Check reports. It reads
// only the evaluator's assertion outcomes, which are themselves decided from evidence, and
// steps down the rubric by the share of assertions satisfied:
//
//	ratio = satisfied / total over every must and must_not assertion outcome
//	band  = the numbered band with the highest value ≤ ratio; the lowest band when none is
//
// So a run that satisfies every assertion gets the top band and one that satisfies none gets
// the bottom band. It applies only to rubrics whose bands are all numbers in 0..1: a deduction
// or a word band ("proportional") needs a dedicated rule, and Check says so. The verdict names
// the rule used (genericRuleName), so a generic score is never mistaken for a dedicated one.

// genericRuleName is the rule id a generic score carries.
const genericRuleName = "score:generic/v1"

// dedicatedProfiles names the profiles whose editions score capability scenarios by dedicated
// rules (profiles.Edition.DedicatedScoring), comma-separated, for the rule table.
func dedicatedProfiles() string {
	var ids []string
	for _, e := range profiles.Editions() {
		if e.DedicatedScoring && !slices.Contains(ids, e.Profile) {
			ids = append(ids, e.Profile)
		}
	}
	return strings.Join(ids, ",")
}

// genericApplies reports why the generic rule cannot score sc of profile p, or "" when it can.
func genericApplies(p *profiles.Profile, sc *profiles.Scenario) string {
	if p != nil && p.Edition != nil && p.Edition.DedicatedScoring {
		return "the scenarios of " + p.Metadata.ID + " " + p.Metadata.Version + " are scored by dedicated rules only (profiles edition registry)"
	}
	if len(sc.Scoring.Rubric) == 0 {
		return "its scoring.rubric is empty"
	}
	for _, b := range sc.Scoring.Rubric {
		if b.Kind != profiles.RubricScore {
			return fmt.Sprintf("its rubric band %s is a %s, not a number (the generic rule reads numbered bands only)", b.Name, b.Kind)
		}
	}
	if sc.Assertions == nil || len(sc.Assertions.Must)+len(sc.Assertions.MustNot) == 0 {
		return "it has no must or must_not assertion to count"
	}
	return ""
}

// genericScore scores sc with the generic rule.
func genericScore(p *profiles.Profile, sc *profiles.Scenario, outcomes []AssertionOutcome) (ScoreResult, error) {
	if why := genericApplies(p, sc); why != "" {
		return ScoreResult{}, fmt.Errorf("%w: no scoring rule for capability scenario %s and the generic rule cannot apply: %s", ErrUnmapped, sc.ID, why)
	}
	if len(outcomes) == 0 {
		return ScoreResult{}, fmt.Errorf("%w: no assertion outcomes for scenario %s", ErrInput, sc.ID)
	}
	satisfied := 0
	for _, o := range outcomes {
		if o.Satisfied {
			satisfied++
		}
	}
	ratio, _ := decimal.FromInt(int64(satisfied)).Div(decimal.FromInt(int64(len(outcomes))))
	bands := slices.Clone(sc.Scoring.Rubric)
	// Highest value first; equal values keep rubric order, so the choice is stable.
	slices.SortStableFunc(bands, func(a, b profiles.RubricBand) int { return compareDecimal(b.Score, a.Score) })
	chosen := bands[len(bands)-1]
	for _, b := range bands {
		if b.Score <= ratio {
			chosen = b
			break
		}
	}
	return ScoreResult{
		Score: chosen.Score.Clamp(decimal.Zero, decimal.One),
		Band:  chosen.Name,
		Rule:  genericRuleName,
		Detail: fmt.Sprintf("%d of %d assertions satisfied (%s): highest band not above that share is %s = %s",
			satisfied, len(outcomes), ratio, chosen.Name, chosen.Score),
	}, nil
}

func compareDecimal(a, b decimal.Decimal) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
