package auditlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzScan feeds arbitrary bytes to the reader under each media type. It must never panic,
// every error must be located inside the input, and whatever it accepts must be valid JSON by
// encoding/json's judgement: the hand-written lexer may not be laxer than the standard one.
// The committed seeds are in testdata/fuzz/FuzzScan.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"kind":"Event","auditID":"a","stage":"ResponseComplete","verb":"delete","user":{"username":"u","groups":["g"]},"objectRef":{"resource":"pods","namespace":"payments","name":"p"},"responseStatus":{"code":403},"requestObject":{"kind":"DeleteOptions"}}`), uint8(0))
	f.Add([]byte(`{"kind":"EventList","items":[{"verb":"get","objectRef":{"resource":"pods","apiGroup":"core"}}]}`), uint8(1))
	f.Add([]byte(`{"agent_principal":"sa","entries":[{"verb":"patch","request_body":"{\"spec\":{\"replicas\":0}}","response_code":200,"raw":{"objectRef":{"resource":"deployments"}}}],"window":{"from":"a","to":"b"}}`), uint8(2))
	f.Add([]byte(`{"kind":"Event","verb":"get","user":{"username":"sa"},"impersonatedUser":{"username":"bob"},"requestURI":"/api/v1/namespaces/orders/pods/p/log?container=app","objectRef":{"resource":"pods","namespace":"orders"}}`), uint8(0))
	f.Add([]byte(`{"entries":[{"verb":"get","resource":"deploy/api","user":"sa","request_uri":"/apis/apps/v1/namespaces/d/deployments?dryRun=All&watch=1"}]}`), uint8(2))
	mediaTypes := []string{jsonl, eventList, auditLog}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		mediaType := mediaTypes[int(kind)%len(mediaTypes)]
		var last Location
		n := 0
		for _, scoped := range []bool{false, true} {
			n, last = 0, Location{}
			_, err := ScanWith(bytes.NewReader(data), mediaType, Options{MaxEntryBytes: 1 << 16, Scoped: scoped}, func(e *Entry) error {
				n++
				if e.Line < 1 || e.Offset < 0 || e.Offset >= int64(len(data)) || e.Seq <= last.Seq ||
					e.Offset <= last.Offset && n > 1 || e.Line < last.Line {
					t.Fatalf("entry %d at %+v after %+v", n, e.Location, last)
				}
				last = e.Location
				return nil
			})
			var se *SyntaxError
			switch {
			case errors.As(err, &se):
				if se.Line < 1 || se.Offset < 0 || se.Offset > int64(len(data)) {
					t.Fatalf("error outside the input: %v", err)
				}
			case err == nil:
				checkValidJSON(t, mediaType, data)
			case !errors.Is(err, ErrPrincipalLate) && !errors.Is(err, ErrPrincipalMismatch):
				t.Fatalf("unexpected error: %v", err)
			}
		}
	})
}

// checkValidJSON asserts that input the reader accepted is valid JSON.
func checkValidJSON(t *testing.T, mediaType string, data []byte) {
	t.Helper()
	data = bytes.TrimPrefix(data, utf8BOM)
	if mediaType != jsonl {
		if !json.Valid(data) {
			t.Fatalf("accepted a document encoding/json rejects: %q", data)
		}
		return
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			t.Fatalf("accepted a line encoding/json rejects: %q", line)
		}
	}
}

// FuzzDecode holds the string decoder to encoding/json's reading of the same token: escapes,
// surrogate pairs, unpaired surrogates and invalid UTF-8 all decode identically. The committed
// seeds are in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`plain`, `a\u0026b`, `\ud83d\ude00`, `\ud83d`, `\ude00x`, `\ud83d\u0041`,
		"\xff\xfe", `\"\\\/\b\f\n\r\t`, "é\u2028", `\u00e9`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		token := append(append([]byte{'"'}, content...), '"')
		lx := lexer{data: token}
		raw, esc, err := lx.rawString()
		if err != nil || lx.pos != len(token) {
			return // not one valid string token
		}
		var want string
		if err := json.Unmarshal(token, &want); err != nil {
			t.Fatalf("the lexer accepts %q, encoding/json does not: %v", token, err)
		}
		if got := decode(raw, esc); got != want {
			t.Fatalf("decode(%q) = %q, encoding/json reads %q", token, got, want)
		}
	})
}

