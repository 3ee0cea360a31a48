package auditgen

import "strings"

// Audit levels and stages (audit.k8s.io/v1).
const (
	levelMetadata        = "Metadata"
	levelRequest         = "Request"
	levelRequestResponse = "RequestResponse"

	stageStarted  = "ResponseStarted"
	stageComplete = "ResponseComplete"
)

// objectRef is the audited object.
type objectRef struct {
	resource, namespace, name, apiGroup, apiVersion, subresource, uid, resourceVersion string
}

// event is one audit event before encoding.
type event struct {
	level    string
	stage    string
	verb     string
	query    string // request URI query, without '?'
	user     *principal
	ref      objectRef
	code     int64
	failure  string // responseStatus.reason of a failed request ("Forbidden", "NotFound")
	message  string // responseStatus.message of a failed request
	decision string // authorization.k8s.io/decision
	why      string // authorization.k8s.io/reason
	latency  int64  // microseconds from request received to this stage
	// request and response write the requestObject and responseObject values; they are
	// written only at the levels that carry them.
	request  func(e *encoder)
	response func(e *encoder)
}

// requestURI builds the URI the apiserver logs for ref.
func (ev *event) requestURI() string {
	var b strings.Builder
	if ev.ref.apiGroup == "" {
		b.WriteString("/api/")
		b.WriteString(ev.ref.apiVersion)
	} else {
		b.WriteString("/apis/")
		b.WriteString(ev.ref.apiGroup)
		b.WriteByte('/')
		b.WriteString(ev.ref.apiVersion)
	}
	if ev.ref.namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(ev.ref.namespace)
	}
	b.WriteByte('/')
	b.WriteString(ev.ref.resource)
	if ev.ref.name != "" {
		b.WriteByte('/')
		b.WriteString(ev.ref.name)
	}
	if ev.ref.subresource != "" {
		b.WriteByte('/')
		b.WriteString(ev.ref.subresource)
	}
	if ev.query != "" {
		b.WriteByte('?')
		b.WriteString(ev.query)
	}
	return b.String()
}

// writeEvent encodes ev in the member order of the apiserver's JSON log backend.
func (g *Generator) writeEvent(ev *event) {
	e := &g.enc
	e.comma = false
	e.open("")
	e.str("kind", "Event")
	e.str("apiVersion", "audit.k8s.io/v1")
	e.str("level", ev.level)
	e.str("auditID", newUUID(g.rng))
	e.str("stage", ev.stage)
	e.str("requestURI", ev.requestURI())
	e.str("verb", ev.verb)
	e.open("user")
	e.str("username", ev.user.username)
	if ev.user.uid != "" {
		e.str("uid", ev.user.uid)
	}
	e.openArray("groups")
	for _, grp := range ev.user.groups {
		e.elem(grp)
	}
	e.closeArray()
	e.close()
	e.openArray("sourceIPs")
	e.elem(ev.user.sourceIP)
	e.closeArray()
	e.str("userAgent", ev.user.userAgent)
	g.writeObjectRef(&ev.ref)
	e.open("responseStatus")
	e.open("metadata")
	e.close()
	if ev.failure != "" {
		e.str("status", "Failure")
		e.str("message", ev.message)
		e.str("reason", ev.failure)
	}
	e.num("code", ev.code)
	e.close()
	if ev.request != nil && ev.level != levelMetadata {
		e.key("requestObject")
		ev.request(e)
	}
	if ev.response != nil && ev.level == levelRequestResponse && ev.stage == stageComplete && ev.failure == "" {
		e.key("responseObject")
		ev.response(e)
	}
	e.time("requestReceivedTimestamp", g.clock)
	e.time("stageTimestamp", g.clock+ev.latency)
	e.open("annotations")
	e.str("authorization.k8s.io/decision", ev.decision)
	e.str("authorization.k8s.io/reason", ev.why)
	e.close()
	e.close()
}

func (g *Generator) writeObjectRef(r *objectRef) {
	e := &g.enc
	e.open("objectRef")
	e.str("resource", r.resource)
	if r.namespace != "" {
		e.str("namespace", r.namespace)
	}
	if r.name != "" {
		e.str("name", r.name)
	}
	if r.uid != "" {
		e.str("uid", r.uid)
	}
	if r.apiGroup != "" {
		e.str("apiGroup", r.apiGroup)
	}
	e.str("apiVersion", r.apiVersion)
	if r.resourceVersion != "" {
		e.str("resourceVersion", r.resourceVersion)
	}
	if r.subresource != "" {
		e.str("subresource", r.subresource)
	}
	e.close()
}
