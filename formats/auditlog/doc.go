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
// stage, request URI, dry run, raw request and response objects) and its Location for evidence
// citations: its position among the payload's entries (Seq), the line and byte offset where it
// begins, and its auditID. Timestamps are kept as text and never parsed: order is Seq.
//
// # Resource identity
//
// Which object a request was about is derived from every member that carries it (identity.go;
// docs/decisions.md, "Resource identity from objectRef and the request URI"). objectRef, or
// the provider entry's own members, come first; where they leave the resource, subresource,
// namespace, name, API group or version empty, the request URI fills them, read as the API
// server's request-info resolver routes it (/api/{v}/… and /apis/{group}/{v}/…, namespaced or
// not, the namespace object recorded in itself, the deprecated /watch/ and /proxy/ forms;
// anything else is a non-resource request, in no API group), and only when it names the same
// object as the recorded members: when they disagree, the recorded members win. The resolver's
// reading of the query is applied to an HTTP verb an entry records (a GET without a name is a
// list or a watch, a DELETE a deletecollection, a list or watch by field selector
// metadata.name=X names X), and ?dryRun=All marks a dry run; the selectors are left in the URI
// for the consumer (package action reads them). In the provider shape, whose resource member
// providers fill as they like, a built-in resource named singular, by kind or by kubectl short
// name becomes its plural, and kubectl's TYPE/NAME form ("deployment/api") or RBAC's
// resource/subresource form ("pods/log") is split (resources.go; docs/decisions.md, "Resources
// named by kind, short name or TYPE/NAME"); audit events name it as the API server routed the
// request and are kept as written. ResourceScope tells a built-in resource that is
// cluster-scoped from one that is namespaced.
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
// the agent's would give false FAILs. With Options.Scoped, only the agent principal's entries
// are delivered (Entry.ActsFor): the principal is the one the caller knows (the observation
// record), or the agent_principal the payload declares; the two must agree
// (ErrPrincipalMismatch). An entry is the principal's when the principal sent it, as itself or
// impersonating another identity (the agent is still the one acting, and that is what an
// "authenticate" action looks for), or when another identity sent it impersonating the
// principal (a harness brokering the agent's calls); docs/decisions.md, "Impersonation and the
// agent principal". Entry.Principal names the principal an entry was delivered for.
//
// When no principal is known, a scoped scan delivers the entries of every principal but the
// cluster's own components (ClusterComponents: the API server, the control plane, the
// kubelets, node bootstrap tokens, the service accounts of kube-system), Summary.Principal is
// "" and Summary.Scope is ScopeNonSystem, so the evaluator can say which scope it used
// (docs/decisions.md, "Audit scope when no agent principal is declared").
//
// A declaration is applied as soon as it is read. A payload that declares agent_principal after
// its entries (JSON does not fix member order, though every known provider writes it first)
// cannot scope entries already delivered: a scoped scan without Options.Principal then fails
// with ErrPrincipalLate, and the caller scans again with the principal ReadHeader returns.
package auditlog