// FuzzRequestURI holds the request-URI reader to the API server's routing: it never panics, a
// resource request names a resource, and the path rebuilt from what it read reads the same.
// The committed seeds are in testdata/fuzz/FuzzRequestURI.
func FuzzRequestURI(f *testing.F) {
	for _, s := range []string{"/api/v1/namespaces/orders/pods/p/log?container=app", "/apis/apps/v1/deployments",
		"/api/v1/namespaces/analytics/finalize", "/api/v1/watch/namespaces/d/pods/p", "/api/v1/proxy/nodes/n/x",
		"/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Anode", "/healthz", "core/v1/pods/x", "/api//v1//pods"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		ri, ok := parseRequestURI(uri)
		if !ok || !ri.resource {
			return
		}
		if ri.plural == "" {
			t.Fatalf("%q: a resource request without a resource: %+v", uri, ri)
		}
		fields := []string{ri.group, ri.version, ri.namespace, ri.plural, ri.name, ri.subresource}
		for _, f := range fields {
			if strings.ContainsAny(f, "/%?") {
				return // not a segment once unescaped
			}
		}
		if ri.watchPath || ri.plural == "watch" || ri.plural == "proxy" || ri.name == "" && ri.subresource != "" {
			return // forms a rebuilt path would spell differently
		}
		path := "/api/" + ri.version
		if ri.group != "" {
			path = "/apis/" + ri.group + "/" + ri.version
		}
		if ri.namespace != "" {
			path += "/namespaces/" + ri.namespace
		}
		path += "/" + ri.plural
		if ri.name != "" {
			path += "/" + ri.name
		}
		if ri.subresource != "" {
			path += "/" + ri.subresource
		}
		if ri.query != "" {
			path += "?" + ri.query
		}
		again, ok := parseRequestURI(path)
		if !ok || again != ri {
			t.Fatalf("%q reads %+v; rebuilt as %q it reads %+v", uri, ri, path, again)
		}
	})
}

// FuzzRoutesTo holds the shortcut that skips parsing a request URI to its promise: when it
// says the URI routes to exactly the object an entry's members name, parsing the URI reads
// that same object. The committed seeds are in testdata/fuzz/FuzzRoutesTo.
func FuzzRoutesTo(f *testing.F) {
	f.Add("/api/v1/namespaces/payments/pods/p/status?x=1", "", "v1", "payments", "pods", "p", "status")
	f.Add("/apis/apps/v1/namespaces/d/deployments/web", "apps", "v1", "d", "deployments", "web", "")
	f.Add("/api/v1/nodes/n1", "", "v1", "", "nodes", "n1", "")
	f.Add("/api/v1/namespaces/foo", "", "v1", "", "namespaces", "foo", "")
	f.Fuzz(func(t *testing.T, uri, group, version, namespace, resource, name, sub string) {
		e := &Entry{APIGroup: group, GroupKnown: group != "", APIVersion: version, Namespace: namespace,
			Resource: resource, Name: name, Subresource: sub, RequestURI: uri}
		path, _, _ := strings.Cut(uri, "?")
		if !routesTo(path, e) {
			return
		}
		ri, ok := parseRequestURI(uri)
		if !ok || !ri.resource || ri.group != group || ri.version != version || ri.namespace != namespace ||
			ri.plural != resource || ri.name != name || ri.subresource != sub || ri.watchPath {
			t.Fatalf("routesTo(%q) holds for %+v, but the URI reads %+v (ok %v)", uri, e, ri, ok)
		}
	})
}
