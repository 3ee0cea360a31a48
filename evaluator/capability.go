package evaluator

import (
	"fmt"
	"slices"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// capability computes the capability block (Core §4.3, Reporting §1): scenario scores →
// archetype scores (the mean of the archetype's scored scenarios) → category scores (the
// profile's aggregation: weighted average with per-archetype multipliers, or minimum) → core
// dimension scores (the profile's category weights, renormalized over the categories that have
// a score). All arithmetic is fixed point (internal/decimal).
func (e *evaluation) capability(scenarios []*profiles.Scenario) *Capability {
	c := &Capability{Tier: e.run.Manifest.Tier, DomainCategories: map[string]CategoryScore{},
		CoreDimensions: map[string]*decimal.Decimal{}, Archetypes: map[string]ArchetypeScore{},
		Statement: "Scores are only comparable between evaluations at the same tier"}
	byArchetype := map[string][]decimal.Decimal{}
	for i, r := range e.results {
		if r.Score == nil {
			continue
		}
		arch := scenarios[i].Archetype
		byArchetype[arch] = append(byArchetype[arch], r.Score.Value)
		a := c.Archetypes[arch]
		a.Scenarios = append(a.Scenarios, r.ID)
		c.Archetypes[arch] = a
	}
	for arch, scores := range byArchetype {
		a := c.Archetypes[arch]
		a.Score = mean(scores)
		c.Archetypes[arch] = a
	}
	model := &e.p.Scoring
	catScores := map[string]decimal.Decimal{}
	for _, cat := range e.p.CapabilityCategories() {
		cs := CategoryScore{MapsToDimensions: []string{}}
		for _, d := range cat.Dimensions {
			cs.MapsToDimensions = append(cs.MapsToDimensions, string(d))
		}
		agg, ok := model.Category(cat.ID)
		if ok {
			cs.Method = string(agg.Method)
		}
		var scores []decimal.Decimal
		var weights []decimal.Decimal
		for _, arch := range cat.Archetypes {
			a, scored := c.Archetypes[arch.ID]
			if !scored {
				continue
			}
			cs.ArchetypesEvaluated++
			scores = append(scores, a.Score)
			w := decimal.One
			if ok {
				w = agg.Multiplier(arch.ID)
			}
			weights = append(weights, w)
		}
		if len(scores) > 0 && ok {
			s := categoryScore(agg.Method, scores, weights)
			cs.Score = &s
			catScores[cat.ID] = s
		}
		c.DomainCategories[cat.ID] = cs
	}
	for _, dim := range profiles.CoreDimensions {
		c.CoreDimensions[string(dim)] = dimensionScore(model, dim, catScores)
	}
	c.Coverage = e.coverage(c)
	return c
}

// mean is the arithmetic mean, rounded half away from zero to six places.
func mean(xs []decimal.Decimal) decimal.Decimal {
	sum := decimal.Zero
	for _, x := range xs {
		sum += x
	}
	m, _ := sum.Div(decimal.FromInt(int64(len(xs))))
	return m
}

// categoryScore aggregates archetype scores by the profile's method (Core §4.3; SI §6).
func categoryScore(method profiles.AggregationMethod, scores, weights []decimal.Decimal) decimal.Decimal {
	if method == profiles.Minimum {
		return slices.Min(scores)
	}
	num, den := decimal.Zero, decimal.Zero
	for i, s := range scores {
		num += weights[i].Mul(s)
		den += weights[i]
	}
	v, _ := num.Div(den)
	return v
}

// dimensionScore weights the category scores of a dimension (SI §9.2); categories without a
// score drop out and the remaining weights are renormalized. nil when no category of the
// dimension has a score.
func dimensionScore(model *profiles.ScoringModel, dim profiles.Dimension, cats map[string]decimal.Decimal) *decimal.Decimal {
	dw, ok := model.Weights(dim)
	if !ok {
		return nil
	}
	num, den := decimal.Zero, decimal.Zero
	for _, w := range dw.Weights {
		s, scored := cats[w.Category]
		if !scored || w.Weight == decimal.Zero {
			continue
		}
		num += w.Weight.Mul(s)
		den += w.Weight
	}
	if den == decimal.Zero {
		return nil
	}
	v, _ := num.Div(den)
	return &v
}

// coverage compares the evaluated archetypes with the minimum of the claimed tier (Core §5,
// SI profile §8). An evaluation below it is incomplete.
func (e *evaluation) coverage(c *Capability) Coverage {
	cov := Coverage{}
	var req *profiles.TierRequirement
	for i := range e.p.Tiers {
		if e.p.Tiers[i].Tier == c.Tier {
			req = &e.p.Tiers[i]
		}
	}
	cov.EvaluatedArchetypes = len(c.Archetypes)
	if req == nil {
		cov.Missing = append(cov.Missing, fmt.Sprintf("the profile defines no minimum coverage for tier %d", c.Tier))
		return cov
	}
	evaluatedSafety := map[string]bool{}
	for _, r := range e.results {
		if r.Classification == string(profiles.Safety) && r.State == StateEvaluated {
			evaluatedSafety[r.Archetype] = true
		}
	}
	check := func(cat *profiles.Category, per int, done func(string) bool) {
		need := per
		if per == profiles.AllArchetypes || per > len(cat.Archetypes) {
			need = len(cat.Archetypes)
		}
		have := 0
		for _, a := range cat.Archetypes {
			if done(a.ID) {
				have++
			}
		}
		if cat.Classification == profiles.Capability {
			cov.RequiredArchetypes += need
		}
		if have < need {
			cov.Missing = append(cov.Missing, fmt.Sprintf("%s: %d of %d required archetypes evaluated", cat.ID, have, need))
		}
	}
	for _, cat := range e.p.SafetyCategories() {
		check(cat, req.SafetyPerCategory, func(id string) bool { return evaluatedSafety[id] })
	}
	for _, cat := range e.p.CapabilityCategories() {
		check(cat, req.CapabilityPerCategory, func(id string) bool { _, ok := c.Archetypes[id]; return ok })
	}
	for _, g := range req.RequiredGroups {
		if !slices.ContainsFunc(g.Archetypes, func(id string) bool { _, ok := c.Archetypes[id]; return ok }) {
			cov.Missing = append(cov.Missing, "no archetype of the "+g.Name+" group evaluated")
		}
	}
	if req.AdversarialVariants {
		cov.Missing = append(cov.Missing, "adversarial variants are required at this tier and are not evaluated here")
	}
	cov.Complete = len(cov.Missing) == 0
	return cov
}
