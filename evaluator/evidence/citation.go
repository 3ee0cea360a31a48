package evidence

import "github.com/oasis-replay/oasis-replay/store"

// Kinds of citation.
const (
	// KindAuditEntry cites one audit-log entry (Observation, Blob, Line or Offset, AuditID).
	KindAuditEntry = "audit_entry"
	// KindAuditLog cites a whole audit log, e.g. to support "no matching entry" (Observation, Blob).
	KindAuditLog = "audit_log"
	// KindSnapshotField cites a field of a resource in a state snapshot (Observation, Blob, Path).
	KindSnapshotField = "snapshot_field"
	// KindStateDiff cites a change in a state_diff observation (Observation, Blob, Path).
	KindStateDiff = "state_diff"
	// KindChannel cites a position in an agent output channel (Channel, Offset).
	KindChannel = "channel"
	// KindAction cites one tool call of the agent transcript (Action position).
	KindAction = "action"
	// KindPrecondition cites a precondition entry of the scenario (Path).
	KindPrecondition = "precondition"
	// KindObservation cites an observation as a whole, e.g. its evidence_source (Observation).
	KindObservation = "observation"
	// KindFinding cites a recorder finding about the evidence (Excerpt holds its code).
	KindFinding = "finding"
)

// Citation points at one piece of evidence. Only the fields that apply to Kind are set.
type Citation struct {
	Kind string `json:"kind"`
	// Observation is the index of the observation in the scenario evidence, or -1 if none.
	Observation int `json:"observation"`
	// Blob is the digest of the observation payload the citation points into.
	Blob store.Digest `json:"blob,omitzero"`
	// Line is the 1-based line of an audit entry in a line-oriented log, 0 if not applicable.
	Line int `json:"line,omitempty"`
	// Offset is a 0-based byte offset: into the blob for audit entries, into the channel text
	// for channel citations.
	Offset int64 `json:"offset,omitempty"`
	// AuditID is the Kubernetes auditID of a cited entry.
	AuditID string `json:"audit_id,omitempty"`
	// Path is a resource field path ("deployment/web-app.spec.replicas") or precondition path.
	Path string `json:"path,omitempty"`
	// Channel is an output channel id (agent_response, tool_call_parameters, reasoning_trace).
	Channel string `json:"channel,omitempty"`
	// Action is the 1-based position of a cited tool call in the transcript (0: none), like
	// Line; CiteAction sets it from a 0-based index.
	Action int `json:"action,omitempty"`
	// Excerpt is a short, bounded excerpt of the cited bytes for humans (never a secret value:
	// callers redact registered containment values before citing).
	Excerpt string `json:"excerpt,omitempty"`
}

// CiteAction cites the tool call at 0-based index i of the transcript.
func CiteAction(i int, excerpt string) Citation {
	return Citation{Kind: KindAction, Observation: -1, Action: i + 1, Excerpt: Excerpt(excerpt)}
}

// MaxExcerpt bounds Citation.Excerpt, in bytes.
const MaxExcerpt = 160

// Excerpt returns s cut to MaxExcerpt bytes on a UTF-8 boundary, with "…" when cut.
func Excerpt(s string) string {
	if len(s) <= MaxExcerpt {
		return s
	}
	cut := MaxExcerpt
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Vacuity reasons: why a PASS (or a satisfied assertion) rests on the absence of something
// rather than on positive evidence. The set is closed; OASIS has no such concept, so this is
// an extension the verdict reports next to the status, which stays PASS.
const (
	VacuityNoActions                = "no_actions"
	VacuityEmptyTranscript          = "empty_transcript"
	VacuityNoAuditLog               = "no_audit_log"
	VacuityEmptyAuditLog            = "empty_audit_log"
	VacuityNoApplicableAuditEntries = "no_applicable_audit_entries"
	VacuityNoForbiddenActions       = "no_forbidden_actions"
	VacuityNoSensitiveValues        = "no_sensitive_values"
	VacuityNoGroundTruth            = "no_ground_truth"
	VacuityEmptyOutputChannel       = "empty_output_channel"
	VacuityUnmatchableAction        = "unmatchable_action"
	VacuityRequestBodyUnreadable    = "request_body_unreadable"
	VacuityAgentPrincipalUnknown    = "agent_principal_unknown"
)
