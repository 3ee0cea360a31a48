package evaluator

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/oasis-replay/oasis-replay/evaluator/action"
	"github.com/oasis-replay/oasis-replay/evaluator/behavior"
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// Version is the evaluator's version.
const Version = "0.1.0"

// Name is the evaluator's name in receipts and verdicts.
const Name = "oasis-replay-evaluator"

// CoreVersion is the OASIS core specification version this evaluator implements, which the
// verdict reports as metadata.oasis_core_version (not the profile's dependency range).
const CoreVersion = "1.0.0-rc1.5"

// behaviorRules is what the evaluator needs of the behaviour rules. The package behavior
// implements it; tests substitute fixed rules.
type behaviorRules interface {
	Evaluate(id string, in *behavior.Input) (behavior.Outcome, error)
	Score(in *behavior.Input, outcomes []behavior.AssertionOutcome) (behavior.ScoreResult, error)
	Check(p *profiles.Profile) error
	Table() ([]byte, error)
	Version() string
}

// packageRules are the rules of package behavior.
type packageRules struct{}

func (packageRules) Evaluate(id string, in *behavior.Input) (behavior.Outcome, error) {
	return behavior.Evaluate(id, in)
}

func (packageRules) Score(in *behavior.Input, o []behavior.AssertionOutcome) (behavior.ScoreResult, error) {
	return behavior.Score(in, o)
}
func (packageRules) Check(p *profiles.Profile) error { return behavior.Check(p) }
func (packageRules) Table() ([]byte, error)          { return behavior.Table() }
func (packageRules) Version() string                 { return behavior.Version }

// vacuityReasons is the closed set of vacuity reasons a check may carry: oasisctl's
// published vocabulary (Core §3.6.3 of core 1.0.0-rc1.12 asks for one).
var vacuityReasons = []string{
	evidence.VacuityNoActions, evidence.VacuityEmptyTranscript, evidence.VacuityNoAuditLog,
	evidence.VacuityEmptyAuditLog, evidence.VacuityNoApplicableAuditEntries, evidence.VacuityNoForbiddenActions,
	evidence.VacuityNoSensitiveValues, evidence.VacuityNoGroundTruth, evidence.VacuityEmptyOutputChannel,
	evidence.VacuityUnmatchableAction, evidence.VacuityRequestBodyUnreadable, evidence.VacuityAgentPrincipalUnknown,
}

// VacuityReasons returns the closed set of vacuity reasons a check or score may carry.
func VacuityReasons() []string { return slices.Clone(vacuityReasons) }

// ruleSet is every rule table a verdict depends on, in one canonically encodable value.
type ruleSet struct {
	Evaluator       string                `json:"evaluator"`
	Version         string                `json:"version"`
	CoreVersion     string                `json:"core_version"`
	Bridge          string                `json:"action_bridge"`
	Interpretations []interpretationTable `json:"interpretations"`
	Conditions      []string              `json:"state_conditions"`
	Channels        []string              `json:"output_channels"`
	Vacuity         []string              `json:"vacuity_reasons"`
	Limits          map[string]int        `json:"limits"`
	BehaviorVersion string                `json:"behavior_version"`
	Behavior        json.RawMessage       `json:"behavior_tables"`
	// BehaviorError records a behaviour table that could not be rendered, so the digest
	// still names exactly what was used; Evaluate refuses to run then.
	BehaviorError string `json:"behavior_error,omitempty"`
}

func rulesOf(rules behaviorRules) ruleSet {
	rs := ruleSet{
		Evaluator: Name, Version: Version, CoreVersion: CoreVersion,
		Bridge:          action.BridgeTable(),
		Interpretations: interpretationTables(),
		Conditions:      []string{condExists, condUnchanged, condLabelsUnchanged, condRolledBack, condScaledToZero, condAvailable, replicasBetween.String()},
		Channels:        []string{channelResponse, channelReasoning, channelToolCalls},
		Vacuity:         vacuityReasons,
		Limits: map[string]int{"max_agent_entries": MaxAgentEntries, "max_agent_entry_bytes": MaxAgentEntryBytes,
			"max_containment_hits": maxContainmentHits, "max_foreign_cited": maxForeign},
		BehaviorVersion: rules.Version(),
	}
	tbl, err := rules.Table()
	if err == nil && !json.Valid(tbl) {
		err = errInvalidBehaviorTable
	}
	if err != nil {
		rs.BehaviorError = err.Error()
		tbl = []byte("null")
	}
	rs.Behavior = tbl
	return rs
}

var errInvalidBehaviorTable = errors.New("behavior: Table is not valid JSON")

var (
	infoOnce sync.Once
	info     store.EvaluatorInfo
)

// Info identifies this evaluator build: name, version and the digest of the canonical
// encoding of every rule table a verdict depends on (the action bridge, the interpretation
// tables, the behaviour and scoring tables, the closed vocabularies and limits), so that a
// receipt names the exact rules.
func Info() store.EvaluatorInfo {
	infoOnce.Do(func() { info = infoOf(packageRules{}) })
	return info
}

func infoOf(rules behaviorRules) store.EvaluatorInfo {
	b, err := store.Marshal(rulesOf(rules))
	if err != nil {
		// The rule set is built from constants and canonical JSON; a failure here is a
		// defect. The digest then names the failure itself, deterministically.
		b = []byte(err.Error())
	}
	return store.EvaluatorInfo{Name: Name, Version: Version, RulesDigest: store.Sum(b)}
}
