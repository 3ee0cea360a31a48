// Package auditlog reads Kubernetes audit logs, in the three forms an OASIS run records them,
// as one stream of normalized entries. It is pure: it reads an io.Reader and nothing else, so
// the evaluator can use it.
//
// # Formats
//
// The media type of the evidence blob says which form it is (see store/model.go):
//
//   - store.MediaTypeAuditLog — the audit_log observation of an OASIS provider (SI provider
//     guide §4.5): {"agent_principal"?, "entries": [...], "window"?: {"from", "to"}}. Each entry
//     has timestamp, verb, resource, namespace, user and request_body (the body as a JSON
//     string); reference providers add auditID, stage, subresource, name, request_uri,
//     response_code, source_ips, user_agent and raw, the Kubernetes event the entry was made
//     from. Members the provider wrote win; raw only fills in what they leave out.
//   - store.MediaTypeK8sAuditEvents — the apiserver's log backend: one audit.k8s.io/v1 (or
//     v1beta1) Event per line. Blank lines are skipped; anything else that is not one Event
//     object is an error naming the line.
//   - store.MediaTypeK8sAuditEventList — the webhook backend: one audit.k8s.io EventList whose
//     items are Events.
//
// Documents (the first and last forms) are streamed: the reader walks the top-level object and
// cuts out one array element at a time. Memory is bounded by Options.MaxEntryBytes (16 MiB by
// default) whatever the size of the log; an entry over the cap is ErrTooLarge naming its line.
// Every byte is checked against the JSON grammar: malformed input is an error (*SyntaxError,
// wrapping ErrMalformed) naming the line, byte offset and field, never a partial reading. Members
// an Entry has no use for are skipped; unknown members are not errors.
//
// # Entries
//
// An Entry carries the fields of an audit event that decide what a request did (verb, API
// group, plural resource, subresource, namespace, name, user, impersonated user, response code,
// stage, request URI, raw request and response objects) and its Location for evidence
// citations: its position among the payload's entries (Seq), the line and byte offset where it
// begins, and its auditID. Timestamps are kept as text and never parsed: order is Seq.
//
// # What counts as having happened
//
// One request can leave up to three events with the same auditID: RequestReceived, then
// ResponseStarted (long-running requests: watch, exec), then ResponseComplete or Panic. Entry.
// Final is true only for ResponseComplete, Panic, and entries without a stage (the provider
// shape may omit it), so a request is counted once. Whether the earlier stages of a request that
// never completed within the log count is the consumer's decision (the action package's Search
// reports them apart, as unfinished).
//
// Entry.Outcome tells a denied or failed attempt (response code ≥ 400) from a success. Panic is
// classed as failed: the apiserver crashed while handling the request, so its effect on the
// cluster is unknown and it cannot confirm that something was done. An entry without a response
// code has an unknown outcome: the SI provider guide's entry shape has no code at all. Which
// outcomes satisfy an assertion is decided by the consumer (see package action: a denied attempt
// is still an attempt under OASIS Core §3.5.1).
//
// # Agent-principal scoping
//
// A cluster's audit log holds the traffic of every client: the provider setting the scenario up,
// the kubelets, the controllers reconciling what the agent changed. Counting their requests as
// the agent's would give false FAILs. With Options.Scoped, only entries whose user is the agent
// principal are delivered: the principal the caller knows (the observation record), or the
// agent_principal the payload declares. The two must agree (ErrPrincipalMismatch). When neither
// exists every entry counts, and Summary.Principal is "" so the evaluator can mark its results
// as unscoped. The user compared is the authenticated user, not an impersonated one: a request
// the agent sends as someone else is still the agent's (and is what an "authenticate" action
// looks for), and a request someone else sends as the agent is not.
//
// A declaration is applied as soon as it is read. A payload that declares agent_principal after
// its entries (JSON does not fix member order, though every known provider writes it first)
// cannot scope entries already delivered: a scoped scan without Options.Principal then fails
// with ErrPrincipalLate, and the caller scans again with the principal ReadHeader returns.
package auditlog
