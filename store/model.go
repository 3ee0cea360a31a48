package store

// This file holds the evidence object model of DESIGN §3. Every structured object begins with a
// Header (kind and schema version, checked on load) and is written by Marshal, so its digest is
// the digest of its canonical JSON. Raw evidence lives in blobs, referenced by Descriptor, and is
// never parsed and re-encoded before hashing.

// Kind names the type of a structured object. It is stored in the object itself.
type Kind string

// The kinds of structured object.
const (
	KindScenarioEvidence Kind = "scenario-evidence"
	KindRunManifest      Kind = "run-manifest"
	KindProfileTree      Kind = "profile-tree"
	KindVerdict          Kind = "verdict"
	KindReceipt          Kind = "receipt"
	KindWireLog          Kind = "wire-log"
)

// SchemaVersion is the version of every kind this build writes and reads. A kind gets its own
// constant the first time its schema changes.
const SchemaVersion = 1

// Header opens every structured object.
type Header struct {
	Kind          Kind `json:"kind"`
	SchemaVersion int  `json:"schema_version"`
}

// SetHeader lets Encode stamp the header of any object type that embeds Header.
func (h *Header) SetHeader(n Header) { *h = n }

// Media types of blobs and objects. Object media types double as OCI descriptor media types in
// exported archives; blob media types tell the evaluator how to read observation data.
const (
	MediaTypeScenarioEvidence = "application/vnd.oasis-replay.scenario-evidence.v1+json"
	MediaTypeRunManifest      = "application/vnd.oasis-replay.run-manifest.v1+json"
	MediaTypeProfileTree      = "application/vnd.oasis-replay.profile-tree.v1+json"
	MediaTypeVerdict          = "application/vnd.oasis-replay.verdict.v1+json"
	MediaTypeReceipt          = "application/vnd.oasis-replay.receipt.v1+json"
	MediaTypeWireLog          = "application/vnd.oasis-replay.wire-log.v1+json"

	// MediaTypeOctetStream is an opaque blob (a profile file, an unparsed upload).
	MediaTypeOctetStream = "application/octet-stream"
	// MediaTypeJSON is a JSON document with no more specific type.
	MediaTypeJSON = "application/json"
	// MediaTypeYAML is a YAML document (a claimed report written as YAML).
	MediaTypeYAML = "application/yaml"

	// MediaTypeAuditLog is the OASIS audit_log observation payload as providers send it
	// (SI provider guide §4.5): {"agent_principal"?, "entries": [...], "window"?}.
	MediaTypeAuditLog = "application/vnd.oasis.observation.audit-log+json"
	// MediaTypeResourceState is the OASIS resource_state observation payload.
	MediaTypeResourceState = "application/vnd.oasis.observation.resource-state+json"
	// MediaTypeStateDiff is the OASIS state_diff observation payload: {before, after, changes[]}.
	MediaTypeStateDiff = "application/vnd.oasis.observation.state-diff+json"
	// MediaTypeResponseContent is the OASIS response_content observation payload.
	MediaTypeResponseContent = "application/vnd.oasis.observation.response-content+json"

	// MediaTypeK8sAuditEvents is a Kubernetes audit log file: audit.k8s.io/v1 Event objects, one
	// JSON document per line, as the apiserver's log backend writes it.
	MediaTypeK8sAuditEvents = "application/vnd.kubernetes.audit-events.v1+jsonl"
	// MediaTypeK8sAuditEventList is an audit.k8s.io/v1 EventList, as the webhook backend posts it.
	MediaTypeK8sAuditEventList = "application/vnd.kubernetes.audit-eventlist.v1+json"
	// MediaTypeK8sObjects is `kubectl get -o json` output: a List or a single object.
	MediaTypeK8sObjects = "application/vnd.kubernetes.objects+json"

	// MediaTypeConformance is a provider's GET /v1/conformance response body
	// (Provider Conformance §3.8.2).
	MediaTypeConformance = "application/vnd.oasis.conformance-response+json"
	// MediaTypeOasisctlReport is the report oasisctl writes (--format json).
	MediaTypeOasisctlReport = "application/vnd.oasisctl.report+json"
	// MediaTypeOasisctlReportYAML is the same report converted to YAML.
	MediaTypeOasisctlReportYAML = "application/vnd.oasisctl.report+yaml"
	// MediaTypeOasisVerdict is a verdict object in the shape of OASIS Reporting §1.
	MediaTypeOasisVerdict = "application/vnd.oasis.verdict+json"
	// MediaTypeHTTPExchange is one recorded HTTP request and response (record proxy).
	MediaTypeHTTPExchange = "application/vnd.oasis-replay.http-exchange.v1+json"
)

