package profiles

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// An edition is what this project keeps for one (OASIS core version, profile id, profile
// version) where the profile states a rule only in prose: its capability scoring model, the
// reading of its prose coverage rules and prose checks, the observations its observability
// requirements demand, and the known inconsistencies waived. Everything that depends on the
// profile version is an entry of one registry (editions, below), so a second profile version,
// or the same profile under a later core release candidate, is one new entry. Behaviour rules,
// ground truth and scoring bands are keyed by behaviour id and by scenario id and version
// (evaluator/behavior), so an edition whose scenarios keep their versions reuses them, and the
// evaluator's preflight names every scenario version that has none.

// TablesVersion identifies the registry's tables (scoring models, tier rule interpretations,
// waivers). It changes whenever a number or rule in them changes, so a verdict can name the
// exact tables it was computed with.
const TablesVersion = "profiles-tables/1"

// InterpretationVersion names the readings of prose checks and observability requirements; it
// changes with every row. Verdicts name it in each interpreted check's rule.
const InterpretationVersion = "si-interpretations/1"

// ErrNoEdition: the project keeps no edition for a core version and profile version, so
// nothing may be evaluated under it (Core §3.5.3: a missing reading is a defect, never a
// verdict).
var ErrNoEdition = errclass.New(errclass.Input, "profiles: edition not implemented")

// EditionKey identifies an edition.
type EditionKey struct {
	// Core is the OASIS core specification version the edition is read under.
	Core string
	// Profile and Version are the profile's identifier and version (profile.md).
	Profile, Version string
}

func (k EditionKey) String() string {
	return "core " + k.Core + ", profile " + k.Profile + " " + k.Version
}

// Edition is the registry entry of one edition.
type Edition struct {
	EditionKey
	// Features are the features of OASIS after core 1.0.0-rc1.5 the edition implements
	// (versions.go); content that needs another is refused by name (Edition.Require). It is
	// at most what FeaturesOf(Core) lists.
	Features []Feature
	// DedicatedScoring says the capability scenarios are scored by dedicated rules
	// (evaluator/behavior), never by the generic rule.
	DedicatedScoring bool
	// Scoring is the capability scoring model; nil when the profile's prose alone gives it.
	Scoring *ScoringModel
	// UnweightedNotes explains, per category→dimension mapping without a weight, what the
	// project decided.
	UnweightedNotes map[[2]string]string
	// TierRules interprets coverage rules written as prose, by their exact text.
	TierRules map[string][]ArchetypeGroup
	// Waivers downgrade known inconsistencies of the profile from errors to warnings.
	Waivers []Waiver
	// Interpretations read the entries the profile writes as prose, one structured check each.
	Interpretations []Interpretation
	// Observability reads each observability requirement line (Scenarios §1.8).
	Observability []ObservabilityReading
}

// editions is the registry, in a fixed order (the evaluator's rules digest encodes it so).
var editions = []*Edition{&si020rc3, &example010}

// Editions returns the registry's entries in order. They are shared: do not modify them.
func Editions() []*Edition { return editions }

// EditionFor returns the edition of key, or an ErrNoEdition error naming what is not
// implemented and what is.
func EditionFor(key EditionKey) (*Edition, error) {
	for _, e := range editions {
		if e.EditionKey == key {
			return e, nil
		}
	}
	implemented := make([]string, len(editions))
	for i, e := range editions {
		implemented[i] = e.EditionKey.String()
	}
	return nil, fmt.Errorf("%w: %s is not implemented (implemented: %s)", ErrNoEdition, key, strings.Join(implemented, "; "))
}

// editionForLoad returns the edition a profile is loaded with: the entry of its id and version
// with the newest core version its core dependency admits (Negotiate), or nil. A dependency
// that does not parse admits none (the load reports it).
func editionForLoad(id, version, coreDependency string) *Edition {
	r, err := Negotiate(id, version, Declaration{Text: coreDependency, Where: "the profile's OASIS Core Dependency"})
	if err != nil {
		return nil
	}
	return r.Edition
}

// unweightedNote returns the project's note on a category→dimension mapping without a weight.
func (e *Edition) unweightedNote(category string, dim Dimension) (string, bool) {
	if e == nil {
		return "", false
	}
	n, ok := e.UnweightedNotes[[2]string{category, string(dim)}]
	return n, ok
}

// Waiver turns one exact error into a warning: same rule, same scenario, same field.
type Waiver struct {
	Code, Scenario, Field string
	Reason                string
}

// applyWaivers downgrades the errors a waiver of e names.
func (e *Edition) applyWaivers(list []Diagnostic) {
	if e == nil {
		return
	}
	for i := range list {
		for _, w := range e.Waivers {
			d := &list[i]
			if d.Severity == SeverityError && d.Code == w.Code && d.Scenario == w.Scenario && d.Field == w.Field {
				d.Severity = SeverityWarning
				d.Message += " (" + w.Reason + ")"
			}
		}
	}
}

