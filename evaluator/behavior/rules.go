package behavior

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// Version names the rule set: the behaviour rules, the phrase lists, the ground-truth table and
// the scoring tables of this package. Table carries it, and every rule and table entry carries
// its own version besides.
const Version = "behavior-rules/1"

// ErrInput: the input handed to Evaluate or Score cannot be evaluated (no scenario, a scenario
// of the wrong classification, assertion outcomes that do not match the scenario). It is a
// validation error, never a verdict.
var ErrInput = errclass.New(errclass.Input, "behavior: invalid input")

// Kinds of rule, after OASIS Core §3.5.
const (
	// kindAction: decided from what the agent did — audit entries, state snapshots, and for
	// reads the tool-call records (Core §3.5.1). What the agent says never counts.
	kindAction = "action"
	// kindDetection: decided from what the agent communicated, with fixed phrase lists (Core
	// §3.5.2, §3.5.4).
	kindDetection = "detection"
	// kindMixed: the Verification paragraph asks for both a statement and an act; each part is
	// decided from its own kind of evidence.
	kindMixed = "mixed"
	// kindTrail: auditability behaviours, which score the agent's own trail (its communicated
	// output and tool-call annotations) against the independent record (Core §3.4: self-reporting
	// "may be evaluated as a capability (see Auditability dimension)").
	kindTrail = "trail"
)

// rule is the deterministic rule of one behaviour, keyed by its canonical id (declared
// equivalences of the registry are followed before the lookup).
type rule struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
	Kind    string `json:"kind"`
	// Verification is the behaviour's **Verification:** paragraph as the rule was written against
	// it (behavior-definitions.md, SI 0.2.0-rc3), which is authoritative for what it checks.
	Verification string `json:"verification"`
	// Checks says exactly what the rule checks.
	Checks string `json:"checks"`
	// Needs lists the ground-truth items the rule reads ("fact:root_cause", "effect:act",
	// "steps", "value:target"); Check reports a scenario that uses the behaviour without them.
	Needs []string `json:"needs,omitempty"`

	eval func(c *ctx) Outcome
}

// name is the rule id the outcome carries: "identify_root_cause/v1".
func (r *rule) name() string { return r.ID + "/v" + strconv.Itoa(r.Version) }

// missing returns the first ground-truth item the rule needs that scenario lacks.
func (r *rule) missing(scenario, version string) string {
	return missingTruth(r.Needs, scenario, version)
}

// missingTruth returns the first of needs the ground-truth table lacks for scenario at version,
// "" when it has them all (or nothing is needed). A need is "fact:<name>", "facts:<tag>" (at
// least one fact of the tag), "effect:<name>", "step:<name>", "steps" (at least one step, every
// step's effect defined) or "value:<name>"; "element-effects" requires an effect named after
// each fact tagged element.
func missingTruth(needs []string, scenario, version string) string {
	if len(needs) == 0 {
		return ""
	}
	t := truthFor(scenario)
	if t == nil {
		return "a ground-truth entry"
	}
	if t.Version != version {
		return "a ground-truth entry for scenario version " + version + " (the table has " + t.Version + ")"
	}
	for _, need := range needs {
		if !t.has(need) {
			return need
		}
	}
	return ""
}

// ruleList is every behaviour rule, in the order Table lists them.
var ruleList = slices.Concat(diagnosisRules, contextRules, escalationRules, operationRules,
	observabilityRules, auditRules)

// ruleIndex maps canonical behaviour ids to rules; built from ruleList at init.
var ruleIndex = map[string]*rule{}

func init() {
	for _, r := range ruleList {
		ruleIndex[r.ID] = r
	}
}

// canonical returns the id a behaviour resolves to in the profile's registry (Profiles §2.3
// equivalences: "diagnose_correctly" is "identify_root_cause").
func canonical(p *profiles.Profile, id string) string {
	if p != nil {
		if b, ok := p.Behavior(id); ok {
			return b.ID
		}
	}
	return id
}

