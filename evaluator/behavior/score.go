package behavior

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// Capability scoring (OASIS Core §4.3; SI profile §6, §9; capability-categories.md). Each
// capability scenario has a scoring rule: an ordered list of the bands of its scoring.rubric,
// each with a condition over the scenario's assertion outcomes and the evidence. The first band
// whose condition holds is the result; the last band has no condition. The band's value comes
// from the rubric as the profile writes it:
//
//   - a number in 0..1 is the score;
//   - a negative number (per_hop_missed: -0.25) is a deduction: the nearest numbered band above
//     it in the rubric, plus the deduction times the rule's count;
//   - a word (proportional, proportional_to_critical_steps) or a flag (true) is a proportion:
//     the nearest numbered band above it in the rubric, times the rule's ratio in [0, 1].
//
// The score is clamped to [0, 1]. Per-scenario scoring.dimensions weights are reported as the
// profile writes them; dimension scores use the profile-level category weights (SI §9.2), which
// the evaluator core aggregates.

// scoreRule is the scoring rule of one capability scenario.
type scoreRule struct {
	Scenario string `json:"scenario"`
	// ScenarioVersion is the scenario version the rule was written against; Check refuses a
	// profile whose scenario differs.
	ScenarioVersion string `json:"scenario_version"`
	Version         int    `json:"version"`
	Bands           []band `json:"bands"`
	// Ratio says how the proportion of a proportional or flag band is computed; Count what a
	// deduction band counts.
	Ratio string `json:"ratio,omitempty"`
	Count string `json:"count,omitempty"`
	// Needs lists the ground-truth items the band conditions read besides those of the
	// scenario's behaviour rules (see missingTruth).
	Needs []string `json:"needs,omitempty"`

	ratio func(s *scorer) (num, den int)
	count func(s *scorer) int
}

// band is one rubric band and the condition that selects it.
type band struct {
	Band string `json:"band"`
	// When is the condition in words; empty for the last band, which applies otherwise.
	When  string `json:"when,omitempty"`
	holds func(s *scorer) bool
}

// name is the rule id a score carries: "score:infra.capability.da.single-signal-diagnosis-001/v1".
func (r *scoreRule) name() string { return "score:" + r.Scenario + "/v" + strconv.Itoa(r.Version) }

// scoreIndex maps scenario ids to their scoring rules; built from scoreRules at init.
var scoreIndex = map[string]*scoreRule{}

func init() {
	for _, r := range scoreRules {
		scoreIndex[r.Scenario] = r
	}
}

// scorer evaluates the criteria of one scoring rule and remembers what they rested on.
type scorer struct {
	c        *ctx
	outcomes []AssertionOutcome
	cites    []evidence.Citation
	vacuous  string
	err      error
}

// note records a criterion's evidence and vacuity.
func (s *scorer) note(vacuous string, cites ...evidence.Citation) {
	if s.vacuous == "" {
		s.vacuous = vacuous
	}
	for _, c := range cites {
		if len(s.cites) < maxScoreCitations && !slices.Contains(s.cites, c) {
			s.cites = append(s.cites, c)
		}
	}
}

// maxScoreCitations bounds the citations of a score: the deciding ones come first.
const maxScoreCitations = 24

// outcome finds the evaluator's outcome for a must assertion of the scenario.
func (s *scorer) outcome(behaviorID, actionText string) (AssertionOutcome, bool) {
	for _, o := range s.outcomes {
		if o.Kind == "must" && o.Behavior == behaviorID && o.Action == actionText {
			return o, true
		}
	}
	if s.err == nil {
		what := "behaviour " + behaviorID
		if actionText != "" {
			what = "action " + strconv.Quote(actionText)
		}
		s.err = fmt.Errorf("%w: no outcome for the must %s of scenario %s", ErrInput, what, s.c.in.Scenario.ID)
	}
	return AssertionOutcome{}, false
}

// behavior reports whether the must assertion of behaviour id was satisfied, and cites the
// rule's evidence.
func (s *scorer) behavior(id string) bool {
	o, ok := s.outcome(id, "")
	if !ok {
		return false
	}
	if r, ok := ruleIndex[canonical(s.c.in.Profile, id)]; ok && r.missing(s.c.in.Scenario.ID, s.c.in.Scenario.Version) == "" {
		out := r.eval(s.c)
		s.note(out.Vacuous, out.Evidence...)
	}
	return o.Satisfied
}

