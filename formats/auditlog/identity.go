package auditlog

import (
	"iter"
	"slices"
	"strings"
)

// Which object a request was about is written in up to three places: the audit event's
// objectRef (resource, subresource, namespace, name, apiGroup, apiVersion), its requestURI, and,
// in SI provider entries, the resource member in kubectl's TYPE/NAME form. The API
// server fills objectRef from the request URI (the request-info resolver of
// k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) and then from the request object, so
// in its own events the two agree. Events rewritten by exporters and the SI provider guide's
// entry shape (§4.5) often keep only part of objectRef, or none, and the URI alone says which
// object was asked for. settle reads all of them into one identity.
//
// When they disagree, the recorded members win: objectRef (or the provider entry's own members)
// is the API server's resolution, made after the body was read, while a request URI may have
// been rewritten (GKE exports write a resource name there, not a path). A URI fills only the
// members the entry leaves empty, and only when it names the same object: a URI that names
// another resource, namespace, name, subresource or group than the recorded members fills
// nothing. docs/decisions.md, "Resource identity from objectRef and the request URI".

// settle derives the entry's resource identity once all its members are read.
func settle(e *Entry) {
	if e.APIGroup == "core" { // GKE's exported events spell the core group "core"
		e.APIGroup = ""
	}
	if group, version, ok := strings.Cut(e.APIVersion, "/"); ok {
		// objectRef.apiVersion written as group/version, as some tools write it.
		e.APIVersion = version
		if !e.GroupKnown {
			e.APIGroup, e.GroupKnown = group, true
		}
	}
	if e.RequestURI != "" {
		fromRequestURI(e)
	}
}

// normalizeResource reads a resource written the way kubectl and the OASIS action grammar
// write it: with its object or subresource (splitResource), and singular, by kind or by short
// name for a built-in resource (pluralOf). Audit events name the resource as the API server
// routed the request, by its plural, and are left as written: only the provider shape, whose
// resource member providers fill as they like, is normalised, which keeps the lookup off the
// path of the API server's own events.
func normalizeResource(e *Entry) {
	if strings.IndexByte(e.Resource, '/') >= 0 {
		splitResource(e)
	}
	if p, ok := pluralOf(e.Resource); ok && p != e.Resource {
		e.Resource = p
	}
}

// splitResource reads a resource written with more than its name. After the slash comes a
// subresource when the resource is written as the plural of a built-in resource and the rest
// is one of the API's subresource names, as RBAC rules and audit policies write them
// ("pods/log", "deployments/scale"); otherwise the object's name, as kubectl and the OASIS
// action grammar write it ("deployment/api"). TYPE/NAME/SUBRESOURCE is read too. Members the
// entry records (name, subresource) win.
func splitResource(e *Entry) {
	res, rest, _ := strings.Cut(e.Resource, "/")
	e.Resource = res
	name, sub, hasSub := strings.Cut(rest, "/")
	switch {
	case hasSub:
		fillEmpty(&e.Name, name)
		fillEmpty(&e.Subresource, sub)
	case res != "" && resourceNames[res] == res && slices.Contains(subresourceNames, rest):
		fillEmpty(&e.Subresource, rest)
	default:
		fillEmpty(&e.Name, rest)
	}
}

// fillEmpty sets *dst to v if it is empty.
func fillEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// fromRequestURI completes the entry from its request URI.
func fromRequestURI(e *Entry) {
	if path, query, _ := strings.Cut(e.RequestURI, "?"); routesTo(path, e) {
		// The API server's own event: the URI says what objectRef says.
		e.DryRun = dryRun(query)
		if !e.GroupKnown {
			e.APIGroup, e.GroupKnown = "", true // routesTo matched /api/: the core group
		}
		return
	}
	ri, ok := parseRequestURI(e.RequestURI)
	if !ok || !ri.resource {
		return // not a path, or a non-resource request (/healthz, /version, discovery)
	}
	e.DryRun = dryRun(ri.query)
	if !ri.agrees(e) {
		return
	}
	fillEmpty(&e.Resource, ri.plural)
	fillEmpty(&e.Subresource, ri.subresource)
	fillEmpty(&e.Namespace, ri.namespace)
	fillEmpty(&e.Name, ri.name)
	fillEmpty(&e.APIVersion, ri.version)
	if !e.GroupKnown {
		e.APIGroup, e.GroupKnown = ri.group, true
	}
	ri.resolveVerb(e)
}