// Descriptor points at a blob or object: what it is, its digest and its exact size in bytes.
type Descriptor struct {
	MediaType string `json:"media_type"`
	Digest    Digest `json:"digest"`
	Size      int64  `json:"size"`
}

// EvidenceSource says where an observation came from and whether it is authoritative
// (OASIS Reporting §1.1). Status "available" is the only status that counts as evidence;
// "unreachable", and the reserved "partial" and "empty_window", are provider faults.
type EvidenceSource struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// Evidence source statuses named by OASIS Reporting §1.1.
const (
	StatusAvailable   = "available"
	StatusUnreachable = "unreachable"
	StatusPartial     = "partial"
	StatusEmptyWindow = "empty_window"
)

// Observation types named by OASIS Reporting §1.1.
const (
	ObservationAuditLog        = "audit_log"
	ObservationResourceState   = "resource_state"
	ObservationStateDiff       = "state_diff"
	ObservationResponseContent = "response_content"
)

// ObservationMediaType is the media type of the payload of an observation of the given type,
// and whether OASIS defines that type (Reporting §1.1). Payloads of other types are plain JSON.
func ObservationMediaType(observationType string) (string, bool) {
	switch observationType {
	case ObservationAuditLog:
		return MediaTypeAuditLog, true
	case ObservationResourceState:
		return MediaTypeResourceState, true
	case ObservationStateDiff:
		return MediaTypeStateDiff, true
	case ObservationResponseContent:
		return MediaTypeResponseContent, true
	}
	return MediaTypeJSON, false
}

// Snapshot phases: when a resource_state observation was taken relative to the agent's run.
const (
	PhaseBefore = "before"
	PhaseAfter  = "after"
)

// Observation is one independent observation of the system under test. Its payload is a blob,
// kept byte-exact; Data.MediaType tells how to read it.
type Observation struct {
	Type          string `json:"observation_type"`
	EnvironmentID string `json:"environment_id,omitempty"`
	Timestamp     string `json:"timestamp,omitempty"`
	// Source is nil when the observation carried no evidence_source block at all, which the
	// evaluator treats like any status other than "available".
	Source *EvidenceSource `json:"evidence_source,omitempty"`
	// Phase is PhaseBefore or PhaseAfter for state snapshots, empty otherwise.
	Phase string `json:"phase,omitempty"`
	// AgentPrincipal is the audit-log user the harness minted for the agent, when known; the
	// evaluator then reads only that principal's audit entries.
	AgentPrincipal string `json:"agent_principal,omitempty"`
	// Attributes are facts about the payload that it does not carry itself, such as the
	// Kubernetes kind of a bare array of objects ("kind") or the file it was read from
	// ("source"). Keys are lowercase; the evaluator reads only documented keys.
	Attributes map[string]string `json:"attributes,omitempty"`
	Data       Descriptor        `json:"data"`
}

// Observation attribute keys.
const (
	// AttrKind is the Kubernetes kind of objects in a payload that does not name it.
	AttrKind = "kind"
	// AttrSource is the path (relative to what the recorder was given) the payload came from.
	AttrSource = "source"
)

// Action is one tool call of the agent, with its full, untruncated result.
type Action struct {
	ID   string `json:"id,omitempty"`
	Tool string `json:"tool"`
	// Arguments is the JSON text of the call's arguments exactly as captured ("" if none).
	Arguments string `json:"arguments,omitempty"`
	Result    string `json:"result"`
	Error     string `json:"error,omitempty"`
}

// Transcript is what the agent said and did in one scenario.
type Transcript struct {
	FinalAnswer string   `json:"final_answer"`
	Reasoning   string   `json:"reasoning"`
	Actions     []Action `json:"actions"`
}

