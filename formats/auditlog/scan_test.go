package auditlog

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/oasis-replay/oasis-replay/store"
)

const (
	jsonl     = store.MediaTypeK8sAuditEvents
	eventList = store.MediaTypeK8sAuditEventList
	auditLog  = store.MediaTypeAuditLog
)

// collect scans input and returns lasting copies of the delivered entries.
func collect(t *testing.T, mediaType, input string, opts Options) ([]*Entry, Summary, error) {
	t.Helper()
	var got []*Entry
	sum, err := ScanWith(strings.NewReader(input), mediaType, opts, func(e *Entry) error {
		got = append(got, e.Clone())
		return nil
	})
	return got, sum, err
}

var ignoreBodies = cmpopts.IgnoreFields(Entry{}, "RequestBody", "ResponseBody")

func TestScanJSONLines(t *testing.T) {
	input := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"a1","stage":"ResponseComplete","requestURI":"/apis/apps/v1/namespaces/payments/deployments/checkout-api/scale","verb":"patch","user":{"username":"system:serviceaccount:oasis:agent","groups":["system:serviceaccounts","system:authenticated"]},"sourceIPs":["10.244.1.23"],"userAgent":"kubectl/v1.30.2","objectRef":{"resource":"deployments","namespace":"payments","name":"checkout-api","apiGroup":"apps","apiVersion":"v1","subresource":"scale"},"responseStatus":{"metadata":{},"code":200},"requestObject":{"spec":{"replicas":0}},"responseObject":{"kind":"Scale"},"requestReceivedTimestamp":"2026-05-04T10:20:05.050000Z","stageTimestamp":"2026-05-04T10:20:05.060000Z"}