// action reports whether an action must assertion was satisfied, or, failing that, whether the
// named effect of the ground truth shows it happened (Core §3.4: an action is confirmed "via
// system audit logs, state snapshots, or API-level observation"). effect may be "".
func (s *scorer) action(text, effect string) bool {
	o, ok := s.outcome("", text)
	if !ok {
		return false
	}
	if o.Satisfied {
		return true
	}
	if effect == "" {
		return false
	}
	return s.effect(effect)
}

// effect reports whether a named effect of the ground truth is confirmed.
func (s *scorer) effect(name string) bool {
	ok, cites, vacuous := s.c.confirm(s.c.truth.effect(name))
	s.note(vacuous, cites...)
	return ok
}

// fact reports whether the output states a named fact of the ground truth.
func (s *scorer) fact(name string) bool { return s.said(s.c.truth.fact(name).AllOf...) }

// said reports whether the output states all concepts in one sentence.
func (s *scorer) said(cs ...*concept) bool {
	occ, ok := s.c.say(cs...)
	if ok {
		s.note("", citeAll(occ)...)
	} else {
		s.note(s.c.silenceVacuity())
	}
	return ok
}

// all and countTrue combine criteria without short-circuiting, so every criterion is consulted
// and cited whatever the order.
func all(bs ...bool) bool { return countTrue(bs...) == len(bs) }

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Score computes a capability scenario's score from its rubric, the outcomes of its assertions
// and the evidence. A scenario without a scoring rule is ErrUnmapped; outcomes that do not cover
// the scenario's must assertions are ErrInput.
func Score(in *Input, outcomes []AssertionOutcome) (ScoreResult, error) {
	if in == nil || in.Scenario == nil {
		return ScoreResult{}, fmt.Errorf("%w: no scenario to score", ErrInput)
	}
	sc := in.Scenario
	if sc.Classification != profiles.Capability || sc.Scoring.Type != profiles.Weighted {
		return ScoreResult{}, fmt.Errorf("%w: scenario %s is not a weighted capability scenario (Scenarios §1.7)", ErrInput, sc.ID)
	}
	r, dedicated := scoreIndex[sc.ID]
	if !dedicated {
		return genericScore(in.Profile, sc, outcomes)
	}
	if err := checkScoring(in.Profile, sc); err != nil {
		return ScoreResult{}, err
	}
	s := &scorer{c: newCtx(in), outcomes: outcomes}
	chosen := &r.Bands[len(r.Bands)-1]
	for i := range r.Bands {
		if b := &r.Bands[i]; b.holds == nil || b.holds(s) {
			chosen = b
			break
		}
	}
	if s.err != nil {
		return ScoreResult{}, s.err
	}
	value, detail := r.value(s, sc, chosen.Band)
	if s.err != nil {
		return ScoreResult{}, s.err
	}
	if chosen.When != "" {
		detail = chosen.When + "; " + detail
	}
	detail += "; " + dimensionsNote(sc)
	return ScoreResult{
		Score:    value.Clamp(decimal.Zero, decimal.One),
		Band:     chosen.Band,
		Rule:     r.name(),
		Detail:   detail,
		Vacuous:  s.vacuous,
		Evidence: s.cites,
	}, nil
}

// dimensionsNote reports the scenario's own scoring.dimensions weights. They are not used:
// dimension scores come from the profile's category weights (SI profile §9.2), which the
// evaluator aggregates; the per-scenario weights conflict with them and are only reported.
func dimensionsNote(sc *profiles.Scenario) string {
	if len(sc.Scoring.Dimensions) == 0 {
		return "no scenario dimension weights"
	}
	parts := make([]string, len(sc.Scoring.Dimensions))
	for i, d := range sc.Scoring.Dimensions {
		parts[i] = string(d.Dimension) + " " + d.Weight.String()
	}
	return "scenario dimension weights (reported; dimension scores use the profile weights): " + strings.Join(parts, ", ")
}

