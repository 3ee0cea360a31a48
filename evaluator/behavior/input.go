package behavior

import (
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// This file is the contract between the behaviour rules and the evaluator core, which builds
// an Input per scenario from the recorded evidence and calls Check, Evaluate, Score and Table.

// ErrUnmapped: a behaviour id or a capability scenario has no deterministic rule. It is a
// validation error, never a verdict (Core §3.5.3).
var ErrUnmapped = errclass.New(errclass.Internal, "behavior: no deterministic rule")

// Input is everything a behaviour or scoring rule may read about one scenario.
//
// The transcript is read for what the agent communicated (detection-based assertions, Core
// §3.5.2) and for which tool calls it made; it is never evidence that an effect happened
// (Core §3.4): effects are read from Audit and the state snapshots.
type Input struct {
	Profile  *profiles.Profile
	Scenario *profiles.Scenario
	// Transcript is the agent's final answer, reasoning and tool calls, as recorded.
	Transcript store.Transcript
	// Audit is the audit-log evidence of the scenario.
	Audit Audit
	// Before is the state before the agent ran: a recorded before-snapshot, or, when none was
	// recorded, the state derived from the scenario's preconditions (BeforeFromPreconditions).
	// After is the observed state after the agent ran. Either is nil when unknown.
	Before, After           *snapshot.Snapshot
	BeforeFromPreconditions bool
	// Diff is the state_diff observation, nil when none was recorded.
	Diff *snapshot.Diff
	// Observations describes the scenario's observations by index, for citations.
	Observations []store.Observation
}

// Audit is the audit-log evidence of a scenario, already scoped by the evaluator.
type Audit struct {
	// Available is true when at least one audit_log observation with evidence_source status
	// "available" was recorded (the evidence gate has rejected every other status before
	// rules run).
	Available bool
	// Principal is the agent principal the evidence declared, "" when none was declared.
	// When it is set, Entries holds only that principal's entries; when it is empty, Entries
	// holds those of every principal but the cluster's own components (auditlog.ScopeNonSystem)
	// and absence-based outcomes carry evidence.VacuityAgentPrincipalUnknown.
	Principal string
	// Entries are the entries that stand for finished requests (auditlog.Entry.Final), dry runs
	// left out, in log order across observations.
	Entries []AuditEntry
}

// AuditEntry is an audit entry with the observation it came from.
type AuditEntry struct {
	auditlog.Entry
	// Observation is the index of the audit_log observation in Input.Observations.
	Observation int
	// Blob is the digest of that observation's payload.
	Blob store.Digest
}

// Outcome is what a behaviour rule decided.
type Outcome struct {
	// Shown reports whether the behaviour was exhibited.
	Shown bool
	// Vacuous is an evidence.Vacuity* reason when the outcome rests on an absence, else "".
	Vacuous string
	// Rule identifies the rule and its version, e.g. "identify_root_cause/v1".
	Rule string
	// Detail is a one-line explanation for humans; it never contains a containment value.
	Detail string
	// Evidence cites what decided the outcome.
	Evidence []evidence.Citation
}

// AssertionOutcome is the evaluator's result for one assertion of a capability scenario, in
// the scenario's assertion order; Score reads them.
type AssertionOutcome struct {
	// Kind is "must" or "must_not".
	Kind string
	// Behavior is the behaviour id, "" for action assertions.
	Behavior string
	// Action is the action string, "" for behaviour assertions.
	Action string
	// Satisfied: for must, the behaviour was shown or the action confirmed; for must_not, it
	// was not shown / not found.
	Satisfied bool
	Rule      string
}

// ScoreResult is a capability scenario's score.
type ScoreResult struct {
	// Score is in [0, 1].
	Score decimal.Decimal
	// Band is the rubric band chosen (a key of the scenario's scoring.rubric).
	Band     string
	Rule     string
	Detail   string
	Vacuous  string
	Evidence []evidence.Citation
}

// The functions of the contract (implemented in the other files of this package):
//
//	// Evaluate decides whether behaviour id (following registry equivalences) was shown.
//	func Evaluate(id string, in *Input) (Outcome, error) // ErrUnmapped for an unknown id
//	// Score computes a capability scenario's score from its rubric and assertion outcomes.
//	func Score(in *Input, outcomes []AssertionOutcome) (ScoreResult, error)
//	// Check reports every behaviour used by p, and every capability scenario of p, that has
//	// no rule: errors.Join of errors wrapping ErrUnmapped, nil when complete.
//	func Check(p *profiles.Profile) error
//	// Table is the canonical JSON of every rule table, folded into the evaluator's rules digest.
//	func Table() ([]byte, error)
//	// Version names the rule set, e.g. "behavior-rules/1".
//	const Version = "..."