` + "\r\n   \n" +
		`{"kind":"Event","apiVersion":"audit.k8s.io/v1beta1","auditID":"b2","stage":"ResponseComplete","verb":"list","user":{"username":"system:admin"},"impersonatedUser":{"username":"bob"},"objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"code":403,"status":"Failure","reason":"Forbidden"},"timestamp":"2017-09-11T19:55:05Z"}` + "\r\n" +
		`{"verb":"get","requestURI":"/healthz","user":{"username":"system:anonymous"}}`
	got, sum, err := collect(t, jsonl, input, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []*Entry{{
		Location:  Location{Seq: 1, Line: 1, Offset: 0, AuditID: "a1"},
		Timestamp: "2026-05-04T10:20:05.050000Z", Stage: StageResponseComplete, Level: "RequestResponse",
		Verb: "patch", APIGroup: "apps", GroupKnown: true, APIVersion: "v1", Resource: "deployments",
		Subresource: "scale", Namespace: "payments", Name: "checkout-api",
		User: "system:serviceaccount:oasis:agent", Groups: []string{"system:serviceaccounts", "system:authenticated"},
		SourceIPs: []string{"10.244.1.23"}, UserAgent: "kubectl/v1.30.2",
		RequestURI:   "/apis/apps/v1/namespaces/payments/deployments/checkout-api/scale",
		ResponseCode: 200,
	}, {
		Location:  Location{Seq: 2, Line: 4, Offset: int64(strings.Index(input, `{"kind":"Event","apiVersion":"audit.k8s.io/v1beta1"`)), AuditID: "b2"},
		Timestamp: "2017-09-11T19:55:05Z", Stage: StageResponseComplete, Verb: "list",
		APIVersion: "v1", Resource: "pods", Namespace: "default", User: "system:admin",
		ImpersonatedUser: "bob", ResponseCode: 403, ResponseStatus: "Failure", ResponseReason: "Forbidden",
	}, {
		Location: Location{Seq: 3, Line: 5, Offset: int64(strings.LastIndex(input, `{"verb":"get"`))},
		Verb:     "get", RequestURI: "/healthz", User: "system:anonymous",
	}}
	if diff := cmp.Diff(want, got, ignoreBodies, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if string(got[0].RequestBody) != `{"spec":{"replicas":0}}` || string(got[0].ResponseBody) != `{"kind":"Scale"}` {
		t.Errorf("bodies = %s, %s", got[0].RequestBody, got[0].ResponseBody)
	}
	if sum.Entries != 3 || sum.Delivered != 3 || sum.Principal != "" {
		t.Errorf("summary = %+v", sum)
	}
}

func TestScanProviderShape(t *testing.T) {
	input := "\ufeff" + `{
  "agent_principal": "system:serviceaccount:oasis-agents:agent",
  "entries": [
    {
      "auditID": "p1",
      "name": "web-app",
      "namespace": "default",
      "request_body": "{\"metadata\":{\"labels\":{\"x\":\"\\u00e9\"}}}",
      "request_uri": "/apis/apps/v1/namespaces/default/deployments/web-app",
      "resource": "deployments",
      "response_code": 200,
      "stage": "ResponseComplete",
      "timestamp": "2026-05-04T09:55:02.100Z",
      "user": "system:serviceaccount:oasis-agents:agent",
      "verb": "patch"
    },
    {"verb": "delete", "resource": "pods", "user": "kubelet", "name": "p"},
    {"name": "web-app-5fd7cfbdc6-gx65t", "user": {"username": "system:serviceaccount:oasis-agents:agent"},
     "raw": {"kind": "Event", "auditID": "r3", "stage": "ResponseComplete", "verb": "delete",
             "user": {"username": "someone-else", "groups": ["g"]},
             "objectRef": {"resource": "pods", "namespace": "frontend", "name": "ignored"},
             "responseStatus": {"code": 200}, "responseObject": {"kind": "Pod"},
             "requestReceivedTimestamp": "2026-08-20T08:28:21.413806Z"}}
  ],
  "window": {"from": "2026-05-04T09:55:00.000Z", "to": "2026-05-04T09:56:30.000Z"}
}
`
	got, sum, err := collect(t, auditLog, input, Options{Scoped: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []*Entry{{
		Location: Location{Seq: 1, Line: 4, Offset: int64(strings.Index(input, `{
      "auditID": "p1"`)), AuditID: "p1"},
		Timestamp: "2026-05-04T09:55:02.100Z", Stage: StageResponseComplete, Verb: "patch",
		APIGroup: "apps", GroupKnown: true, Resource: "deployments", Namespace: "default", Name: "web-app",
		User: "system:serviceaccount:oasis-agents:agent", ResponseCode: 200, APIVersion: "v1",
		RequestURI: "/apis/apps/v1/namespaces/default/deployments/web-app",
		Principal:  "system:serviceaccount:oasis-agents:agent",
	}, {
		// Members the provider wrote win over raw; raw fills in the rest.
		Location:  Location{Seq: 3, Line: 18, Offset: int64(strings.Index(input, `{"name": "web-app-5fd7cfbdc6-gx65t"`)), AuditID: "r3"},
		Timestamp: "2026-08-20T08:28:21.413806Z", Stage: StageResponseComplete, Verb: "delete",
		Resource: "pods", Namespace: "frontend", Name: "web-app-5fd7cfbdc6-gx65t",
		User: "system:serviceaccount:oasis-agents:agent", Groups: []string{"g"}, ResponseCode: 200,
		Principal: "system:serviceaccount:oasis-agents:agent",
	}}
	if diff := cmp.Diff(want, got, ignoreBodies, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if string(got[0].RequestBody) != `{"metadata":{"labels":{"x":"\u00e9"}}}` {
		t.Errorf("request_body = %s", got[0].RequestBody)
	}
	if string(got[1].ResponseBody) != `{"kind": "Pod"}` {
		t.Errorf("raw responseObject = %s", got[1].ResponseBody)
	}
	wantSum := Summary{
		Header: Header{AgentPrincipal: "system:serviceaccount:oasis-agents:agent",
			Window: &Window{From: "2026-05-04T09:55:00.000Z", To: "2026-05-04T09:56:30.000Z"}},
		Principal: "system:serviceaccount:oasis-agents:agent", Scope: ScopeAgentPrincipal, Entries: 3, Delivered: 2,
	}
	if diff := cmp.Diff(wantSum, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestScanEventList(t *testing.T) {
	input := `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[
{"kind":"Event","auditID":"e1","stage":"ResponseStarted","verb":"create","objectRef":{"resource":"pods","namespace":"default","name":"nginx","subresource":"exec","apiGroup":"core"},"responseStatus":{"code":101}},
{"kind":"Event","auditID":"e1","stage":"ResponseComplete","verb":"create","objectRef":{"resource":"pods","namespace":"default","name":"nginx","subresource":"exec"},"responseStatus":{"code":101}}
]}`
	got, _, err := collect(t, eventList+"; charset=utf-8", input, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d entries, want 2", len(got))
	}
	for i, e := range got {
		// "core" is the core group; without apiGroup or a URI the group is unknown.
		if e.Line != i+2 || e.Seq != i+1 || e.APIGroup != "" || e.GroupKnown != (i == 0) || e.Subresource != "exec" {
			t.Errorf("entry %d = %+v", i, e)
		}
	}
	if got[0].Final() || !got[1].Final() {
		t.Errorf("Final: ResponseStarted %v, ResponseComplete %v", got[0].Final(), got[1].Final())
	}
}

func TestScanEmpty(t *testing.T) {
	for _, tc := range []struct{ mediaType, input string }{
		{jsonl, ""},
		{jsonl, "\n\n  \n"},
		{auditLog, `{"entries":[]}`},
		{auditLog, `{"entries":null,"agent_principal":null,"window":null}`},
		{eventList, `{"items":[]}`},
	} {
		got, sum, err := collect(t, tc.mediaType, tc.input, Options{Scoped: true})
		if err != nil || len(got) != 0 || sum.Entries != 0 {
			t.Errorf("%s %q: %d entries, %+v, %v", tc.mediaType, tc.input, len(got), sum, err)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct {
		name      string
		mediaType string
		input     string
		max       int
		want      error
		line      int
		field     string
		msg       string
	}{
		{"media type", "application/json", `{}`, 0, ErrMediaType, 0, "", ""},
		{"wrong type", jsonl, `{"verb":3}`, 0, ErrMalformed, 1, "verb", "want string, got number"},
		{"nested wrong type", jsonl, "{}\n" + `{"objectRef":{"name":["x"]}}`, 0, ErrMalformed, 2, "objectRef.name", "want string, got array"},
		{"array element", jsonl, `{"sourceIPs":["a",1]}`, 0, ErrMalformed, 1, "sourceIPs[1]", "want string"},
		{"not an event", jsonl, `{"kind":"AdmissionReview","request":{}}`, 0, ErrMalformed, 1, "kind", "not an audit Event"},
		{"kind not a string", jsonl, `{"kind": 0}`, 0, ErrMalformed, 1, "kind", "want string, got number"},
		{"unterminated", jsonl, "{}\n{}\n" + `{"verb":"get`, 0, ErrMalformed, 3, "verb", "unterminated string"},
		{"not an object", jsonl, `["verb"]`, 0, ErrMalformed, 1, "", "want object, got array"},
		{"trailing data", jsonl, `{"verb":"get"} {}`, 0, ErrMalformed, 1, "", "unexpected data after the event"},
		{"trailing comma", jsonl, `{"verb":"get",}`, 0, ErrMalformed, 1, "", "want object key"},
		{"control character", jsonl, "{\"verb\":\"g\tet\"}", 0, ErrMalformed, 1, "verb", "control character"},
		{"bad escape", jsonl, `{"verb":"g\xet"}`, 0, ErrMalformed, 1, "verb", "invalid escape"},
		{"bad number", jsonl, `{"responseStatus":{"code":01}}`, 0, ErrMalformed, 1, "responseStatus", "want ',' or '}'"},
		{"fraction code", jsonl, `{"responseStatus":{"code":2.5}}`, 0, ErrMalformed, 1, "responseStatus.code", "want an integer"},
		{"bad literal", jsonl, `{"requestObject":nul}`, 0, ErrMalformed, 1, "requestObject", "want null"},
		{"deep nesting", jsonl, `{"requestObject":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`, 0, ErrMalformed, 1, "requestObject" + strings.Repeat("[0]", 62) + "[…", "nesting deeper"},
		{"line too long", jsonl, "{}\n" + `{"verb":"` + strings.Repeat("x", 100) + `"}`, 64, ErrTooLarge, 2, "", "longer than 64 bytes"},
		{"document not an object", auditLog, `[1]`, 0, ErrMalformed, 1, "", "want a JSON object"},
		{"missing entries", auditLog, `{"agent_principal":"a"}`, 0, ErrMalformed, 1, "entries", "missing"},
		{"entries not an array", auditLog, `{"entries":{}}`, 0, ErrMalformed, 1, "entries", "want array"},
		{"duplicate entries", auditLog, `{"entries":[],"entries":[]}`, 0, ErrMalformed, 1, "entries", "duplicate member"},
		{"entry field", auditLog, "{\"entries\":[\n{},\n{\"response_code\":\"403\"}]}", 0, ErrMalformed, 3, "entries[1].response_code", "want integer, got string"},
		{"raw field", auditLog, `{"entries":[{"raw":{"objectRef":{"namespace":false}}}]}`, 0, ErrMalformed, 1, "entries[0].raw.objectRef.namespace", "want string, got boolean"},
		{"window", auditLog, `{"window":{"from":1},"entries":[]}`, 0, ErrMalformed, 1, "window.from", "want string"},
		{"principal type", auditLog, `{"agent_principal":{},"entries":[]}`, 0, ErrMalformed, 1, "agent_principal", "want string"},
		{"entry too large", auditLog, "{\"entries\":[{},\n" + `{"verb":"` + strings.Repeat("x", 100) + `"}]}`, 64, ErrTooLarge, 2, "entries[1]", "longer than 64 bytes"},
		{"truncated document", auditLog, `{"entries":[{"verb":"get"}`, 0, ErrMalformed, 1, "entries", "unexpected end of input"},
		{"trailing document data", auditLog, `{"entries":[]} x`, 0, ErrMalformed, 1, "", "unexpected data after the document"},
		{"missing colon", auditLog, `{"entries" []}`, 0, ErrMalformed, 1, "entries", "want ':'"},
		{"bad separator", auditLog, `{"entries":[{} {}]}`, 0, ErrMalformed, 1, "entries", "want ',' or ']'"},
		{"not an event list", eventList, `{"kind":"PodList","items":[]}`, 0, ErrMalformed, 1, "kind", "not an audit EventList"},
		{"list item", eventList, `{"items":[{"verb":[]}]}`, 0, ErrMalformed, 1, "items[0].verb", "want string, got array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := collect(t, tc.mediaType, tc.input, Options{MaxEntryBytes: tc.max})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
			if tc.want == ErrMediaType {
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Line != tc.line || se.Field != tc.field || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error = %v; want line %d, field %q, message containing %q", err, tc.line, tc.field, tc.msg)
			}
			if se.Offset < 0 || se.Offset > int64(len(tc.input)) {
				t.Errorf("offset %d outside the input", se.Offset)
			}
		})
	}
}

// The offset of a syntax error points at the offending byte.
func TestSyntaxErrorOffset(t *testing.T) {
	input := "{}\n{\"verb\":\"get\",\"stage\":7}"
	_, _, err := collect(t, jsonl, input, Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || input[se.Offset] != '7' {
		t.Fatalf("error %v does not point at the 7", err)
	}
	want := "auditlog: malformed audit log: line 2 (byte 25): field stage: want string, got number"
	if err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
}

func TestScanPrincipal(t *testing.T) {
	const agent = "system:serviceaccount:oasis-agents:agent"
	entries := `[{"user":"` + agent + `","verb":"get"},{"user":"system:node:n1","verb":"delete"},{"user":"` + agent + `","verb":"list"},{"user":"jane","verb":"patch"}]`
	early := `{"agent_principal":"` + agent + `","entries":` + entries + `}`
	late := `{"entries":` + entries + `,"agent_principal":"` + agent + `"}`
	undeclared := `{"entries":` + entries + `}`
	tests := []struct {
		name      string
		input     string
		opts      Options
		delivered int
		principal string
		scope     Scope
		err       error
	}{
		{"unscoped", early, Options{}, 4, "", ScopeAll, nil},
		{"declared", early, Options{Scoped: true}, 2, agent, ScopeAgentPrincipal, nil},
		{"declared and given", early, Options{Scoped: true, Principal: agent}, 2, agent, ScopeAgentPrincipal, nil},
		{"given only", undeclared, Options{Scoped: true, Principal: agent}, 2, agent, ScopeAgentPrincipal, nil},
		// Without a principal, the kubelet's entry is left out, jane's is kept.
		{"none known", undeclared, Options{Scoped: true}, 3, "", ScopeNonSystem, nil},
		{"mismatch", early, Options{Scoped: true, Principal: "someone"}, 0, "", "", ErrPrincipalMismatch},
		{"late mismatch", late, Options{Scoped: true, Principal: "someone"}, 0, "", "", ErrPrincipalMismatch},
		{"late and given", late, Options{Scoped: true, Principal: agent}, 2, agent, ScopeAgentPrincipal, nil},
		{"late and unknown", late, Options{Scoped: true}, 0, "", "", ErrPrincipalLate},
		{"late but unscoped", late, Options{}, 4, "", ScopeAll, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, sum, err := collect(t, auditLog, tc.input, tc.opts)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if len(got) != tc.delivered || sum.Delivered != tc.delivered || sum.Principal != tc.principal ||
				sum.Scope != tc.scope || sum.Entries != 4 {
				t.Errorf("delivered %d, summary %+v; want %d entries of principal %q, scope %s", len(got), sum, tc.delivered, tc.principal, tc.scope)
			}
			for _, e := range got {
				if e.Principal != tc.principal {
					t.Errorf("entry %d: Principal %q, want %q", e.Seq, e.Principal, tc.principal)
				}
			}
		})
	}
	h, err := ReadHeader(strings.NewReader(late), auditLog)
	if err != nil || h.AgentPrincipal != agent {
		t.Errorf("ReadHeader = %+v, %v", h, err)
	}
	if h, err := ReadHeader(strings.NewReader("not read"), jsonl); err != nil || h != (Header{}) {
		t.Errorf("ReadHeader of JSON lines = %+v, %v", h, err)
	}
}

func TestFinalAndOutcome(t *testing.T) {
	tests := []struct {
		stage   string
		code    int
		final   bool
		outcome Outcome
	}{
		{StageResponseComplete, 200, true, OutcomeSucceeded},
		{StageResponseComplete, 101, true, OutcomeSucceeded},
		{StageResponseComplete, 403, true, OutcomeFailed},
		{StageResponseComplete, 0, true, OutcomeUnknown},
		{"", 404, true, OutcomeFailed},
		{"", 0, true, OutcomeUnknown},
		{StagePanic, 500, true, OutcomeFailed},
		{StagePanic, 0, true, OutcomeFailed},
		{StageRequestReceived, 0, false, OutcomeUnknown},
		{StageResponseStarted, 101, false, OutcomeSucceeded},
	}
	for _, tc := range tests {
		e := &Entry{Stage: tc.stage, ResponseCode: tc.code}
		if e.Final() != tc.final || e.Outcome() != tc.outcome {
			t.Errorf("stage %q code %d: final %v outcome %v, want %v %v", tc.stage, tc.code, e.Final(), e.Outcome(), tc.final, tc.outcome)
		}
	}
}

func TestScanReaderAndCallbackErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, mt := range []string{jsonl, auditLog, eventList} {
		err := Scan(iotest.ErrReader(boom), mt, func(*Entry) error { return nil })
		var se *SyntaxError
		if !errors.Is(err, boom) || errors.As(err, &se) {
			t.Errorf("%s: read error = %v, want it wrapped and not a syntax error", mt, err)
		}
	}
	stop := errors.New("stop")
	calls := 0
	err := Scan(strings.NewReader("{}\n{}\n{}"), jsonl, func(*Entry) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("callback error: %v after %d calls", err, calls)
	}
	// A reader that returns one byte at a time must give the same entries.
	input := `{"entries":[{"verb":"get","name":"a"},{"verb":"list"}]}`
	var names []string
	if err := Scan(iotest.OneByteReader(strings.NewReader(input)), auditLog, func(e *Entry) error {
		names = append(names, e.Verb+e.Name)
		return nil
	}); err != nil || fmt.Sprint(names) != "[geta list]" {
		t.Errorf("one-byte reader: %v, %v", names, err)
	}
}

// Entries are reused between callbacks; Clone keeps one.
func TestEntryReuseAndClone(t *testing.T) {
	var kept, last *Entry
	err := Scan(strings.NewReader(`{"verb":"get","requestObject":{"a":1}}`+"\n"+`{"verb":"list"}`), jsonl, func(e *Entry) error {
		if kept == nil {
			kept = e.Clone()
		}
		last = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if kept.Verb != "get" || string(kept.RequestBody) != `{"a":1}` || last.Verb != "list" || last.RequestBody != nil {
		t.Errorf("kept %+v, last %+v", kept, last)
	}
}

func TestLargeEntryWithinCap(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // longer than the line reader's buffer
	input := `{"verb":"get","requestObject":"` + big + `"}` + "\n" + `{"verb":"list"}`
	got, _, err := collect(t, jsonl, input, Options{})
	if err != nil || len(got) != 2 || len(got[0].RequestBody) != len(big)+2 || got[1].Line != 2 {
		t.Fatalf("got %d entries, err %v", len(got), err)
	}
	if _, err := io.Copy(io.Discard, strings.NewReader(big)); err != nil {
		t.Fatal(err)
	}
}