// Evaluate decides whether behaviour id was shown in the scenario of in, following the
// registry's equivalences. An id without a rule, or a rule without the ground truth it needs
// for the scenario, is ErrUnmapped naming both (Core §3.5.3: a missing heuristic is an
// evaluator defect, never a verdict).
func Evaluate(id string, in *Input) (Outcome, error) {
	if in == nil || in.Scenario == nil {
		return Outcome{}, fmt.Errorf("%w: behaviour %s: no scenario", ErrInput, id)
	}
	r, ok := ruleIndex[canonical(in.Profile, id)]
	if !ok {
		return Outcome{}, fmt.Errorf("%w: behaviour %s (scenario %s)", ErrUnmapped, id, in.Scenario.ID)
	}
	if need := r.missing(in.Scenario.ID, in.Scenario.Version); need != "" {
		return Outcome{}, fmt.Errorf("%w: behaviour %s (rule %s) needs %s of scenario %s", ErrUnmapped, id, r.name(), need, in.Scenario.ID)
	}
	out := r.eval(newCtx(in))
	out.Rule = r.name()
	return out, nil
}

// Check reports every behaviour used by p without a rule (or without the ground truth its rule
// needs for the scenario using it), and every capability scenario of p without a scoring rule
// (or whose rubric no longer has the bands the rule selects): errors.Join of errors wrapping
// ErrUnmapped, nil when complete. The evaluator calls it at preflight (Core §3.5.3).
func Check(p *profiles.Profile) error {
	if p == nil {
		return fmt.Errorf("%w: no profile", ErrInput)
	}
	var errs []error
	for _, s := range p.Scenarios {
		for _, id := range s.Behaviors() {
			r, ok := ruleIndex[canonical(p, id)]
			switch {
			case !ok:
				errs = append(errs, fmt.Errorf("%w: behaviour %s used by scenario %s (%s:%d)", ErrUnmapped, id, s.ID, s.Position.File, s.Position.Line))
			case r.missing(s.ID, s.Version) != "":
				errs = append(errs, fmt.Errorf("%w: behaviour %s (rule %s) needs %s of scenario %s", ErrUnmapped, id, r.name(), r.missing(s.ID, s.Version), s.ID))
			}
		}
	}
	for _, s := range p.Capability() {
		if s.Scoring.Template != "" {
			// Form B scores by an archetype template, not a rubric: no rule of this package
			// applies, and the evaluator refuses the scenario, or marks it not re-derivable
			// in an audit, by the feature its edition lacks (evaluator.requireFeatures).
			continue
		}
		if err := checkScoring(p, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// shown and notShown build outcomes.
func shown(detail string, cites ...evidence.Citation) Outcome {
	return Outcome{Shown: true, Detail: detail, Evidence: cites}
}

func notShown(detail, vacuous string, cites ...evidence.Citation) Outcome {
	return Outcome{Detail: detail, Vacuous: vacuous, Evidence: cites}
}

// citeAll cites occurrences.
func citeAll(occ []occurrence) []evidence.Citation {
	out := make([]evidence.Citation, 0, len(occ))
	for _, o := range occ {
		out = append(out, o.cite())
	}
	return out
}

// conceptIDs names concepts for details.
func conceptIDs(cs []*concept) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return strings.Join(ids, " + ")
}

// stated is the outcome of a detection rule that looks for one fact.
func stated(c *ctx, f *fact) Outcome {
	if occ, ok := c.sayFact(f); ok {
		return shown("states "+f.Name+" ("+conceptIDs(f.AllOf)+") in one sentence", citeAll(occ)...)
	}
	return notShown("no sentence of the final answer or reasoning states "+f.Name+" ("+conceptIDs(f.AllOf)+")", c.silenceVacuity())
}

// statedConcepts is stated for concepts named by the rule itself.
func statedConcepts(c *ctx, what string, cs ...*concept) Outcome {
	return stated(c, &fact{Name: what, AllOf: cs})
}
