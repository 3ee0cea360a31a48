package auditlog

import "slices"

// Stages of an audit event (audit.k8s.io/v1 Event.stage).
const (
	StageRequestReceived  = "RequestReceived"
	StageResponseStarted  = "ResponseStarted"
	StageResponseComplete = "ResponseComplete"
	StagePanic            = "Panic"
)

// Location says where an entry sits in its payload, for evidence citations.
type Location struct {
	// Seq is the 1-based position of the entry among all entries of the payload, counted
	// before any principal scoping.
	Seq int
	// Line is the 1-based line on which the entry begins.
	Line int
	// Offset is the 0-based byte offset at which the entry begins.
	Offset int64
	// AuditID is the entry's Kubernetes auditID, "" if the source recorded none.
	AuditID string
}

// Entry is one audit-log entry, normalized from any of the three audit-log media types.
// Strings are kept exactly as the source wrote them, except APIGroup ("core" becomes "").
type Entry struct {
	Location

	// Timestamp is the time text as written: requestReceivedTimestamp, else the v1beta1
	// timestamp, else stageTimestamp (provider shape: timestamp). It is never parsed: the
	// evaluator orders entries by Seq, not by clock.
	Timestamp string
	// Stage is the audit stage, "" when the source omits it (the provider shape may).
	Stage string
	// Level is the audit level (Metadata, Request, RequestResponse), "" if unknown.
	Level string

	// Verb is the audit verb. For a request the URI shows to be on a collection, an HTTP verb
	// an entry records is resolved as the API server resolves it (get → list or watch, delete
	// → deletecollection).
	Verb string
	// APIGroup is the API group of the object; "" for the core group. GroupKnown is false
	// when the source recorded neither objectRef.apiGroup (nor a group/version apiVersion) nor
	// a resource request URI to derive it from (the apiserver omits apiGroup for the core
	// group but always writes the URI); non-resource requests are in no group.
	APIGroup   string
	GroupKnown bool
	APIVersion string
	// Resource is the plural, lowercase resource as Kubernetes writes it ("deployments"), also
	// when a provider entry wrote a built-in resource singular, as a kind or by its short name,
	// or with its object ("deployment/api"). It is "" for non-resource requests (/healthz,
	// /version, discovery). Resource, Subresource, Namespace and Name come from objectRef (or
	// the provider entry's members) and, where those leave them empty, from the request URI
	// read as the API server routes it (see identity.go).
	Resource    string
	Subresource string
	Namespace   string
	Name        string

	// User is the authenticated username that sent the request; Groups its groups, if
	// recorded. ImpersonatedUser is the user the request acted as, "" without impersonation.
	User             string
	Groups           []string
	ImpersonatedUser string
	SourceIPs        []string
	UserAgent        string
	// Principal is the agent principal a scan scoped to one delivered the entry for (see
	// ActsFor), "" otherwise.
	Principal string

	RequestURI string
	// DryRun marks a request with ?dryRun=All: the API server validated and admitted it but
	// persisted nothing.
	DryRun bool
	// ResponseCode is the HTTP status of the response, 0 when not recorded.
	ResponseCode int
	// ResponseStatus and ResponseReason are responseStatus.status ("Success", "Failure") and
	// responseStatus.reason ("Forbidden", "NotFound"), as written.
	ResponseStatus string
	ResponseReason string

	// RequestBody is the raw request object: the JSON of requestObject, or the bytes of the
	// provider's request_body string. nil when not recorded. ResponseBody is the raw JSON of
	// responseObject, nil when not recorded.
	RequestBody  []byte
	ResponseBody []byte
}

// Final reports whether the entry stands for a request the apiserver finished handling:
// stage ResponseComplete or Panic, or no stage at all (the provider shape may omit it).
// RequestReceived and ResponseStarted entries are earlier records of the same request, carry
// the same auditID, and must not be counted a second time.
func (e *Entry) Final() bool {
	switch e.Stage {
	case "", StageResponseComplete, StagePanic:
		return true
	}
	return false
}

// Outcome is what became of a request, as far as the entry records it.
type Outcome int

// Outcomes of a request.
const (
	// OutcomeUnknown: no response code was recorded (the SI provider guide's entry shape has
	// none) and the stage is not Panic.
	OutcomeUnknown Outcome = iota
	// OutcomeSucceeded: a response code below 400 (101 Switching Protocols included: exec).
	OutcomeSucceeded
	// OutcomeFailed: a response code of 400 or more (403 Forbidden: a denied attempt), or the
	// Panic stage, whose effect on the cluster is unknown.
	OutcomeFailed
)

// Outcome classifies the entry's response.
func (e *Entry) Outcome() Outcome {
	switch {
	case e.Stage == StagePanic || e.ResponseCode >= 400:
		return OutcomeFailed
	case e.ResponseCode > 0:
		return OutcomeSucceeded
	}
	return OutcomeUnknown
}

// Clone returns a deep copy of e that stays valid after the scan callback returns.
func (e *Entry) Clone() *Entry {
	c := *e
	c.Groups = slices.Clone(e.Groups)
	c.SourceIPs = slices.Clone(e.SourceIPs)
	c.RequestBody = slices.Clone(e.RequestBody)
	c.ResponseBody = slices.Clone(e.ResponseBody)
	return &c
}

// reset clears e for reuse, keeping the capacity of its slices.
func (e *Entry) reset() {
	groups, ips := e.Groups[:0], e.SourceIPs[:0]
	*e = Entry{Groups: groups, SourceIPs: ips}
}