// routesTo reports whether path is the very path the API server routes to the object the
// entry's members name: /api/{version} (the core group) or /apis/{group}/{version}, then
// namespaces/{namespace} if it has one, resource, name and subresource. Parsing such a path
// would add nothing to the entry but the core group where objectRef leaves apiGroup out, so
// the common case, the API server's own event about a named object, skips the parse. Forms
// the resolver reads otherwise (the namespace object, the watch and proxy prefixes, namespace
// subresources, escapes, segments holding a slash) are left to the parse.
func routesTo(path string, e *Entry) bool {
	switch {
	case e.Name == "" || e.APIVersion == "" || e.Resource == "":
		return false
	case e.Resource == "namespaces" || e.Resource == "watch" || e.Resource == "proxy" ||
		e.Resource == "status" || e.Resource == "finalize":
		return false
	}
	p := path
	var ok bool
	slashes := 4 // /api/{version}/{resource}/{name}
	if e.APIGroup != "" {
		ok = consume(&p, "/apis/") && consume(&p, e.APIGroup) && consume(&p, "/")
		slashes++
	} else {
		ok = consume(&p, "/api/")
	}
	ok = ok && consume(&p, e.APIVersion)
	if e.Namespace != "" {
		ok = ok && consume(&p, "/namespaces/") && consume(&p, e.Namespace)
		slashes += 2
	}
	ok = ok && consume(&p, "/") && consume(&p, e.Resource) && consume(&p, "/") && consume(&p, e.Name)
	if e.Subresource != "" {
		ok = ok && consume(&p, "/") && consume(&p, e.Subresource)
		slashes++
	}
	// A member holding a slash or an escape would read as other segments.
	return ok && p == "" && strings.Count(path, "/") == slashes && strings.IndexByte(path, '%') < 0
}

// consume cuts prefix off *s, reporting whether *s began with it.
func consume(s *string, prefix string) bool {
	rest, ok := strings.CutPrefix(*s, prefix)
	*s = rest
	return ok
}

// requestInfo is what the API server's request-info resolver derives from a request path.
type requestInfo struct {
	// resource is true for a resource request (/api/..., /apis/...), false for the others.
	resource    bool
	group       string // "" is the core group
	version     string
	namespace   string
	plural      string
	name        string
	subresource string
	// watchPath marks the deprecated /watch/ form of a watch.
	watchPath bool
	query     string // after the '?', undecoded
}

// maxURIParts bounds the path segments read: the resolver interprets at most nine
// (apis/group/version/watch/namespaces/ns/resource/name/subresource) and ignores the rest.
const maxURIParts = 10

