// Package recorder turns the evidence of an OASIS evaluation into a sealed bundle: raw payloads
// as blobs, kept byte-exact; one store.ScenarioEvidence object per scenario; a store.RunManifest
// pinning the profile; sealed with store.Seal (blobs, then objects, then the manifest, then
// the ref, durable before the digest is reported).
//
// # Sources
//
//   - RecordOasisctl: an output directory of the reference runner, oasisctl (RecordOasisctlFS
//     reads the same layout from any fs.FS, such as the embedded example run of the demo).
//   - NewProxy: a live run, recorded on the wire between the runner, its provider and its agent.
//   - RecordFiles: one scenario from loose files (audit log, state snapshots, transcript).
//   - NewWebhook: a Kubernetes audit webhook sink for one scenario.
//   - RecoverJournal: what a live recorder (proxy, webhook) journaled and did not seal.
//
// Every source pins the run to a Profile (ProfileFromDir or ProfileFromFS, imported into the store when the
// recording is written, or ProfileFromStore), takes the same Options, and returns the sealed
// bundle's digest and manifest. The live sources (proxy, webhook) need no store while they
// record: they journal to disk, and take the store only to seal (see Live recording).
//
// # Determinism
//
// Recording the same input twice gives the same bundle digest. Nothing from the recorder's clock,
// randomness, map iteration or goroutine scheduling reaches a blob, an object or the manifest.
// Facts about time come from the input only: an oasisctl report's date becomes the
// store.AnnotationTimestamp annotation; the files, proxy and webhook sources take it from an
// option or leave it out. The live sources read a clock only to decide when to stop and whom
// to cut (the idle timeout, the slow-client timeouts, the grace period); their journals hold
// no clock reading. Orders are taken from the input (the report's order of scenarios, the order of
// files in a directory) or from content (see the proxy below), and findings are sorted by
// scenario, file, line, field, code and message.
//
// # Failure: findings and errors
//
// What the input says about itself is kept, not dropped and not fatal: a Finding (code,
// severity, scenario, file, line, field, message) for a listed scenario without evidence (with
// the source's own explanation, e.g. oasisctl's provision error), an unreadable file, a field
// this recorder does not interpret, an artifact of a scenario the profile lacks, a scenario
// listed twice, a YAML rendering that disagrees with the JSON report, a failed upstream call.
// The codes are the Code* constants. A scenario without evidence is in the manifest with a nil
// Evidence, and the evaluator gives it PROVIDER_FAILURE citing the findings.
//
// Input that cannot be recorded at all (malformed or truncated JSON, a file of the wrong kind, a
// malformed audit log) is an *InputError naming file, line and field, wrapping ErrInput. Such
// input leaves the store as it was: every source reads and checks its whole input before it
// writes anything (validate before writing). Large files are read twice, streaming both times:
// once to check them (and compute the digest of what will be stored), once to store them; the
// second pass must give the same digest, or the recording fails with ErrChanged (what it wrote
// is then unreferenced, and store gc removes it). A file whose checked bytes are already in
// the store is not written again.
//
// # oasisctl output
//
// The files are read by package formats/oasisctl: the report by the reader the auditor uses
// (oasisctl.ReadReport), so a report is parsed one way wherever it is read, and whatever it
// says the recorder cannot read (a field of the wrong type anywhere in it) is an InputError at
// its line and column. The report is verdict.json (oasisctl --format json) and/or verdict.yaml
// (the same report converted). With both, the JSON report is the manifest's Claimed report and the YAML one a
// Source, compared member by member (numbers by value, member order ignored); each
// difference is a report-disagreement finding naming the YAML line and field. The report's
// metadata gives the agent's identity, the run date (timestamp annotation), the core spec
// version as written ("≥ 1.0.0-rc1.5"), the provider (its URL; the run configuration names
// it), the claimed tier and its evidence; agent_configuration gives the effective
// configuration, each value as its literal text ("api", "true"). Scenarios are taken in the
// order of scenario_details; each points at its artifact by evidence_path (evidence_artifact
// in later reports) or, without one, evidence/evidence-<id>.json, path separators in the id
// replaced by "_". A run configuration (run-config.yaml or .yml in the directory, or given) is
// kept as a source, its agent token redacted everywhere.
//
// An artifact (OASIS Reporting §1.2 of core 1.0.0-rc1.11, oasisctl's EvidenceArtifact) is kept
// whole, byte-exact, as ScenarioEvidence.Artifact (application/json). Its transcript becomes
// the evidence's Transcript: final_answer, reasoning_trace, actions with their id, tool,
// arguments (the compacted JSON text of the arguments member), full result and error; the
// error_code and duration_ms of each action, vacuous_assertions and declared_conclusion go to
// NonScoring, which the evaluator never reads. Each observation keeps environment_id,
// timestamp (as written), evidence_source (absent stays absent) and, for audit logs, the
// payload's agent_principal as Observation.AgentPrincipal. Its payload blob is the compacted
// JSON text of the observation's data member: json.Compact removes the indentation oasisctl
// writes and nothing else (no value is decoded and re-encoded), so it is the data exactly as a
// provider would have sent it on one line. Payload media types follow the observation type
// (store.MediaTypeAuditLog, MediaTypeResourceState, MediaTypeStateDiff,
// MediaTypeResponseContent; unknown types are application/json with a finding). Artifacts of
// scenarios the report does not list are kept as sources, with a finding.
//
// # Loose files
//
// A Kubernetes audit log is audit.k8s.io Event objects one per line (the apiserver's log
// backend, store.MediaTypeK8sAuditEvents) or one EventList (its webhook backend,
// MediaTypeK8sAuditEventList); auditlog.DetectFormat tells them apart by the top-level kind of the
// first document. It is checked entry by entry with the evaluator's own reader
// (formats/auditlog), streamed in memory bounded by the largest entry (16 MiB), so a 1 GiB
// log is recorded within a few hundred MiB and everything recorded is readable by the
// evaluator. A state snapshot is `kubectl get -o json` output (a List or one object,
// MediaTypeK8sObjects), checked with the snapshot reader the evaluator uses (formats/snapshot), or a directory of them such
// as a sonobuoy results dump: every JSON file is one resource_state observation, with the
// kind attribute taken from its file name (Pods.json → Pod) for bare arrays of objects; JSON
// files that hold no objects are kept as sources, other files are skipped, each with a
// finding. Snapshots taken before the run have Phase "before", after it "after". The
// transcript is the agent adapter's response (final_answer, reasoning, actions[{tool,
// arguments, result}], model), also accepted with an artifact's names (reasoning_trace,
// observed_model), kept byte-exact as the evidence's Artifact. Files are named in the bundle by
// their base name, and a directory's files by <directory name>/<path inside it>, so where they
// were stored never reaches a digest. Evidence sources: k8s_audit_log_file, kubectl_get,
// cluster_dump, all "available".
//
// # Audit webhook
//
// The webhook sink accepts POSTs of application/json EventLists (413 beyond the size limit,
// 415 for other content types, 400 for a body that is not an EventList, naming line and field,
// 408 for a body that does not arrive in time; 503 once the window is closed). A body is
// journaled as it is read and checked, after the hooks, with the evaluator's audit-log reader
// (streaming, one event in memory at a time); it is answered 200 once it is journaled
// complete and synced. Each accepted body is stored byte-exact as one audit_log observation
// (evidence source k8s_audit_webhook) in arrival order: the order in which the bodies were
// accepted (their completion records in the journal) is the recorded order, whatever the
// events' own timestamps say. The window closes on SIGINT, SIGTERM or the idle timeout; a
// window without any POST gets an empty-window finding.
//
// # Proxy
//
// The proxy listens twice: the runner's provider calls (GET /v1/conformance, POST
// /v1/provision, /v1/inject-state, /v1/state-snapshot, /v1/observe, /v1/teardown, and any other
// path) are forwarded to the provider; its agent calls (GET /identity-and-configuration, POST
// tasks) to the agent adapter, "/" meaning the agent URL itself. Method, path, query, headers
// (less hop-by-hop ones, and less Accept-Encoding, so bodies come back readable) and body are
// forwarded; status, headers and body come back unchanged. The request body is journaled
// whole before it is forwarded (a body beyond the recording limit is refused with 413); the
// response streams back to the runner as it is journaled, up to the recording limit (beyond
// it, the body is forwarded whole but recorded truncated and not read). The exchange is
// journaled complete before the last piece of the response reaches the runner, so every call
// the runner makes after an answer finds that answer in the journal before it. An upstream that
// cannot be reached gives the runner 502.
//
// Every exchange is a blob (store.MediaTypeHTTPExchange, whose format package
// formats/httpexchange defines and reads) and a manifest
// source named exchanges/<scenario id or "run">/<n>-<step>.json. The blob holds the call and
// its answer only: no sequence number, no clock reading, no duration; n numbers the
// exchanges of a group in the order below, not the order they ran. Answers are read when the
// bundle is sealed, each within the read limit (ProxyOptions.MaxRead, DefaultMaxRead): a
// larger answer stays whole in its exchange and is not read (an unread-body finding). What is
// read from them:
// the last successful conformance answer (the manifest's Conformance, byte-exact, and the
// provider's name and version), the last successful identity answer (agent identity and
// configuration), and per scenario the environment of its last successful provision, the
// transcript of its last successful agent task, and every observation of that environment:
// each /observe answer (payload: the compacted data member, evidence_source as sent) and each
// /state-snapshot answer (payload: the whole answer, compacted; evidence source
// provider_state_snapshot, status available; Phase before or after the agent task). A failed
// call (connection refused, timeout, reset, a non-2xx status, an error status in the body)
// is a finding with the exchange, and yields no observation: the evaluator then finds the
// evidence it needs missing for that scenario. A scenario without a successful provision or
// without a transcript has no evidence.
//
// Calls are attributed to scenarios this way: a provision by its scenario_id; a call naming an
// environment_id by the provision that created it; an agent task, which names no scenario
// (its body is prompt, tools, mode and scope), as it arrives: the provisioned scenarios whose
// first operator_prompt stimulus (Scenarios §1.4) is the task's prompt (or, failing that, is
// contained in it); if several, those with an environment open (provisioned, not torn down);
// if none matches the prompt, the scenarios with an environment open. Exactly one candidate is
// the task's scenario; otherwise the task is recorded as an exchange of the run with an
// ambiguous-correlation finding, and the scenarios concerned get no transcript. A runner that
// runs one scenario at a time is always attributed; parallel scenarios are told apart by their
// prompts. The manifest lists scenarios in the profile's suite order (safety first, Core §2),
// not in the order they ran; observations are ordered by phase, type, timestamp and payload
// digest; exchanges by scenario, step, target and blob digest. None of these orders depends on
// the timing of concurrent calls. Exchanges record no clock reading, no Date or Host header,
// and failures by kind ("connection refused"), never by address.
//
// The order in which the calls were made is evidence of its own: the Execution rules are
// rules of order (preflight first, identity once before the first scenario, provision → task
// → observe → teardown, nothing after an abort). It is the manifest's WireLog
// (store.WireLog): every sealed exchange in the order its request arrived, numbered from 1
// (Seq), with the positions of its arrival and completion among all of them (Start, End: one
// call happened before another exactly when its End is less than the other's Start), its
// side, step, method and target, its scenario and environment, its HTTP status, what its
// answer said of itself (a provision's, teardown's or inject's status member, an
// observation's evidence_source.status) and its exchange. It is taken from the journal,
// whose records are in the order the proxy saw them, and holds no clock reading. So the same
// calls made in the same order give the same bundle; a run recorded with parallel scenarios
// and the same run recorded one scenario at a time differ in their wire logs alone.
//
// # Live recording
//
// The proxy and the webhook never hold a store while they record: every exchange goes, as it
// arrives, into a journal (package journal: append-only, each record framed with its length,
// CRC-32C and type) in LiveOptions.Journals/<id>/. The command line puts journals in the
// store's own directory, <store>/journals/<id>/ (the store ignores that directory), so
// `record recover --store S` finds them; the store is opened only to seal. The journal's
// records (capture.go):
//
//	H  header, JSON: source, program version, tags, profile pin, redaction pin, the source's
//	   settings (proxy: recording and read limits, tier, timestamp; webhook: scenario, agent,
//	   tier, timestamp); the first record
//	F  one file of the pinned profile (path, bytes): a journal seals without the profile's
//	   directory or store
//	B  exchange n begins: side, method, target, headers as received
//	D  a piece of exchange n's request ('q') or response ('s') body, up to 64 KiB
//	A  exchange n's request is whole (its size; truncated beyond the recording limit)
//	R  exchange n's answer: status and headers
//	E  exchange n is complete (failure, response size, truncated); synced before the
//	   exchange is acknowledged (the runner's last bytes, the webhook's 200)
//	X  exchange n was cut (the reason); N  the webhook refused POST n (400, 413)
//
// n numbers the exchanges of one journal and never reaches a bundle. The journal holds what
// was received before redaction: it is created 0700/0600, and removed once sealed.
//
// Sealing is a function of the journal alone: the complete exchanges (those with an E record)
// are replayed in journal order (A is a call's arrival, E its completion: exactly the order in
// which the proxy forwarded them and the runner got the answers), the credentials they carry
// are learned, and only then is anything stored, every body streamed from the journal through
// the redaction and the hooks. So the proxy sealing its own journal and RecoverJournal sealing
// a copy of it give the same bundle; exchanges that are not complete (the recorder was killed
// or stopped while they ran) are left out and listed as Incomplete; a torn record at the end
// (a write the recorder did not finish) is cut. The redaction values and key are never
// journaled: sealing needs the same Redactor, checked against the header's redaction pin (the
// key's id, the number of values, a keyed fingerprint of them), or fails with
// ErrRedactionMismatch.
//
// Limits: at most LiveOptions.MaxExchanges exchanges are served at once (DefaultMaxExchanges
// for the proxy, DefaultWebhookExchanges for the webhook; more wait for a slot, and
// connections are capped at four per slot); a client gets HeaderTimeout for its headers,
// may pause a body (or its reading of a response) for at most BodyIdleTimeout, and must have
// sent its whole request body within RequestTimeout, or the exchange is cut. A recording stops
// on its context (SIGINT, SIGTERM), after Idle without a request, or when its journal fails
// (disk full): it refuses new calls (503), lets those in flight finish for Grace, cuts the
// rest (their connections' deadlines pass, their upstream calls are cancelled), and is ready
// to Seal. Memory is bounded whatever the body sizes: a body passes through 64 KiB buffers,
// and sealing holds one answer within the read limit at a time.
//
// # Hooks and redaction
//
// Every byte stream (payloads, reports, artifacts, transcripts, exchanges, sources) and every
// string of the evidence objects and the manifest (transcripts, arguments, results,
// findings, annotations, agent identity) passes through the Options.Redactor and then each
// Hook before it is persisted. Hook is the extension point (go-vcr's BeforeSaveHook); a hook
// must be deterministic. Redaction (package redact) replaces each value, in every common
// encoding (plain, hex, base64 alone or inside longer base64, through JSON and percent
// escapes), by a marker: with a key, "[REDACTED:hmac-sha256:<16 hex>]", the same for the same
// value and key, so that a leak stays detectable without the secret being stored; without a
// key, "[REDACTED]". The command line requires a key to redact values it is given, and the
// bundle's "redaction" annotation names the key (by its keyed id) and the number of values.
// Stored bytes are byte-exact except for these markers. Streams are redacted while they are
// read, values split between two reads included.
//
// The manifest's redaction record (store.RedactionRecord) says what was replaced, per value:
// its marker, occurrences per encoding, and the blobs and objects that hold the marker, plus
// whether the manifest's own strings held it. Every use of the hooks whose output becomes one
// blob or object counts into a redact.Tally of its own, noted under that output's digest once
// it is known (a file checked in one pass and stored in another is counted once, by digest);
// at the seal the tallies are summed per marker. Every value redacted has an entry, found or
// not; without a key all values share the one marker and so one entry.
//
// The recorder adds to the redacted values the credentials it finds in the input: an oasisctl
// run configuration's agent token, the secrets of the agent_credentials a provider returns
// from provision, the token of Authorization-like headers and a Basic password (the header
// values are replaced by markers in recorded exchanges in any case). These get a keyed marker
// when a key is given, "[REDACTED]" otherwise. A live recording learns them from its whole
// journal before it stores anything, so a credential is redacted from every exchange, also
// those recorded before it appeared. Since a learned value is redacted everywhere, only what
// carries a secret is learned, never an identifier (credentials.go; the SI provider guide §4.1
// leaves agent_credentials open: "kubeconfig content, bearer token, etc."): tokens,
// passwords, client keys and certificates, and the credential parts of kubeconfig content
// (users[].user token, password, client-key-data, client-certificate-data, auth-provider
// config, exec args and env values), whether the kubeconfig is YAML or JSON text, its base64
// or an object; a bare string that is not kubeconfig is a token. Namespaces, principals, user
// names, server URLs, context and cluster names and type are kept: redacted everywhere they
// would hide from the evaluator the very resources and audit entries a verdict is about.
//
// # Redaction never changes a verdict
//
// When something was redacted and Options.Verdicts is set (the command line always sets it),
// the seal checks that the verdict of the bundle as redacted is the verdict of the same
// evidence unredacted (verdictcheck.go). The source's writing phase runs a second time into a
// twin recording without redaction whose store is an overlay on the real one (overlay.go): it
// holds in memory only what redaction changed (at most 8 MiB), hashes exchanges without
// holding them, and persists nothing. Both manifests are evaluated by Verdicts, which says
// what each decides without a digest or a string of the evidence; every scenario whose
// outcome differs, and the run, gets a redaction-changes-verdict error finding naming the
// markers and what changed. The bundle is sealed all the same. The recorder never imports the
// evaluator: package replay/outcome implements Verdicts.
//
// A redacted value that overlaps a literal a recorded scenario registers for value containment
// (Core §3.5.5: the value at the value_ref's path in the precondition state, or its base64
// decoding) would hide a leak of that literal from the evaluator: each such case is a
// redaction-hides-containment warning naming the scenario and the value_containment entry.
package recorder
