package report

import (
	"fmt"
	"strconv"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

// capability compares the capability block: its presence (Reporting §1: only present if
// safety = PASS; Execution §3 step 7g: no scoring after a Phase 2 abort), its tier and
// coverage, and every claimed score as a decimal rounded to decimal.Places.
func (cmp *comparer) capability() {
	cc, dc := cmp.c.Capability, cmp.v.Capability
	switch {
	case cc == nil && dc == nil:
		return
	case cc != nil && dc == nil:
		why := "safety is " + string(cmp.v.Safety) + ": Reporting §1 gives a capability block only when safety is PASS (Core §2: Phase 2 runs only after a Phase 1 PASS)"
		if cmp.v.Safety == evaluator.Pass {
			why = "Phase 2 aborted, and Execution §3 step 7g skips capability scoring after an abort: " + cmp.v.Metadata.AbortReason
		}
		cmp.add(Finding{Code: CodeCapabilityBlock, Severity: SeverityMismatch, Subject: cc.Path,
			Claimed:    fmt.Sprintf("capability scores (%d categories, %d dimensions, %d archetypes)", len(cc.Categories), len(cc.Dimensions), len(cc.Archetypes)),
			Derived:    "no capability block",
			ReportPath: cc.Path, ReportLine: cc.Line, Message: "the report gives capability scores the evidence does not: " + why})
		return
	case cc == nil:
		cmp.add(Finding{Code: CodeCapabilityBlock, Severity: SeverityNote, Subject: "capability",
			Claimed: absent, Derived: fmt.Sprintf("capability scores, tier %d, %d categories", dc.Tier, len(dc.DomainCategories)),
			Message: "the report omits the capability block the evidence gives (Reporting §2.4)"})
		return
	}
	if cc.Tier.Present && cc.Tier.Value != dc.Tier {
		cmp.add(at(Finding{Code: CodeCapabilityTier, Severity: SeverityMismatch, Subject: cc.Tier.Path,
			Claimed: strconv.Itoa(cc.Tier.Value), Derived: strconv.Itoa(dc.Tier),
			Message: "scores are only comparable at the same tier (Reporting §2.4); the tiers differ"}, cc.Tier))
	}
	cmp.coverageInt(cc.Required, dc.Coverage.RequiredArchetypes, "required archetypes")
	cmp.coverageInt(cc.Evaluated, dc.Coverage.EvaluatedArchetypes, "evaluated archetypes")
	if cc.Complete.Present && cc.Complete.Value != dc.Coverage.Complete {
		cmp.add(at(Finding{Code: CodeCapabilityCoverage, Severity: SeverityMismatch, Subject: cc.Complete.Path,
			Claimed: strconv.FormatBool(cc.Complete.Value), Derived: strconv.FormatBool(dc.Coverage.Complete),
			Evidence: dc.Coverage.Missing,
			Message:  "coverage completeness differs (Core §5, Reporting §2.5: an evaluation below its tier's minimum coverage is incomplete)"}, cc.Complete))
	}
	categories := map[string]*decimal.Decimal{}
	for name, s := range dc.DomainCategories {
		categories[name] = s.Score
	}
	archetypes := map[string]*decimal.Decimal{}
	for name, s := range dc.Archetypes {
		archetypes[name] = &s.Score
	}
	cmp.scores("category", cc.Categories, categories)
	cmp.scores("dimension", cc.Dimensions, dc.CoreDimensions)
	cmp.scores("archetype", cc.Archetypes, archetypes)
	for _, s := range cc.Categories {
		d, ok := dc.DomainCategories[s.Name]
		if ok && s.ArchetypesEvaluated.Present && s.ArchetypesEvaluated.Value != d.ArchetypesEvaluated {
			cmp.add(at(Finding{Code: CodeCapabilityCoverage, Severity: SeverityMismatch, Subject: "category " + s.Name + " archetypes evaluated",
				Claimed: strconv.Itoa(s.ArchetypesEvaluated.Value), Derived: strconv.Itoa(d.ArchetypesEvaluated),
				Message: "the number of archetypes evaluated in the category differs"}, s.ArchetypesEvaluated))
		}
	}
}

func (cmp *comparer) coverageInt(c oasisctl.Claimed[int], derived int, what string) {
	if c.Present && c.Value != derived {
		cmp.add(at(Finding{Code: CodeCapabilityCoverage, Severity: SeverityMismatch, Subject: c.Path,
			Claimed: strconv.Itoa(c.Value), Derived: strconv.Itoa(derived), Message: "the number of " + what + " differs (Core §5)"}, c))
	}
}

// scores compares claimed scores of one level (category, dimension, archetype) with the
// derived ones; a derived nil score means the level was not evaluated.
func (cmp *comparer) scores(level string, claimed []oasisctl.ScoreClaim, derived map[string]*decimal.Decimal) {
	for _, s := range claimed {
		d, ok := derived[s.Name]
		derivedText := "(not evaluated)"
		if ok && d != nil {
			derivedText = d.String()
		}
		claimedText := "null"
		if s.Score.Present {
			claimedText = s.Score.Value.String()
		}
		if claimedText == derivedText || (!s.Score.Present && derivedText == "(not evaluated)") {
			continue
		}
		cmp.add(at(Finding{Code: CodeCapabilityScore, Severity: SeverityMismatch, Subject: level + " " + s.Name,
			Claimed: claimedText, Derived: derivedText,
			Message: fmt.Sprintf("the %s score differs (compared as decimals rounded to %d places; Core §4.3)", level, decimal.Places)}, s.Score))
	}
}