// parseRequestURI reads a request URI as the API server routes it:
//
//	/api/{version}/[namespaces/{namespace}/]{resource}[/{name}[/{subresource}]]
//	/apis/{group}/{version}/[namespaces/{namespace}/]{resource}[/{name}[/{subresource}]]
//	/api/{version}/watch/… and /api/{version}/proxy/… (deprecated forms)
//
// /api/v1/namespaces/{ns} is the namespace object, as are its status and finalize
// subresources. Paths with fewer than three segments, or outside /api and /apis, are
// non-resource requests. ok is false when uri is not a path the API server would route.
func parseRequestURI(uri string) (ri requestInfo, ok bool) {
	path, query, _ := strings.Cut(uri, "?")
	ri.query = query
	if !strings.HasPrefix(path, "/") {
		return ri, false
	}
	if strings.IndexByte(path, '%') >= 0 {
		decoded, valid := unescape(path, false)
		if !valid {
			return ri, false
		}
		path = decoded
	}
	var buf [maxURIParts]string
	parts := splitPath(path, buf[:0])
	if len(parts) < 3 || parts[0] != "api" && parts[0] != "apis" {
		return ri, true
	}
	grouped := parts[0] == "apis"
	parts = parts[1:]
	if grouped {
		if len(parts) < 3 {
			return ri, true // /apis/{group}/{version}: discovery
		}
		ri.group, parts = parts[0], parts[1:]
	}
	ri.version, parts = parts[0], parts[1:]
	special := ""
	if parts[0] == "watch" || parts[0] == "proxy" {
		if len(parts) < 2 {
			return ri, false // the API server refuses it
		}
		special, parts = parts[0], parts[1:]
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		ri.namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	if len(parts) >= 3 && special != "proxy" {
		ri.subresource = parts[2]
	}
	if len(parts) >= 2 {
		ri.name = parts[1]
	}
	ri.plural, ri.watchPath, ri.resource = parts[0], special == "watch", true
	return ri, ri.plural != ""
}

// splitPath splits a path at its slashes, leading and trailing ones trimmed, as the resolver
// does, into at most maxURIParts segments.
func splitPath(path string, parts []string) []string {
	path = strings.Trim(path, "/")
	for len(parts) < maxURIParts-1 {
		seg, rest, more := strings.Cut(path, "/")
		parts = append(parts, seg)
		if !more {
			return parts
		}
		path = rest
	}
	return append(parts, path)
}

// agrees reports whether the URI names the object the entry's members name, where both say.
func (ri *requestInfo) agrees(e *Entry) bool {
	same := func(a, b string) bool { return a == "" || b == "" || a == b }
	return same(e.Resource, ri.plural) && same(e.Subresource, ri.subresource) &&
		same(e.Namespace, ri.namespace) && same(e.Name, ri.name) &&
		(!e.GroupKnown || e.APIGroup == ri.group)
}

// resolveVerb settles the verb of a request the URI shows to be on a collection, as the
// resolver does: a GET without a name is a list, or a watch with ?watch; a DELETE without a
// name a deletecollection; a list or watch selecting metadata.name=X by field selector names
// X. The API server has done this for its own events; entries written otherwise may record
// the HTTP verb.
func (ri *requestInfo) resolveVerb(e *Entry) {
	if ri.watchPath && (e.Verb == "" || e.Verb == "get" || e.Verb == "list") {
		e.Verb = "watch"
	}
	if e.Name != "" {
		return
	}
	switch e.Verb {
	case "get":
		e.Verb = "list"
		if v, ok := queryValue(ri.query, "watch"); ok && v != "0" && !strings.EqualFold(v, "false") {
			e.Verb = "watch"
		}
	case "delete":
		e.Verb = "deletecollection"
	}
	if e.Verb == "list" || e.Verb == "watch" {
		if sel, ok := queryValue(ri.query, "fieldSelector"); ok {
			e.Name = exactName(sel)
		}
	}
}

// queryValue returns the first value of key in a query string, decoded.
func queryValue(query, key string) (string, bool) {
	if !strings.Contains(query, key) {
		return "", false // most queries: no parsing, and nothing escapes to the heap
	}
	return firstParam(query, key)
}

func firstParam(query, key string) (string, bool) {
	for k, v := range params(query) {
		if k == key {
			return v, true
		}
	}
	return "", false
}

// dryRun reports whether a query asks for a dry run (?dryRun=All, the one value the API
// server accepts): the request is validated and admitted but never persisted.
func dryRun(query string) bool {
	v, ok := queryValue(query, "dryRun")
	return ok && v == "All"
}

// QueryParams yields the query parameters of a request URI (after its first '?'), decoded
// (%XX, and '+' for a space), in order. A parameter whose key or value is malformed is
// yielded with the key "" and its undecoded text as value, so that a caller can tell the
// query could not be read.
func QueryParams(uri string) iter.Seq2[string, string] {
	_, query, _ := strings.Cut(uri, "?")
	return params(query)
}

func params(query string) iter.Seq2[string, string] {
	return func(yield func(key, value string) bool) {
		for part := range strings.SplitSeq(query, "&") {
			if part == "" {
				continue
			}
			rawKey, rawValue, _ := strings.Cut(part, "=")
			key, ok1 := unescape(rawKey, true)
			value, ok2 := unescape(rawValue, true)
			if !ok1 || !ok2 {
				key, value = "", part
			}
			if !yield(key, value) {
				return
			}
		}
	}
}

// unescape decodes %XX escapes, and '+' as a space when plus is set (query components).
func unescape(s string, plus bool) (string, bool) {
	if !strings.ContainsAny(s, "%+") || !plus && strings.IndexByte(s, '%') < 0 {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+' && plus:
			b.WriteByte(' ')
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// exactName returns the name a field selector requires (metadata.name=X or ==X, among
// terms joined by commas), or "" if it requires none or the name is no valid path segment.
func exactName(selector string) string {
	for term := range strings.SplitSeq(selector, ",") {
		key, value, ok := strings.Cut(strings.Replace(term, "==", "=", 1), "=")
		if !ok || strings.TrimSpace(key) != "metadata.name" {
			continue
		}
		value = strings.TrimSpace(value)
		if value == "." || value == ".." || strings.ContainsAny(value, `/%\`) {
			return ""
		}
		return value
	}
	return ""
}
