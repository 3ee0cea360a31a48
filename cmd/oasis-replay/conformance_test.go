package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// conformanceStore makes a store holding the SI profile, and with extra the example profile
// too, and returns its directory.
func conformanceStore(t *testing.T, extra bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	replaytest.ImportSI(t, s)
	if extra {
		if _, err := profiles.Import(context.Background(), s, example.ProfileFS(), profiles.ImportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// provider is an httptest provider that answers GET /v1/conformance with status and body,
// and remembers the requests it got.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

func newProvider(t *testing.T, status int, body []byte) *provider {
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests = append(p.requests, r.Method+" "+r.URL.RequestURI())
		p.mu.Unlock()
		if status == 0 { // never answers in time
			<-r.Context().Done()
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(p.Close)
	return p
}

// refusedURL is the URL of a port nothing listens on.
func refusedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestConformanceCheck runs conformance check against providers answering the SI contract's
// worked examples (provider-conformance.md §5), with the versions the contract pins or as
// written, and against providers that fail in each way the check tells apart.
func TestConformanceCheck(t *testing.T) {
	dir := conformanceStore(t, false)
	examples := profiletest.ConformanceExamples(t)
	pinned := func(n string) []byte { return profiletest.PinnedExample(examples[n]) }
	const query = "GET /v1/conformance?profile=oasis-profile-software-infrastructure"
	tests := []struct {
		name   string
		status int
		body   []byte
		url    string // instead of the provider's
		args   []string
		want   int
		stdout []string
		stderr []string
	}{
		{name: "5.1 conformant", status: 200, body: pinned("5.1"), want: exitOK,
			stdout: []string{"provider    http://127.0.0.1:", "/v1/conformance?profile=oasis-profile-software-infrastructure\n",
				"profile     oasis-profile-software-infrastructure 0.2.0-rc3 (tree sha256:", "), tier 1\n",
				"preflight   met: the provider meets every requirement of oasis-profile-software-infrastructure 0.2.0-rc3 at tier 1\n"}},
		{name: "5.2 missing audit policy", status: 200, body: pinned("5.2"), want: exitMismatch,
			stdout: []string{"preflight   not met: 1 unmet requirement(s)", "  unmet     audit_policy_installation: expected true, got false\n",
				"provider does not satisfy oasis-profile-software-infrastructure 0.2.0-rc3 requirement audit_policy_installation: expected true, got false (the provider says: audit policy file not configured on kube-apiserver"}},
		{name: "5.3 missing observation types", status: 200, body: pinned("5.3"), want: exitMismatch,
			stdout: []string{"not met: 2 unmet requirement(s) of oasis-profile-software-infrastructure 0.2.0-rc3 at tier 1: evidence_sources_available, audit_policy_installation",
				`requirement evidence_sources_available: missing "audit_log" (the provider says: missing required observation type 'audit_log'`}},
		{name: "5.1 as written: older profile and core versions", status: 200, body: examples["5.1"], want: exitMismatch,
			stdout: []string{"  unmet     oasis_core_spec_versions: expected a version satisfying >=1.0.0-rc1.5, got [\"1.0.0-rc1\"]",
				`  unmet     profile_version: expected "0.2.0-rc3", got "0.2.0-rc1"`, "  unmet     oasis_core_spec_version:"}},
		{name: "tier above the provider's", status: 200, body: pinned("5.1"), args: []string{"--tier", "2"}, want: exitMismatch,
			stdout: []string{"tier 2\n", "the provider supports up to tier 1 but the run was requested for tier 2"}},
		{name: "500", status: 500, body: []byte("kube-apiserver is\nnot ready\x1b[0m"), want: exitError,
			stderr: []string{"oasis-replay: provider http://127.0.0.1:", ": " + query + ": answered 500 Internal Server Error, not 200 OK: kube-apiserver is not ready?[0m\n"}},
		{name: "404: no conformance endpoint", status: 404, want: exitError, stderr: []string{"answered 404 Not Found, not 200 OK: (empty body)"}},
		{name: "not JSON", status: 200, body: []byte("<html>ok</html>"), want: exitError,
			stderr: []string{query + ": profiles: malformed conformance answer: answer:1:1: unexpected character '<', want a value"}},
		{name: "wrong type at the top level", status: 200, body: []byte(strings.Replace(string(pinned("5.1")), `"supported": true`, `"supported": "true"`, 1)), want: exitError,
			stderr: []string{"malformed conformance answer: answer:7:16: supported: want a boolean, got a string"}},
		{name: "connection refused", url: refusedURL(t), want: exitError,
			stderr: []string{": " + query + ": dial tcp 127.0.0.1:", ": connect: connection refused\n"}},
		{name: "no answer in time", status: 0, args: []string{"--timeout", "200ms"}, want: exitError,
			stderr: []string{query + ": no answer within 200ms (--timeout)"}},
		{name: "base path kept", status: 404, url: "/prefix/", want: exitError,
			stderr: []string{": GET /prefix/v1/conformance?profile=oasis-profile-software-infrastructure: answered 404"}},
		{name: "profile named", status: 200, body: pinned("5.1"), args: []string{"--profile", "oasis-profile-software-infrastructure@0.2.0-rc3"}, want: exitOK},
		{name: "unknown profile", status: 200, body: pinned("5.1"), args: []string{"--profile", "nope@1.0.0"}, want: exitError,
			stderr: []string{`nope@1.0.0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, tt.status, tt.body)
			url := p.URL
			switch {
			case strings.HasPrefix(tt.url, "/"):
				url += tt.url
			case tt.url != "":
				url = tt.url
			}
			status, stdout, stderr := runInStore(dir, append([]string{"conformance", "check", "--provider", url}, tt.args...)...)
			if status != tt.want {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.want, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout does not say %q:\n%s", want, stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr)
				}
			}
			if tt.want != exitError && stderr != "" {
				t.Errorf("stderr:\n%s", stderr)
			}
			if tt.url == "" && tt.want != exitError && (len(p.requests) != 1 || p.requests[0] != query) {
				t.Errorf("the provider got %q, want one %q", p.requests, query)
			}
		})
	}
}

// TestConformanceCheckJSON: --json prints the same outcome as canonical JSON, errors included.
func TestConformanceCheckJSON(t *testing.T) {
	dir := conformanceStore(t, false)
	examples := profiletest.ConformanceExamples(t)
	tests := []struct {
		name       string
		status     int
		body       []byte
		want       int
		jsonStatus string
		httpStatus int
		check      func(t *testing.T, r *conformanceReport)
	}{
		{"conformant", 200, profiletest.PinnedExample(examples["5.1"]), exitOK, "conformant", 200, func(t *testing.T, r *conformanceReport) {
			if r.Preflight == nil || !r.Preflight.Met || r.Answer == nil || r.Error != "" {
				t.Errorf("%+v", r)
			}
		}},
		{"not conformant", 200, profiletest.PinnedExample(examples["5.2"]), exitMismatch, "not-conformant", 200, func(t *testing.T, r *conformanceReport) {
			if u := r.Preflight.Unmet; len(u) != 1 || u[0].Key != "audit_policy_installation" || u[0].Expected != "true" || u[0].Actual != "false" ||
				!strings.HasPrefix(u[0].ProviderReason, "audit policy file not configured") {
				t.Errorf("%+v", r.Preflight)
			}
		}},
		{"malformed", 200, []byte(`{"supported":1}`), exitError, "error", 200, func(t *testing.T, r *conformanceReport) {
			if r.Preflight == nil || r.Preflight.Malformed == "" || !strings.Contains(r.Error, "malformed conformance answer") {
				t.Errorf("%+v", r)
			}
		}},
		{"500", 500, []byte(`{"error":"boom"}`), exitError, "error", 500, func(t *testing.T, r *conformanceReport) {
			if r.Preflight != nil || r.Answer != nil || !strings.Contains(r.Error, `answered 500 Internal Server Error, not 200 OK: {"error":"boom"}`) {
				t.Errorf("%+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProvider(t, tt.status, tt.body)
			status, stdout, stderr := runInStore(dir, "conformance", "check", "--json", "--provider", p.URL)
			if status != tt.want {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", status, tt.want, stdout, stderr)
			}
			var r conformanceReport
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatalf("%v:\n%s", err, stdout)
			}
			if r.Status != tt.jsonStatus || r.HTTPStatus != tt.httpStatus || r.Tier != 1 || r.Profile.ID != "oasis-profile-software-infrastructure" ||
				r.Request != p.URL+"/v1/conformance?profile=oasis-profile-software-infrastructure" {
				t.Errorf("%+v", r)
			}
			tt.check(t, &r)
			if tt.want == exitError && (r.Error == "" || !strings.Contains(stderr, r.Error)) || tt.want != exitError && stderr != "" {
				t.Errorf("stderr %q, error %q", stderr, r.Error)
			}
		})
	}
}

// TestConformanceCheckProfileChoice: without --profile the store's only profile is used;
// with several, the command names them and asks for one.
func TestConformanceCheckProfileChoice(t *testing.T) {
	p := newProvider(t, 200, []byte(`{}`))
	status, _, stderr := runInStore(conformanceStore(t, true), "conformance", "check", "--provider", p.URL)
	if status != exitError || !strings.Contains(stderr, "conformance check: the store holds 2 profiles, name one with --profile: oasis-profile-software-infrastructure@0.2.0-rc3 (sha256:") ||
		!strings.Contains(stderr, "oasis-replay-example-profile@0.1.0 (sha256:") {
		t.Errorf("exit status %d, stderr:\n%s", status, stderr)
	}
	empty := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(empty, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	status, _, stderr = runInStore(empty, "conformance", "check", "--provider", p.URL)
	if status != exitError || !strings.Contains(stderr, "the store holds no profile: import one with profile import DIR") {
		t.Errorf("exit status %d, stderr:\n%s", status, stderr)
	}
	if len(p.requests) != 0 {
		t.Errorf("the provider was asked %q before a profile was chosen", p.requests)
	}
}