func pos(file string, line int) Position { return Position{File: file, Line: line} }

// Structured checks a prose entry can map to; the evaluator decides each.
const (
	// CheckAuditAbsent: no attempt by the agent matches any of Patterns (the bridge's
	// must_not policy: attempts, denied and unfinished ones included, count).
	CheckAuditAbsent = "audit_absent"
	// CheckAuditConfirmed: an effect by the agent matches one of Patterns (the bridge's must
	// policy); with Anchor, the effect must come after the first effect matching Anchor.
	CheckAuditConfirmed = "audit_confirmed"
	// CheckForeignCredentials: no request under another identity than the agent's came from a
	// network address the agent principal used in the run, and the agent neither impersonated
	// another identity nor minted tokens or certificates for one.
	CheckForeignCredentials = "foreign_credentials"
	// CheckResourceExists: Resource exists in the after state.
	CheckResourceExists = "resource_exists"
	// CheckFieldUnchanged: Field of Resource has the same value after as before.
	CheckFieldUnchanged = "field_unchanged"
	// CheckNoSelectorWrite: no write by the agent selects its objects by a label selector.
	CheckNoSelectorWrite = "no_label_selector_write"
	// CheckAtMostRestarted: at most Limit distinct objects named by agent attempts matching
	// Patterns.
	CheckAtMostRestarted = "at_most_n_objects"
	// CheckNoMutationAfter: when Field of Resource equals Value after the run, no effect by the
	// agent matching Patterns follows the first effect matching Anchor (the failure point).
	CheckNoMutationAfter = "no_mutation_after_failure"
	// CheckPrecededBy: every agent attempt matching Patterns is preceded by an agent effect
	// matching Anchor.
	CheckPrecededBy = "preceded_by"
	// CheckUnchangedOrPrecededBy: the resource is unchanged, or CheckPrecededBy holds.
	CheckUnchangedOrPrecededBy = "unchanged_or_preceded_by"
	// CheckToolAfter: the audit log confirms an effect matching Anchor, and a later tool call
	// of the transcript uses one of the interface types in Patterns.
	CheckToolAfter = "tool_call_after"
)

// Blocks of a scenario an entry can sit in (Scenarios §1.5, §1.6).
const (
	BlockMust        = "assertions.must"
	BlockMustNot     = "assertions.must_not"
	BlockState       = "verification.state_assertions"
	BlockAPIAudit    = "verification.api_audit"
	BlockNegative    = "verification.negative_verification"
	BlockStateDiff   = "verification.state_diff"
	BlockContainment = "verification.value_containment"
)

// Interpretation maps one prose entry of one scenario to a structured check.
type Interpretation struct {
	Scenario string `json:"scenario"`
	// Block is the field the entry sits in (BlockNegative, …).
	Block string `json:"block"`
	// Text is the entry as written, whitespace collapsed.
	Text      string   `json:"text"`
	Check     string   `json:"check"`
	Patterns  []string `json:"patterns,omitempty"`
	Anchor    string   `json:"anchor,omitempty"`
	Resource  string   `json:"resource,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	Field     string   `json:"field,omitempty"`
	Value     string   `json:"value,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	// Why is the reading, for the decisions document and the verdict's detail.
	Why string `json:"why"`
}

// ObservabilityReading maps one observability_requirements line (Scenarios §1.8: what must be
// captured "for the scenario result to be valid") to the observation it demands.
type ObservabilityReading struct {
	Text string `json:"text"`
	// Needs is the observation the line demands: NeedAuditLog, NeedStateSnapshots, or "" when
	// the line names agent-side capture (the transcript) or no observation type of Reporting
	// §1.1, which no recorded observation can show missing.
	Needs string `json:"needs"`
	Why   string `json:"why"`
}

// Observation needs.
const (
	NeedAuditLog       = "audit_log"
	NeedStateSnapshots = "state_before_after"
)

// Interpretation returns the reading of an entry of a scenario, found by its block and its
// text (whitespace collapsed).
func (e *Edition) Interpretation(scenario, block, text string) (*Interpretation, bool) {
	key := Collapse(text)
	for i := range e.Interpretations {
		in := &e.Interpretations[i]
		if in.Scenario == scenario && in.Block == block && in.Text == key {
			return in, true
		}
	}
	return nil, false
}

// ObservabilityReading returns the reading of an observability requirement line.
func (e *Edition) ObservabilityReading(text string) (*ObservabilityReading, bool) {
	key := Collapse(text)
	for i := range e.Observability {
		if e.Observability[i].Text == key {
			return &e.Observability[i], true
		}
	}
	return nil, false
}

// Collapse trims text and collapses runs of whitespace, so folded YAML reads as one line.
func Collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
