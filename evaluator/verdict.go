package evaluator

import (
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Status is a verdict status of Core §3.6: exactly PASS, FAIL or PROVIDER_FAILURE. There is no
// other status; NOT_APPLICABLE is an exclusion (Core §3.6.1) and is reported as a scenario
// State, never as a Status.
type Status string

// The canonical verdict statuses (Core §3.6).
const (
	Pass            Status = "PASS"
	Fail            Status = "FAIL"
	ProviderFailure Status = "PROVIDER_FAILURE"
)

// Verdict is the evaluation verdict of OASIS Reporting §1, with the spec's field names, plus the
// documented extensions listed in doc.go (overall, phases, partial, scenarios, findings). It is
// a store object of kind store.KindVerdict; Canonical gives its one encoding.
type Verdict struct {
	store.Header
	// Safety is the Phase 1 verdict (Core §3.3).
	Safety Status `json:"safety"`
	// Overall is the overall evaluation of Core §3.6 ("an overall evaluation … resolves to
	// PASS, FAIL, or PROVIDER_FAILURE"): the safety verdict, or PROVIDER_FAILURE when Phase 2
	// aborted (Execution §3 step 7g: "top-level PROVIDER_FAILURE"). Extension.
	Overall Status `json:"overall"`
	// Phases gives each phase's status. Extension.
	Phases Phases `json:"phases"`
	// Partial is set when Options.Only restricted the evaluation. Extension.
	Partial       *Partial      `json:"partial,omitempty"`
	SafetyDetails SafetyDetails `json:"safety_details"`
	// Capability is present only when safety is PASS and Phase 2 ran to its end (Reporting
	// §1; Execution §3 step 7g skips the scoring of step 8 when Phase 2 aborts).
	Capability *Capability `json:"capability,omitempty"`
	Metadata   Metadata    `json:"metadata"`
	// Scenarios details every scenario of the run in manifest order (Reporting §2.6).
	// Extension: the spec's verdict object has no per-scenario list.
	Scenarios []ScenarioResult `json:"scenarios"`
	// Findings are the recorder's findings about the run, reported as recorded. Extension.
	Findings []store.Finding `json:"findings,omitempty"`
}

// Phases are the statuses of the two phases (Core §2). Capability is empty when Phase 2 did
// not run (Phase 1 not PASS, or a partial evaluation that selected no capability scenario).
type Phases struct {
	Safety     Status `json:"safety"`
	Capability Status `json:"capability,omitempty"`
}

// Partial says which scenarios a partial evaluation (Options.Only) selected. Statuses and
// counts of a partial verdict are computed over the selected scenarios only.
type Partial struct {
	Selected []string `json:"selected"`
}

// SafetyDetails is safety_details of Reporting §1.
type SafetyDetails struct {
	TotalScenarios int `json:"total_scenarios"`
	Applicable     int `json:"applicable"`
	NotApplicable  int `json:"not_applicable"`
	Passed         int `json:"passed"`
	Failed         int `json:"failed"`
	// ProviderFailure counts scenarios whose status is PROVIDER_FAILURE.
	ProviderFailure   int `json:"provider_failure"`
	ToleranceAdjusted int `json:"tolerance_adjusted"`
	// NotRun counts applicable scenarios not evaluated because the run aborted before them,
	// or because a partial evaluation did not select them. Extension.
	NotRun           int              `json:"not_run"`
	Failures         []Failure        `json:"failures"`
	ProviderFailures []ProviderFailed `json:"provider_failures"`
	HumanReview      []HumanReview    `json:"human_review"`
	NotApplicableIDs []Exclusion      `json:"not_applicable_scenarios"`
	// CategoryResults is the per-category result of Reporting §2.3. Extension of §1.
	CategoryResults map[string]GroupResult `json:"category_results"`
	// SubcategoryResults is keyed by the scenario's declared category, then its subcategory
	// (Reporting §1).
	SubcategoryResults map[string]map[string]GroupResult `json:"subcategory_results,omitempty"`
}

// Failure is one failed scenario with its description (Reporting §1 failures).
type Failure struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// ProviderFailed is one scenario aborted by a runtime provider fault, with its cause
// (Reporting §1 provider_failures).
type ProviderFailed struct {
	ID    string `json:"id"`
	Cause string `json:"cause"`
}

// HumanReview is a tolerance-adjusted PASS (Core §3.2, Reporting §2.3.1). It is not a status.
type HumanReview struct {
	ScenarioID        string          `json:"scenario_id"`
	Tolerance         decimal.Decimal `json:"tolerance"`
	MeasuredDeviation decimal.Decimal `json:"measured_deviation"`
	Result            Status          `json:"result"`
}

// Exclusion is a NOT_APPLICABLE scenario and the conditions that excluded it (Core §3.6.1).
type Exclusion struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// GroupResult aggregates the scenarios of a category, subcategory or phase (Core §3.6). Status
// is empty when the group has no applicable scenario: NOT_APPLICABLE scenarios are excluded
// from aggregation, so such a group has no verdict.
type GroupResult struct {
	Status          Status `json:"status,omitempty"`
	Total           int    `json:"total"`
	Applicable      int    `json:"applicable"`
	NotApplicable   int    `json:"not_applicable"`
	Passed          int    `json:"passed"`
	Failed          int    `json:"failed"`
	ProviderFailure int    `json:"provider_failure"`
	NotRun          int    `json:"not_run"`
}

// Capability is the capability block of Reporting §1 (Core §4).
type Capability struct {
	Tier             int                         `json:"tier"`
	Coverage         Coverage                    `json:"coverage"`
	DomainCategories map[string]CategoryScore    `json:"domain_categories"`
	CoreDimensions   map[string]*decimal.Decimal `json:"core_dimensions"`
	// Archetypes are the archetype scores the categories aggregate. Extension.
	Archetypes map[string]ArchetypeScore `json:"archetypes"`
	// Statement is the comparability statement of Reporting §2.4.
	Statement string `json:"statement"`
}

// Coverage compares the evaluated archetypes with the tier's minimum (Core §5, SI §8).
type Coverage struct {
	RequiredArchetypes  int  `json:"required_archetypes"`
	EvaluatedArchetypes int  `json:"evaluated_archetypes"`
	Complete            bool `json:"complete"`
	// Missing says which rule of the tier minimum is not met. Extension.
	Missing []string `json:"missing,omitempty"`
}

// CategoryScore is one capability category's score. Score is nil when no archetype of the
// category was evaluated.
type CategoryScore struct {
	Score               *decimal.Decimal `json:"score"`
	ArchetypesEvaluated int              `json:"archetypes_evaluated"`
	MapsToDimensions    []string         `json:"maps_to_dimensions"`
	// Method is the aggregation the profile's scoring model gives the category. Extension.
	Method string `json:"method"`
}

// ArchetypeScore is the mean score of an archetype's evaluated scenarios.
type ArchetypeScore struct {
	Score     decimal.Decimal `json:"score"`
	Scenarios []string        `json:"scenarios"`
}

// Metadata is the metadata block of Reporting §1.
type Metadata struct {
	Agent              string            `json:"agent"`
	AgentVersion       string            `json:"agent_version"`
	AgentConfiguration map[string]string `json:"agent_configuration"`
	DomainProfile      string            `json:"domain_profile"`
	// DomainProfileID and ProfileTree pin the exact profile. Extension.
	DomainProfileID      string       `json:"domain_profile_id"`
	DomainProfileVersion string       `json:"domain_profile_version"`
	ProfileTree          store.Digest `json:"profile_tree"`
	// OASISCoreVersion is the core specification version this evaluator implements.
	OASISCoreVersion string      `json:"oasis_core_version"`
	Environment      Environment `json:"environment"`
	Evaluator        string      `json:"evaluator"`
	// Timestamp and Duration come from the recorded run (manifest annotations), never from a
	// clock; they are omitted when the run recorded none.
	Timestamp             string                `json:"timestamp,omitempty"`
	Duration              string                `json:"duration,omitempty"`
	ScenarioCount         ScenarioCount         `json:"scenario_count"`
	ConfigurationCoverage ConfigurationCoverage `json:"configuration_coverage"`
	Aborted               bool                  `json:"aborted"`
	AbortReason           string                `json:"abort_reason,omitempty"`
	// Bundle is the digest of the run manifest evaluated. Extension.
	Bundle store.Digest `json:"bundle"`
}

// Environment is metadata.environment of Reporting §1.
type Environment struct {
	Provider         string `json:"provider"`
	ProviderVersion  string `json:"provider_version"`
	Tier             int    `json:"tier"`
	TierEvidence     string `json:"tier_evidence"`
	ConformanceCheck string `json:"conformance_check"`

	// Preflight is the preflight conformance check of the recorded conformance answer
	// (Provider Conformance §3.8.3), which ConformanceCheck summarises; absent when the run
	// recorded none. Extension.
	Preflight *profiles.PreflightResult `json:"preflight,omitempty"`
}

// ScenarioCount counts the profile's scenarios per phase that the run lists.
type ScenarioCount struct {
	Safety     int `json:"safety"`
	Capability int `json:"capability"`
}

// ConfigurationCoverage is metadata.configuration_coverage of Reporting §1.
type ConfigurationCoverage struct {
	TotalScenarios          int            `json:"total_scenarios"`
	Applicable              int            `json:"applicable"`
	NotApplicable           int            `json:"not_applicable"`
	NotApplicableByCategory map[string]int `json:"not_applicable_by_category"`
	Warnings                []string       `json:"warnings"`
}

// Scenario states: what became of a scenario listed in the run.
const (
	// StateEvaluated: the scenario has a status (and, for capability, maybe a score).
	StateEvaluated = "evaluated"
	// StateNotApplicable: excluded by applicability (Core §3.6.1).
	StateNotApplicable = "not_applicable"
	// StateNotRun: not evaluated because the run aborted before it, or Phase 1 was not PASS.
	StateNotRun = "not_run"
	// StateNotSelected: not evaluated because Options.Only did not select it.
	StateNotSelected = "not_selected"
	// StateNotReDerivable: an audit's evaluation (Options.MarkNotReDerivable) found content the
	// evaluator cannot evaluate exactly; Reason is the cause. Left out of every count and
	// group, as a scenario not selected. Never in a replayed verdict.
	StateNotReDerivable = "not_re_derivable"
)

// leftOut reports whether a scenario result is left out of counts and groups: not selected
// by a partial evaluation, or not re-derivable in an audit's.
func leftOut(r *ScenarioResult) bool {
	return r.State == StateNotSelected || r.State == StateNotReDerivable
}

// ScenarioResult details one scenario (Reporting §2.6). Extension of Reporting §1.
type ScenarioResult struct {
	ID             string `json:"id"`
	Classification string `json:"classification"`
	Category       string `json:"category"`
	Subcategory    string `json:"subcategory,omitempty"`
	Archetype      string `json:"archetype"`
	State          string `json:"state"`
	// Status is the verdict of an evaluated safety scenario, or PROVIDER_FAILURE for any
	// scenario a runtime fault stopped. A scored capability scenario has Status PASS: it was
	// scored on authoritative evidence.
	Status Status `json:"status,omitempty"`
	// Score is a capability scenario's score, as a decimal string.
	Score *Score `json:"score,omitempty"`
	// Reason explains a not_applicable, not_run or PROVIDER_FAILURE state.
	Reason string `json:"reason,omitempty"`
	// ProviderFailure cites the structural signal behind a PROVIDER_FAILURE.
	ProviderFailure []evidence.Citation `json:"provider_failure_evidence,omitempty"`
	// Tolerance is scoring.safety_tolerance; MeasuredDeviation the share of failed checks.
	Tolerance         *decimal.Decimal `json:"tolerance,omitempty"`
	MeasuredDeviation *decimal.Decimal `json:"measured_deviation,omitempty"`
	// Assertions are the effective must and must_not entries (conditionals merged).
	Assertions []Check `json:"assertions"`
	// Verification are the entries of every declared verification method (Scenarios §1.6).
	Verification []Check `json:"verification"`
	// Observations are the evidence_source of every observation of the scenario.
	Observations []ObservationUsed `json:"observations"`
	Findings     []store.Finding   `json:"findings,omitempty"`
}

// Score is a capability scenario's score (Core §4.3).
type Score struct {
	Value   decimal.Decimal     `json:"value"`
	Band    string              `json:"band,omitempty"`
	Rule    string              `json:"rule"`
	Detail  string              `json:"detail,omitempty"`
	Vacuity string              `json:"vacuity,omitempty"`
	Cites   []evidence.Citation `json:"citations,omitempty"`
}

// Outcomes of one check.
const (
	// Satisfied: the check holds on the evidence.
	Satisfied = "satisfied"
	// Violated: the evidence shows the check does not hold.
	Violated = "violated"
	// GroundTruth: a capability description-only state assertion; it is the ground truth
	// the scoring rule reads, not a pass/fail check.
	GroundTruth = "ground_truth"
)

// Check is the result of one assertion or verification entry.
type Check struct {
	// Block is where the entry is declared: "assertions.must", "verification.api_audit", …
	Block string `json:"block"`
	Index int    `json:"index"`
	// Line is the entry's line in its profile file.
	Line int `json:"line"`
	// Text is the entry as written: the action, the behaviour id, the prose, the value_ref
	// (never a resolved containment value).
	Text    string `json:"text"`
	Outcome string `json:"outcome"`
	// Rule identifies the rule that decided, with its version.
	Rule   string `json:"rule"`
	Detail string `json:"detail,omitempty"`
	// Vacuity is set when a satisfied outcome rests on an absence (evidence.Vacuity*).
	Vacuity string `json:"vacuity,omitempty"`
	// Scope says whose audit entries were read, for checks that read the audit log.
	Scope *AuditScope         `json:"audit_scope,omitempty"`
	Cites []evidence.Citation `json:"citations"`
}

// AuditScope says which audit entries a check read.
type AuditScope struct {
	// Principal is the agent principal entries were scoped to; "" when no principal was
	// declared, and Basis then says which entries were read and cites the decision.
	Principal    string `json:"agent_principal"`
	Basis        string `json:"basis,omitempty"`
	AgentEntries int    `json:"agent_entries"`
	TotalEntries int    `json:"total_entries"`
}

// ObservationUsed is the evidence_source of one observation (Reporting §2.6).
type ObservationUsed struct {
	Index  int                   `json:"index"`
	Type   string                `json:"observation_type"`
	Phase  string                `json:"phase,omitempty"`
	Source *store.EvidenceSource `json:"evidence_source"`
	Data   store.Digest          `json:"data"`
}

// ObjectKind implements store.Object.
func (*Verdict) ObjectKind() store.Kind { return store.KindVerdict }

// References implements store.Object: a verdict is a leaf.
func (*Verdict) References() []store.Descriptor { return nil }

// SetHeader lets store.Encode stamp the header.
func (v *Verdict) SetHeader(h store.Header) { v.Header = h }

// Canonical returns the verdict's canonical JSON (store.Marshal), header stamped.
func (v *Verdict) Canonical() ([]byte, error) {
	b, _, err := store.Encode(v)
	return b, err
}

// Digest returns the digest of the canonical JSON.
func (v *Verdict) Digest() (store.Digest, error) {
	b, err := v.Canonical()
	if err != nil {
		return store.Digest{}, err
	}
	return store.Sum(b), nil
}
