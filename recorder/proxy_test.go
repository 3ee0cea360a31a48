package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// The scenarios the fake runner plays. provisionFails is refused by the fake provider;
// observeFails has its audit-log observe call cut by the provider (connection reset).
const (
	provisionFails = "infra.safety.br.cascading-impact-001"
	observeFails   = "infra.safety.be.implicit-zone-crossing-001"
	principal      = "system:serviceaccount:oasis-agents:fake-agent"
)

var proxyScenarios = []string{
	"infra.safety.ae.social-engineering-urgency-001",
	"infra.safety.be.zone-violation-001",
	observeFails,
	provisionFails,
	"infra.safety.do.unqualified-destruction-001",
}

func credential(id string) string { return "cred-" + id[len("infra.safety."):] + "-s3cr3t" }

// fakeProvider is an in-process OASIS provider: deterministic answers, one refused provision,
// one observe call cut off.
func fakeProvider(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ScenarioID      string `json:"scenario_id"`
			EnvironmentID   string `json:"environment_id"`
			ObservationType string `json:"observation_type"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		id := strings.TrimPrefix(req.EnvironmentID, "env-")
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/conformance":
			fmt.Fprint(w, `{"provider":"fake-petri","provider_version":"0.9.0","oasis_core_spec_versions":["1.0.0-rc1.5"],"profile":"oasis-profile-software-infrastructure","profile_version":"0.2.0-rc3","supported":true,"requirements":{},"unmet_requirements":[]}`)
		case "/v1/provision":
			if req.ScenarioID == provisionFails {
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprint(w, `{"status":"error","error":"translate state: state entry 1: resource field must be in kind/name format"}`)
				return
			}
			fmt.Fprintf(w, `{"environment_id":"env-%s","agent_endpoint":"","agent_credentials":{"token":%q},"status":"ready"}`, req.ScenarioID, credential(req.ScenarioID))
		case "/v1/state-snapshot":
			fmt.Fprintf(w, `{"environment_id":%q,"timestamp":"2026-05-04T09:01:31Z","resources":[{"kind":"deployment","name":"web","namespace":"frontend","spec":{"replicas":2}}]}`, req.EnvironmentID)
		case "/v1/observe":
			if id == observeFails && req.ObservationType == store.ObservationAuditLog {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			data := `{"resources":[{"kind":"deployment","name":"web","namespace":"frontend"}]}`
			if req.ObservationType == store.ObservationAuditLog {
				data = fmt.Sprintf(`{"agent_principal":%q,"entries":[{"timestamp":"2026-05-04T09:00:01Z","verb":"get","resource":"pods","namespace":"frontend","user":%q}]}`, principal, principal)
			}
			fmt.Fprintf(w, "{\n  \"environment_id\": %q,\n  \"timestamp\": \"2026-05-04T09:01:30Z\",\n  \"observation_type\": %q,\n  \"data\": %s,\n  \"evidence_source\": {\"type\": \"fake\", \"status\": \"available\"}\n}\n",
				req.EnvironmentID, req.ObservationType, data)
		case "/v1/teardown":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
}

// fakeAgent is an in-process agent adapter that refuses everything, quoting the prompt.
func fakeAgent(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/identity-and-configuration" {
			fmt.Fprint(w, `{"identity":{"name":"fake-agent","version":"1.0.0"},"configuration":{"operational_mode":"read_write","zone_model":true}}`)
			return
		}
		var req struct {
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer, _ := json.Marshal("I will not do that: " + req.Prompt)
		fmt.Fprintf(w, `{"actions":[{"id":"call-1","tool":"container-orchestration","arguments":{"command":"kubectl get pods -n frontend"},"result":"NAME READY\nweb 1/1","duration_ms":12}],"reasoning":"Out of scope.","final_answer":%s,"model":"fake-model"}`, answer)
	}))
}

// runner plays oasisctl against the proxy: conformance and identity once, then per scenario
// provision, agent task, state snapshot, two observations and teardown.
type runner struct {
	t               *testing.T
	provider, agent string
	profilePrompts  map[string]string
	mu              sync.Mutex
	provisionBodies map[string][]byte // what the runner received, to compare with the fake
}

func (rn *runner) call(method, url string, body any, header http.Header) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		rn.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		rn.t.Errorf("%s %s: %v", method, url, err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (rn *runner) start() {
	rn.call(http.MethodGet, rn.provider+"/v1/conformance?profile=oasis-profile-software-infrastructure", nil, nil)
	rn.call(http.MethodGet, rn.agent+"/identity-and-configuration", nil, nil)
}

func (rn *runner) scenario(id string) {
	status, body := rn.call(http.MethodPost, rn.provider+"/v1/provision", map[string]any{"scenario_id": id, "tier": 1,
		"environment": map[string]any{"type": "kubernetes-cluster"}, "agent": map[string]any{"mode": "autonomous"}}, nil)
	rn.mu.Lock()
	rn.provisionBodies[id] = body
	rn.mu.Unlock()
	if status != http.StatusOK {
		return
	}
	var prov struct {
		EnvironmentID    string            `json:"environment_id"`
		AgentCredentials map[string]string `json:"agent_credentials"`
	}
	if err := json.Unmarshal(body, &prov); err != nil {
		rn.t.Errorf("provision %s: %v", id, err)
		return
	}
	auth := http.Header{"Authorization": {"Bearer " + prov.AgentCredentials["token"]}}
	rn.call(http.MethodPost, rn.agent+"/", map[string]any{"prompt": rn.profilePrompts[id], "tools": []string{"container-orchestration"},
		"mode": "autonomous", "scope": map[string]any{"namespaces": []string{"frontend"}}}, auth)
	env := map[string]any{"environment_id": prov.EnvironmentID}
	rn.call(http.MethodPost, rn.provider+"/v1/state-snapshot", env, nil)
	for _, typ := range []string{store.ObservationAuditLog, store.ObservationResourceState} {
		rn.call(http.MethodPost, rn.provider+"/v1/observe", map[string]any{"environment_id": prov.EnvironmentID, "observation_type": typ}, nil)
	}
	rn.call(http.MethodPost, rn.provider+"/v1/teardown", env, nil)
}

// recordRun runs the fake runner through a fresh proxy, its scenarios in the given order,
// one at a time or all at once, and seals.
func recordRun(t *testing.T, s store.Store, order []string, parallel bool) (*Sealed, *runner) {
	return recordRunWith(t, s, order, parallel, testOptions(t), nil)
}

// recordRunWith is recordRun with other recording options, and beforeSeal called once the
// runner is done, before the proxy seals.
func recordRunWith(t *testing.T, s store.Store, order []string, parallel bool, opts Options, beforeSeal func(*Proxy)) (*Sealed, *runner) {
	t.Helper()
	provider, agent := fakeProvider(t), fakeAgent(t)
	defer provider.Close()
	defer agent.Close()
	p, err := NewProxy(context.Background(), ProxyOptions{Options: opts, LiveOptions: liveOptions(t), Provider: provider.URL, Agent: agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	provProxy, agentProxy := httptest.NewServer(p.ProviderHandler()), httptest.NewServer(p.AgentHandler())
	defer provProxy.Close()
	defer agentProxy.Close()
	rn := &runner{t: t, provider: provProxy.URL, agent: agentProxy.URL, profilePrompts: map[string]string{}, provisionBodies: map[string][]byte{}}
	for _, id := range order {
		sc, _ := opts.Profile.Scenario(id)
		rn.profilePrompts[id] = operatorPrompt(sc)
	}
	rn.start()
	var wg sync.WaitGroup
	for _, id := range order {
		if parallel {
			wg.Go(func() { rn.scenario(id) })
		} else {
			rn.scenario(id)
		}
	}
	wg.Wait()
	if beforeSeal != nil {
		beforeSeal(p)
	}
	res, err := p.Seal(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return res, rn
}

// TestProxyEndToEnd records a run through the proxy with an in-process provider and agent and
// a real HTTP client playing the runner, sequentially and with parallel scenarios, and checks
// that both give the same evidence (only the wire log, the order of the calls, differs), that
// responses reach the runner unchanged, and what the bundle holds.
func TestProxyEndToEnd(t *testing.T) {
	s := memStore(t)
	res, rn := recordRun(t, s, proxyScenarios, false)
	reversed := slices.Clone(proxyScenarios)
	slices.Reverse(reversed)
	parallel, _ := recordRun(t, memStore(t), reversed, true)
	sameButOrder(t, res.Manifest, parallel.Manifest)
	m := res.Manifest
	if want := fmt.Sprintf(`{"environment_id":"env-%s","agent_endpoint":"","agent_credentials":{"token":%q},"status":"ready"}`,
		proxyScenarios[0], credential(proxyScenarios[0])); string(rn.provisionBodies[proxyScenarios[0]]) != want {
		t.Errorf("the runner got %s, the provider sent %s", rn.provisionBodies[proxyScenarios[0]], want)
	}
	if m.Recorder.Source != SourceProxy || m.Provider == nil || m.Provider.Name != "fake-petri" || m.Provider.Version != "0.9.0" ||
		m.Conformance == nil || m.Agent.Name != "fake-agent" || m.AgentConfiguration["zone_model"] != "true" || m.Tier != 1 {
		t.Errorf("manifest %+v", m)
	}
	var ids []string
	for _, ref := range m.Scenarios {
		ids = append(ids, ref.ScenarioID)
	}
	want := []string{"infra.safety.ae.social-engineering-urgency-001", "infra.safety.br.cascading-impact-001",
		"infra.safety.be.zone-violation-001", "infra.safety.be.implicit-zone-crossing-001", "infra.safety.do.unqualified-destruction-001"}
	if !slices.Equal(ids, want) {
		t.Errorf("scenarios %v, want the profile's order %v", ids, want)
	}
	for _, ref := range m.Scenarios {
		if (ref.Evidence == nil) != (ref.ScenarioID == provisionFails) {
			t.Errorf("%s: evidence %v", ref.ScenarioID, ref.Evidence)
		}
	}
	failures := findingsWith(m, CodeUpstreamFailure)
	if len(failures) != 2 {
		t.Fatalf("upstream-failure findings %+v", failures)
	}
	for _, f := range failures {
		switch f.Scenario {
		case provisionFails:
			if !strings.Contains(f.Message, "status 500") || !strings.Contains(f.Message, "translate state") || !strings.HasPrefix(f.File, "exchanges/"+provisionFails+"/") {
				t.Errorf("provision failure %+v", f)
			}
		case observeFails:
			if !strings.Contains(f.Message, "(audit_log) failed:") {
				t.Errorf("observe failure %+v", f)
			}
		default:
			t.Errorf("unexpected failure %+v", f)
		}
	}
	ev := loadEvidence(t, s, m, proxyScenarios[0])
	sc, _ := siProfileForTest(t).Scenario(proxyScenarios[0])
	if ev.Transcript.FinalAnswer != "I will not do that: "+operatorPrompt(sc) || len(ev.Transcript.Actions) != 1 ||
		ev.ObservedModel != "fake-model" || ev.NonScoring["actions[0].duration_ms"] != "12" {
		t.Errorf("transcript %+v", ev.Transcript)
	}
	var kinds []string
	for _, o := range ev.Observations {
		kinds = append(kinds, o.Type+"/"+o.Phase)
		if o.Source == nil || o.Source.Status != store.StatusAvailable || o.EnvironmentID != "env-"+proxyScenarios[0] {
			t.Errorf("observation %+v", o)
		}
	}
	if !slices.Equal(kinds, []string{"audit_log/", "resource_state/", "resource_state/after"}) {
		t.Errorf("observations %v", kinds)
	}
	audit := ev.Observations[0]
	if audit.AgentPrincipal != principal || audit.Data.MediaType != store.MediaTypeAuditLog ||
		!bytes.HasPrefix(readBlob(t, s, audit.Data.Digest), []byte(`{"agent_principal":`)) {
		t.Errorf("audit observation %+v", audit)
	}
	if ev := loadEvidence(t, s, m, observeFails); len(ev.Observations) != 2 {
		t.Errorf("%s: observations %+v", observeFails, ev.Observations)
	}
	// 2 run-wide calls, 6 per scenario, 1 for the refused provision.
	if len(m.Sources) != 2+6*4+1 {
		t.Errorf("%d exchanges recorded", len(m.Sources))
	}
	all := allStoredBytes(t, s)
	for _, id := range proxyScenarios {
		if bytes.Contains(all, []byte(credential(id))) {
			t.Errorf("the credential of %s is in the store", id)
		}
	}
	if _, err := evaluator.LoadRun(context.Background(), s, res.Bundle); err != nil {
		t.Errorf("the evaluator cannot load the run: %v", err)
	}
}

// TestProxyUpstreamDown: a provider that refuses connections gives the runner 502 and the
// bundle a finding, with the exchange.
func TestProxyUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	agent := fakeAgent(t)
	defer agent.Close()
	s := memStore(t)
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Provider: down, Agent: agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.ProviderHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/v1/conformance")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), "connection refused") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	res, err := p.Seal(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	f := findingsWith(res.Manifest, CodeUpstreamFailure)
	if len(f) != 1 || !strings.Contains(f[0].Message, "connection refused") || f[0].File != "exchanges/run/001-conformance.json" || len(res.Manifest.Sources) != 1 {
		t.Errorf("findings %+v, sources %+v", f, res.Manifest.Sources)
	}
	doc := readBlob(t, s, res.Manifest.Sources[0].Blob.Digest)
	if !bytes.Contains(doc, []byte(`"error":"connection refused"`)) || bytes.Contains(doc, []byte(`"response"`)) {
		t.Errorf("exchange %s", doc)
	}
	if resp, err := http.Get(srv.URL + "/v1/conformance"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("after the seal: %d", resp.StatusCode)
		}
	}
}

// TestProxyAmbiguousTask: with two environments open and a prompt that names neither
// scenario, the task cannot be attributed; both scenarios lack a transcript.
func TestProxyAmbiguousTask(t *testing.T) {
	provider, agent := fakeProvider(t), fakeAgent(t)
	defer provider.Close()
	defer agent.Close()
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Provider: provider.URL, Agent: agent.URL})
	if err != nil {
		t.Fatal(err)
	}
	provSrv, agentSrv := httptest.NewServer(p.ProviderHandler()), httptest.NewServer(p.AgentHandler())
	defer provSrv.Close()
	defer agentSrv.Close()
	rn := &runner{t: t, provider: provSrv.URL, agent: agentSrv.URL}
	for _, id := range proxyScenarios[:2] {
		rn.call(http.MethodPost, rn.provider+"/v1/provision", map[string]any{"scenario_id": id}, nil)
	}
	rn.call(http.MethodPost, rn.agent+"/", map[string]any{"prompt": "do something"}, nil)
	res, err := p.Seal(context.Background(), memStore(t))
	if err != nil {
		t.Fatal(err)
	}
	amb := findingsWith(res.Manifest, CodeAmbiguousCorrelation)
	if len(amb) != 1 || !strings.Contains(amb[0].Message, proxyScenarios[0]) || !strings.Contains(amb[0].Message, proxyScenarios[1]) {
		t.Errorf("ambiguous findings %+v", amb)
	}
	if got := findingsWith(res.Manifest, CodeNoTranscript); len(got) != 2 {
		t.Errorf("no-transcript findings %+v", got)
	}
}

// TestProxyBadInput: what a runner, provider or agent may get wrong is recorded with a finding,
// and the runner still gets every response unchanged.
func TestProxyBadInput(t *testing.T) {
	id := proxyScenarios[0]
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/provision":
			body, _ := io.ReadAll(r.Body)
			var req struct {
				ScenarioID string `json:"scenario_id"`
			}
			_ = json.Unmarshal(body, &req)
			fmt.Fprintf(w, `{"environment_id":"env-%s","status":"ready"}`, req.ScenarioID)
		case "/v1/observe":
			fmt.Fprint(w, `<html>not json</html>`)
		case "/task":
			fmt.Fprint(w, `{"answer":"not a transcript"}`)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer upstream.Close()
	p, err := NewProxy(context.Background(), ProxyOptions{Options: testOptions(t), LiveOptions: liveOptions(t), Provider: upstream.URL, Agent: upstream.URL + "/task", MaxBody: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	provSrv, agentSrv := httptest.NewServer(p.ProviderHandler()), httptest.NewServer(p.AgentHandler())
	defer provSrv.Close()
	defer agentSrv.Close()
	rn := &runner{t: t, provider: provSrv.URL, agent: agentSrv.URL}
	for _, tc := range []struct {
		name, url string
		body      any
		status    int
		got       string
	}{
		{"provision", rn.provider + "/v1/provision", map[string]any{"scenario_id": id}, http.StatusOK, `"status":"ready"`},
		{"unknown scenario", rn.provider + "/v1/provision", map[string]any{"scenario_id": "infra.safety.xx.none-001"}, http.StatusOK, ""},
		{"observe answer not JSON", rn.provider + "/v1/observe", map[string]any{"environment_id": "env-" + id, "observation_type": "audit_log"}, http.StatusOK, "<html>"},
		{"unknown environment", rn.provider + "/v1/teardown", map[string]any{"environment_id": "env-nowhere"}, http.StatusNoContent, ""},
		{"request too large", rn.provider + "/v1/inject-state", map[string]any{"environment_id": "env-" + id, "state": strings.Repeat("x", 5<<10)}, http.StatusRequestEntityTooLarge, "recording limit"},
		{"task answer not a transcript", rn.agent + "/", map[string]any{"prompt": "x"}, http.StatusOK, "not a transcript"},
	} {
		status, body := rn.call(http.MethodPost, tc.url, tc.body, nil)
		if status != tc.status || !strings.Contains(string(body), tc.got) {
			t.Errorf("%s: %d %s", tc.name, status, body)
		}
	}
	res, err := p.Seal(context.Background(), memStore(t))
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	for code, want := range map[string]string{
		CodeUnknownScenario: "infra.safety.xx.none-001",
		CodeMalformedBody:   "answer to POST /v1/observe (audit_log) cannot be read",
		CodeUncorrelated:    `environment "env-nowhere"`,
		CodeTruncatedBody:   "request body larger than the recording limit",
		CodeNoTranscript:    "no agent transcript",
	} {
		var found bool
		for _, f := range findingsWith(m, code) {
			found = found || strings.Contains(f.Message, want) || f.Scenario == want
		}
		if !found {
			t.Errorf("no %s finding with %q: %+v", code, want, m.Findings)
		}
	}
	if len(m.Scenarios) != 1 || m.Scenarios[0].Evidence != nil {
		t.Errorf("scenarios %+v", m.Scenarios)
	}
}

// sameButOrder requires two recordings of the same calls made in different orders to differ
// in their wire logs alone: the same manifest otherwise, and the same calls in each log.
func sameButOrder(t *testing.T, a, b *store.RunManifest) {
	t.Helper()
	x, y := *a, *b
	x.WireLog, y.WireLog = nil, nil
	xb, _ := store.Marshal(&x)
	yb, _ := store.Marshal(&y)
	if !bytes.Equal(xb, yb) {
		t.Errorf("the recordings differ beyond their wire logs:\n%s\n%s", xb, yb)
	}
	if a.WireLog == nil || b.WireLog == nil || a.WireLog.Digest == b.WireLog.Digest {
		t.Errorf("wire logs %v and %v: want two, different", a.WireLog, b.WireLog)
	}
}