// Finding is something the recorder noticed about its input and kept rather than dropping: a
// listed scenario without evidence, an unreadable file, an unknown field. Findings are evidence
// about the evidence; the evaluator reads the ones it must (missing evidence) and reports all.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"` // "error", "warning" or "info"
	Scenario string `json:"scenario,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
}

// Finding severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// ScenarioEvidence is everything recorded for one scenario of a run.
type ScenarioEvidence struct {
	Header
	ScenarioID   string        `json:"scenario_id"`
	Transcript   Transcript    `json:"transcript"`
	Observations []Observation `json:"observations"`
	// ObservedModel is the model the agent actually used, when the source reported it.
	ObservedModel string    `json:"observed_model,omitempty"`
	SessionID     string    `json:"session_id,omitempty"`
	Findings      []Finding `json:"findings,omitempty"`
	// NonScoring holds timings, step and token counts (OASIS Reporting §1.2 non_scoring_metadata).
	// The evaluator never reads it.
	NonScoring map[string]string `json:"non_scoring,omitempty"`
	// Artifact is the source file this evidence was extracted from, byte-exact, when the
	// recorder read one (an oasisctl evidence-<id>.json): provenance for auditors.
	Artifact *Descriptor `json:"artifact,omitempty"`
}

// RecorderInfo identifies the program and source that made a bundle.
type RecorderInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Source is how the evidence was captured: "oasisctl", "proxy", "files", "webhook", "api".
	Source string `json:"source"`
}

// ProfileRef pins the exact profile a run was evaluated against.
type ProfileRef struct {
	ID           string `json:"id"`
	Version      string `json:"version"`
	SourceCommit string `json:"source_commit,omitempty"`
	// Tree is the digest of the ProfileTree object; a bundle carries that tree along.
	Tree Digest `json:"tree"`
}

// AgentIdentity is what the agent adapter reported about itself.
type AgentIdentity struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
}

// ProviderInfo identifies the environment provider of a run.
type ProviderInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	URL     string `json:"url,omitempty"`
}

// ScenarioRef is one scenario of a run, in run order. Evidence is nil when the run listed the
// scenario but no evidence for it was recorded; the evaluator then gives PROVIDER_FAILURE.
type ScenarioRef struct {
	ScenarioID string      `json:"scenario_id"`
	Evidence   *Descriptor `json:"evidence,omitempty"`
}

// RunManifest describes one recorded run. Its digest is the bundle id. Nothing from the
// recorder's clock or environment goes into it, so recording the same evidence twice gives the
// same bundle id.
type RunManifest struct {
	Header
	Recorder        RecorderInfo  `json:"recorder"`
	Profile         ProfileRef    `json:"profile"`
	CoreSpecVersion string        `json:"core_spec_version"`
	Agent           AgentIdentity `json:"agent"`
	// AgentConfiguration is the effective configuration, dimension → value. Booleans and
	// integers are kept as their JSON literal text ("true", "3").
	AgentConfiguration map[string]string `json:"agent_configuration,omitempty"`
	Provider           *ProviderInfo     `json:"provider,omitempty"`
	// Conformance is the provider's conformance response, byte-exact.
	Conformance *Descriptor   `json:"conformance,omitempty"`
	Tier        int           `json:"tier"`
	Scenarios   []ScenarioRef `json:"scenarios"`
	// Claimed is the verdict or report the evaluation provider published, byte-exact, if any.
	Claimed *Descriptor `json:"claimed,omitempty"`
	// Sources are other recorded inputs kept for provenance (a run configuration, an HTTP
	// exchange log), in the order the recorder read them.
	Sources     []SourceFile      `json:"sources,omitempty"`
	Findings    []Finding         `json:"findings,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// Redaction says what the recorder replaced, per value (never the value). Absent when
	// nothing was to be redacted, so bundles recorded without redaction keep their digests.
	Redaction *RedactionRecord `json:"redaction,omitempty"`
	// WireLog is the WireLog object of a recording made on the wire (record proxy): the order
	// in which the runner made its calls. Absent for every other source.
	WireLog *Descriptor `json:"wire_log,omitempty"`
}

// NonScoringAgentFailure is the ScenarioEvidence.NonScoring key of an agent failure report
// (OASIS Execution §1.2 in the text after core 1.0.0-rc1.12's 3b274ea), its compact JSON. The
// evaluator reads it only to refuse evidence its edition cannot evaluate as meant.
const NonScoringAgentFailure = "agent_failure"

// SourceFile is an input file the recorder kept byte-exact.
type SourceFile struct {
	Path string     `json:"path"` // as given to the recorder, relative where possible
	Blob Descriptor `json:"blob"`
}

// Run-manifest annotation keys with a meaning. They record facts about the run taken from the
// recorded input (a report's date, a run's duration), never a clock reading of the recorder;
// the evaluator copies them into the verdict metadata (Reporting §1).
const (
	// AnnotationTimestamp is when the recorded run was evaluated, RFC 3339.
	AnnotationTimestamp = "timestamp"
	// AnnotationDuration is how long the recorded run took, as the source wrote it.
	AnnotationDuration = "duration"
	// AnnotationTierEvidence summarises the evidence that the environment meets its tier.
	AnnotationTierEvidence = "tier_evidence"
)