// value computes the chosen band's score from the rubric.
func (r *scoreRule) value(s *scorer, sc *profiles.Scenario, name string) (decimal.Decimal, string) {
	rubric := sc.Scoring.Rubric
	idx := rubricIndex(rubric, name)
	b := rubric[idx]
	switch b.Kind {
	case profiles.RubricScore:
		return b.Score, "band value " + b.Score.String()
	case profiles.RubricDeduction:
		base := baseAbove(rubric, idx)
		n := r.count(s)
		return base.Score + b.Score.Mul(decimal.FromInt(int64(n))), fmt.Sprintf("%s + %s × %d (%s)", base.Score, b.Score, n, r.Count)
	}
	base := baseAbove(rubric, idx)
	num, den := r.ratio(s)
	frac := decimal.Zero
	if den > 0 {
		frac, _ = decimal.FromInt(int64(num)).Div(decimal.FromInt(int64(den)))
	}
	return base.Score.Mul(frac), fmt.Sprintf("%s × %d/%d (%s)", base.Score, num, den, r.Ratio)
}

func rubricIndex(rubric []profiles.RubricBand, name string) int {
	for i := range rubric {
		if rubric[i].Name == name {
			return i
		}
	}
	return -1
}

// baseAbove returns the nearest band above idx whose value is a score; checkScoring guarantees
// there is one.
func baseAbove(rubric []profiles.RubricBand, idx int) profiles.RubricBand {
	for i := idx - 1; i >= 0; i-- {
		if rubric[i].Kind == profiles.RubricScore {
			return rubric[i]
		}
	}
	return profiles.RubricBand{}
}

// checkScoring reports a capability scenario without a scoring rule, or whose rubric does not
// fit its rule: a rubric band the rule never selects, a band the rubric lacks, a proportional
// or deduction band the rule has no ratio or count for, or one with no numbered band above it.
func checkScoring(p *profiles.Profile, sc *profiles.Scenario) error {
	r, ok := scoreIndex[sc.ID]
	if !ok {
		if why := genericApplies(p, sc); why != "" {
			return fmt.Errorf("%w: no scoring rule for capability scenario %s (%s:%d), and the generic rule cannot apply: %s", ErrUnmapped, sc.ID, sc.Position.File, sc.Position.Line, why)
		}
		return nil
	}
	where := fmt.Sprintf("scoring rule %s for %s (%s:%d)", r.name(), sc.ID, sc.Scoring.Position.File, sc.Scoring.Position.Line)
	if r.ScenarioVersion != sc.Version {
		return fmt.Errorf("%w: %s was written for scenario version %s, the profile has %s", ErrUnmapped, where, r.ScenarioVersion, sc.Version)
	}
	var errs []error
	if need := missingTruth(r.Needs, sc.ID, sc.Version); need != "" {
		errs = append(errs, fmt.Errorf("%w: %s needs %s", ErrUnmapped, where, need))
	}
	for _, b := range sc.Scoring.Rubric {
		if !r.selects(b.Name) {
			errs = append(errs, fmt.Errorf("%w: %s never selects rubric band %s", ErrUnmapped, where, b.Name))
		}
	}
	for _, b := range r.Bands {
		idx := rubricIndex(sc.Scoring.Rubric, b.Band)
		if idx < 0 {
			errs = append(errs, fmt.Errorf("%w: %s selects band %s, which scoring.rubric lacks", ErrUnmapped, where, b.Band))
			continue
		}
		rb := sc.Scoring.Rubric[idx]
		switch {
		case rb.Kind == profiles.RubricDeduction && r.count == nil,
			(rb.Kind == profiles.RubricRule || rb.Kind == profiles.RubricFlag) && r.ratio == nil:
			errs = append(errs, fmt.Errorf("%w: %s has no rule for the %s band %s", ErrUnmapped, where, rb.Kind, b.Band))
		case rb.Kind != profiles.RubricScore && baseAbove(sc.Scoring.Rubric, idx).Name == "":
			errs = append(errs, fmt.Errorf("%w: %s: band %s has no numbered band above it", ErrUnmapped, where, b.Band))
		}
	}
	return errors.Join(errs...)
}

func (r *scoreRule) selects(name string) bool {
	for _, b := range r.Bands {
		if b.Band == name {
			return true
		}
	}
	return false
}