// TreeEntry is one file of a profile directory.
type TreeEntry struct {
	Path string     `json:"path"` // slash-separated, relative to the profile root
	Blob Descriptor `json:"blob"`
}

// ProfileTree is a whole profile directory: every file as a blob, sorted by path, plus the
// metadata that identifies the profile.
type ProfileTree struct {
	Header
	ProfileID      string      `json:"profile_id"`
	Version        string      `json:"version"`
	CoreDependency string      `json:"core_dependency,omitempty"`
	SourceCommit   string      `json:"source_commit,omitempty"`
	Entries        []TreeEntry `json:"entries"`
}

// EvaluatorInfo identifies an evaluator build: its version and the digest of its rule tables
// (action bridge, interpretation tables, scoring tables), so a receipt names the exact rules.
type EvaluatorInfo struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	RulesDigest Digest `json:"rules_digest"`
}

// Receipt is the compact, signable statement "this evidence gives this verdict under this
// evaluator": four digests and an evaluator identity. Profile is the profile tree the bundle
// pins (Manifest.Definition), whatever the kind of evaluation.
type Receipt struct {
	Header
	Bundle Digest `json:"bundle"`
	// BundleKind is the kind of the bundle's manifest when it is not an OASIS run manifest
	// (empty for KindRunManifest, so receipts of OASIS runs keep their bytes).
	BundleKind Kind          `json:"bundle_kind,omitempty"`
	Profile    Digest        `json:"profile"`
	Evaluator  EvaluatorInfo `json:"evaluator"`
	Verdict    Digest        `json:"verdict"`
}

// BundleManifestKind is the kind of the manifest the receipt's bundle digest names.
func (r *Receipt) BundleManifestKind() Kind {
	if r.BundleKind == "" {
		return KindRunManifest
	}
	return r.BundleKind
}

// Steps of the OASIS wire protocol a recorded call is classified as (the runner's provider
// calls, SI provider guide §4; its agent adapter calls, Execution §1).
const (
	StepConformance = "conformance"
	StepProvision   = "provision"
	StepInject      = "inject-state"
	StepSnapshot    = "state-snapshot"
	StepObserve     = "observe"
	StepTeardown    = "teardown"
	StepIdentity    = "identity"
	StepTask        = "task"
	StepOther       = "other"
)

// Sides of a recorded call: to the environment provider or to the agent adapter.
const (
	SideProvider = "provider"
	SideAgent    = "agent"
)

// WireLog is the order of a recording made on the wire: every complete call, in the order its
// request arrived. The exchanges themselves are blobs (MediaTypeHTTPExchange) the manifest
// also lists as sources; the wire log says when each began and ended relative to the others,
// which the exchanges alone, named by content, do not. The Execution rules are rules of
// order (preflight first, identity once before the first scenario, provision → task →
// observe → teardown, nothing after an abort), so the order is evidence.
type WireLog struct {
	Header
	Calls []WireCall `json:"calls"`
}

// WireCall is one call of a WireLog. Start and End number the arrivals and completions of all
// the calls in one sequence (1, 2, …), so one call happened before another exactly when its
// End is less than the other's Start; calls that overlap ran concurrently.
type WireCall struct {
	// Seq numbers the calls from 1 in the order their requests arrived.
	Seq   int `json:"seq"`
	Start int `json:"start"`
	End   int `json:"end"`
	// Side is SideProvider or SideAgent; Step the protocol step (Step*).
	Side   string `json:"side"`
	Step   string `json:"step"`
	Method string `json:"method"`
	// Target is the request's path and query, as recorded in the exchange.
	Target string `json:"target"`
	// Scenario is the scenario the call is attributed to, "" for calls of the run.
	Scenario string `json:"scenario,omitempty"`
	// EnvironmentID is the environment the call concerns: the one a provision created, or the
	// one the request names.
	EnvironmentID string `json:"environment_id,omitempty"`
	// ObservationType is the observation an /observe call asked for.
	ObservationType string `json:"observation_type,omitempty"`
	// Status is the HTTP status of the answer, 0 when there was none.
	Status int `json:"status,omitempty"`
	// Outcome is what the answer says of itself: the status member of a provision, teardown
	// or inject-state answer ("ready", "error", "destroyed", "applied"), the
	// evidence_source.status of an observation ("available", "unreachable", …), "" otherwise.
	Outcome string `json:"outcome,omitempty"`
	// Failure says why the call got no whole answer (a refused connection, a cut body).
	Failure string `json:"failure,omitempty"`
	// Exchange is the recorded exchange, Source its path among the manifest's sources.
	Exchange Descriptor `json:"exchange"`
	Source   string     `json:"source"`
}
