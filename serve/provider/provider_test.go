package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/internal/siworld"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/memstore"
)

// call is one call of the scripted runner and the answer it got.
type call struct {
	side, method, target string
	body                 []byte
	status               int
	header               http.Header
	answer               []byte
}

// endpoints are where the runner sends its calls, by side.
type endpoints map[string]string

// do sends c to ep and fills in the answer.
func (c *call) do(t *testing.T, ep endpoints) {
	t.Helper()
	req, err := http.NewRequest(c.method, ep[c.side]+c.target, bytes.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s %s: %v", c.side, c.method, c.target, err)
	}
	defer resp.Body.Close()
	c.answer, err = io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	c.status, c.header = resp.StatusCode, resp.Header
}

func jsonBody(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// playRunner plays oasisctl's calls against ep (Execution §3: preflight, identity, then per
// scenario provision, task, state snapshot, observations, teardown), one scenario at a time,
// and returns every call with its answer, in order.
func playRunner(t *testing.T, ep endpoints, p *recorder.Profile, run *siworld.Run) []*call {
	t.Helper()
	var calls []*call
	send := func(c *call) *call {
		c.do(t, ep)
		calls = append(calls, c)
		return c
	}
	send(&call{side: "provider", method: http.MethodGet, target: "/v1/conformance?profile=" + p.Pin.ID})
	send(&call{side: "agent", method: http.MethodGet, target: "/identity-and-configuration"})
	for _, sc := range p.Scenarios {
		if _, ok := run.Statuses[sc.ID]; !ok {
			continue
		}
		prov := send(&call{side: "provider", method: http.MethodPost, target: "/v1/provision",
			body: jsonBody(t, map[string]any{"scenario_id": sc.ID, "tier": 1, "environment": map[string]any{"type": "kubernetes-cluster"}})})
		var env struct {
			EnvironmentID string `json:"environment_id"`
		}
		if err := json.Unmarshal(prov.answer, &env); err != nil || env.EnvironmentID == "" {
			continue
		}
		// The task goes to the one environment open, whatever its prompt says.
		send(&call{side: "agent", method: http.MethodPost, target: "/", body: jsonBody(t, map[string]any{"prompt": "the task of " + sc.ID, "mode": "autonomous"})})
		envBody := jsonBody(t, map[string]string{"environment_id": env.EnvironmentID})
		send(&call{side: "provider", method: http.MethodPost, target: "/v1/state-snapshot", body: envBody})
		for _, typ := range []string{store.ObservationAuditLog, store.ObservationResourceState, store.ObservationStateDiff} {
			send(&call{side: "provider", method: http.MethodPost, target: "/v1/observe",
				body: jsonBody(t, map[string]string{"environment_id": env.EnvironmentID, "observation_type": typ})})
		}
		send(&call{side: "provider", method: http.MethodPost, target: "/v1/teardown", body: envBody})
	}
	return calls
}

func memStore(t *testing.T) *memstore.Store {
	t.Helper()
	s := memstore.New()
	t.Cleanup(func() { s.Close() })
	return s
}

var (
	profileOnce sync.Once
	siProfile   *recorder.Profile
	profileErr  error
)

func profileForTest(t *testing.T) *recorder.Profile {
	t.Helper()
	dir := sharedtest.SIProfile(t)
	profileOnce.Do(func() { siProfile, profileErr = recorder.ProfileFromDir(dir, "") })
	if profileErr != nil {
		t.Fatal(profileErr)
	}
	return siProfile
}

// record runs play through record proxy in front of the upstream handlers (nil: an upstream
// that is down) and seals the bundle into s. The upstreams and the proxy are gone when it
// returns, so a replay that reached anything live would fail.
func record(t *testing.T, s store.Store, provider, agent http.Handler, maxBody int64, play func(endpoints)) *recorder.Sealed {
	t.Helper()
	up := endpoints{"provider": "http://127.0.0.1:1", "agent": "http://127.0.0.1:1"} // nil: down
	for side, h := range map[string]http.Handler{"provider": provider, "agent": agent} {
		if h != nil {
			srv := httptest.NewServer(h)
			defer srv.Close()
			up[side] = srv.URL
		}
	}
	p, err := recorder.NewProxy(context.Background(), recorder.ProxyOptions{Options: recorder.Options{Profile: profileForTest(t), Version: "test"},
		LiveOptions: recorder.LiveOptions{Journals: t.TempDir()}, Provider: up["provider"], Agent: up["agent"], MaxBody: maxBody})
	if err != nil {
		t.Fatal(err)
	}
	provProxy, agentProxy := httptest.NewServer(p.ProviderHandler()), httptest.NewServer(p.AgentHandler())
	play(endpoints{"provider": provProxy.URL, "agent": agentProxy.URL})
	provProxy.Close()
	agentProxy.Close()
	sealed, err := p.Seal(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return sealed
}

// serveHTTP serves h until the test ends.
func serveHTTP(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// replayServer loads bundle and serves it until the test ends.
func replayServer(t *testing.T, s Store, bundle store.Digest, opts Options) (*Server, endpoints) {
	t.Helper()
	srv, err := Load(context.Background(), s, bundle, opts)
	if err != nil {
		t.Fatal(err)
	}
	return srv, endpoints{"provider": serveHTTP(t, srv.ProviderHandler()), "agent": serveHTTP(t, srv.AgentHandler())}
}

// recordedSIRun records the runner's calls to the scripted SI world replaying an oasisctl
// fixture run; it returns the calls as the runner saw them live.
func recordedSIRun(t *testing.T, s store.Store, fixture string) (*recorder.Sealed, []*call) {
	t.Helper()
	run, err := siworld.LoadRun(sharedtest.OasisctlRun(t, fixture))
	if err != nil {
		t.Fatal(err)
	}
	world := siworld.New(run, siworld.Options{})
	var live []*call
	sealed := record(t, s, world.ProviderHandler(), world.AgentHandler(), 0, func(ep endpoints) {
		live = playRunner(t, ep, profileForTest(t), run)
	})
	return sealed, live
}

// asRecorded is a live answer as the recording holds it: the provision's agent credentials
// (which the recorder redacts, without a key, as "[REDACTED]") replaced by the marker.
func asRecorded(live []*call) map[string][]byte {
	var creds []string
	for _, c := range live {
		var p struct {
			AgentCredentials map[string]string `json:"agent_credentials"`
		}
		if c.target == "/v1/provision" && json.Unmarshal(c.answer, &p) == nil {
			for _, v := range p.AgentCredentials {
				creds = append(creds, v)
			}
		}
	}
	out := map[string][]byte{}
	for _, c := range live {
		b := c.answer
		for _, cred := range creds {
			b = bytes.ReplaceAll(b, []byte(cred), []byte("[REDACTED]"))
		}
		out[c.side+" "+c.method+" "+c.target+" "+string(c.body)] = b
	}
	return out
}

// TestReplaySIRun records a run of the scripted SI world (every oasisctl fixture run) through
// record proxy, then replays the same calls against the bundle, the world and the proxy gone:
// every call gets the recorded status and body byte for byte, and the recorded headers.
func TestReplaySIRun(t *testing.T) {
	for _, fixture := range []string{"safe", "unsafe", "provider-fault"} {
		t.Run(fixture, func(t *testing.T) {
			s := memStore(t)
			sealed, live := recordedSIRun(t, s, fixture)
			srv, ep := replayServer(t, s, sealed.Bundle, Options{})
			want := asRecorded(live)
			for _, l := range live {
				c := &call{side: l.side, method: l.method, target: l.target, body: l.body}
				c.do(t, ep)
				if c.status != l.status || !bytes.Equal(c.answer, want[c.side+" "+c.method+" "+c.target+" "+string(c.body)]) {
					t.Fatalf("%s %s %s %s: replayed %d %s, recorded %d %s", c.side, c.method, c.target, c.body, c.status, c.answer, l.status, l.answer)
				}
				if !sameHeaders(c.header, l.header) {
					t.Errorf("%s %s: replayed headers %v, live %v", c.method, c.target, c.header, l.header)
				}
			}
			st := srv.Stats()
			if st.Answered != len(live) || st.Repeated != 0 || st.Refused != 0 || st.Failed != 0 || st.Exchanges["provider"]+st.Exchanges["agent"] != len(live) {
				t.Errorf("stats %+v after %d calls", st, len(live))
			}
		})
	}
}

// sameHeaders: the replayed headers are the live ones less Date, and carry a Content-Length
// exactly when the live answer did (its value may differ by a redaction marker).
func sameHeaders(replayed, live http.Header) bool {
	live, replayed = live.Clone(), replayed.Clone()
	delete(live, "Date")
	if (live.Get("Content-Length") == "") != (replayed.Get("Content-Length") == "") {
		return false
	}
	delete(live, "Content-Length")
	delete(replayed, "Content-Length")
	return reflect.DeepEqual(live, replayed)
}

// TestReRecordReplayedRun: the runner recorded again through record proxy while it runs
// against the replay server gives the original's evidence, scenario by scenario, and its
// exchanges, except the provision answers, whose credential is now a marker of another
// length (their Content-Length differs).
func TestReRecordReplayedRun(t *testing.T) {
	s := memStore(t)
	run, err := siworld.LoadRun(sharedtest.OasisctlRun(t, "safe"))
	if err != nil {
		t.Fatal(err)
	}
	world := siworld.New(run, siworld.Options{})
	play := func(ep endpoints) { playRunner(t, ep, profileForTest(t), run) }
	original := record(t, s, world.ProviderHandler(), world.AgentHandler(), 0, play)
	srv, err := Load(context.Background(), s, original.Bundle, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again := record(t, s, srv.ProviderHandler(), srv.AgentHandler(), 0, play)
	if !reflect.DeepEqual(again.Manifest.Scenarios, original.Manifest.Scenarios) {
		t.Errorf("scenarios re-recorded %+v, original %+v", again.Manifest.Scenarios, original.Manifest.Scenarios)
	}
	if len(again.Manifest.Sources) != len(original.Manifest.Sources) {
		t.Fatalf("%d exchanges re-recorded, %d originally", len(again.Manifest.Sources), len(original.Manifest.Sources))
	}
	for i, src := range again.Manifest.Sources {
		if orig := original.Manifest.Sources[i]; src != orig && !strings.HasSuffix(src.Path, "-provision.json") {
			t.Errorf("exchange %s re-recorded as %s, originally %s", src.Path, src.Blob.Digest, orig.Blob.Digest)
		}
	}
}

// TestReplayMatchesJSON: a request body equal to the recorded one as JSON (other member order,
// whitespace) gets the recorded answer; the target must be equal byte for byte.
func TestReplayMatchesJSON(t *testing.T) {
	s := memStore(t)
	sealed, live := recordedSIRun(t, s, "safe")
	_, ep := replayServer(t, s, sealed.Bundle, Options{})
	var observe *call
	for _, l := range live {
		if l.target == "/v1/observe" {
			observe = l
			break
		}
	}
	var fields map[string]string
	if err := json.Unmarshal(observe.body, &fields); err != nil {
		t.Fatal(err)
	}
	reordered := fmt.Sprintf("{\n  \"observation_type\": %q,\n  \"environment_id\": %q\n}\n", fields["observation_type"], fields["environment_id"])
	c := &call{side: "provider", method: http.MethodPost, target: "/v1/observe", body: []byte(reordered)}
	c.do(t, ep)
	if c.status != observe.status || !bytes.Equal(c.answer, observe.answer) {
		t.Errorf("reordered body: %d %s, want the recorded answer", c.status, c.answer)
	}
	c = &call{side: "provider", method: http.MethodPost, target: "/v1/observe?x=1", body: observe.body}
	c.do(t, ep)
	if c.status != http.StatusNotFound {
		t.Errorf("another query: %d %s, want 404", c.status, c.answer)
	}
}

// TestReplayUnknownRequests: a call the bundle holds no answer to gets 404 and a JSON error
// naming side, method, target, a reason and the closest recorded requests; the server keeps
// serving.
func TestReplayUnknownRequests(t *testing.T) {
	s := memStore(t)
	sealed, live := recordedSIRun(t, s, "safe")
	var logged bytes.Buffer
	srv, ep := replayServer(t, s, sealed.Bundle, Options{Log: &logged})
	tests := []struct {
		name                  string
		call                  call
		reason, closestTarget string
	}{
		{"other body", call{side: "provider", method: http.MethodPost, target: "/v1/observe", body: []byte(`{"environment_id":"env-999-x","observation_type":"audit_log"}`)},
			fmt.Sprintf("the bundle holds %d POST /v1/observe requests, none with this body", count(live, "/v1/observe")), "/v1/observe"},
		{"other query", call{side: "provider", method: http.MethodGet, target: "/v1/conformance?profile=other"},
			"the bundle holds provider requests to /v1/conformance only with another method or query", "/v1/conformance?profile=oasis-profile-software-infrastructure"},
		{"unknown path", call{side: "provider", method: http.MethodPost, target: "/v1/reset", body: []byte(`{}`)},
			"the bundle holds no provider request to /v1/reset", "/v1/provision"},
		{"wrong side", call{side: "agent", method: http.MethodGet, target: "/v1/conformance?profile=oasis-profile-software-infrastructure"},
			"the bundle holds no agent request to /v1/conformance", "/identity-and-configuration"},
		{"longer than any recorded", call{side: "agent", method: http.MethodPost, target: "/", body: bytes.Repeat([]byte("x"), 1<<20)},
			"the request body is longer than", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.call
			c.do(t, ep)
			var e callError
			if err := json.Unmarshal(c.answer, &e); err != nil || c.status != http.StatusNotFound || c.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s (%v), want a 404 JSON error", c.status, c.answer, err)
			}
			if e.Status != "error" || e.Side != c.side || e.Method != c.method || e.Target != c.target || !strings.HasPrefix(e.Reason, tt.reason) ||
				e.Error != errorPrefix+c.side+" "+c.method+" "+c.target+": "+e.Reason {
				t.Errorf("error %+v, want reason %q", e, tt.reason)
			}
			if tt.closestTarget != "" && (len(e.Closest) == 0 || len(e.Closest) > maxClosest || e.Closest[0].Target != tt.closestTarget || e.Closest[0].Exchange == "") {
				t.Errorf("closest %+v, want %s first", e.Closest, tt.closestTarget)
			}
		})
	}
	first := &call{side: live[0].side, method: live[0].method, target: live[0].target}
	first.do(t, ep)
	if first.status != http.StatusOK || !bytes.Equal(first.answer, live[0].answer) {
		t.Errorf("after refusals: %d %s", first.status, first.answer)
	}
	if st := srv.Stats(); st.Refused != len(tests) || st.Answered != 1 {
		t.Errorf("stats %+v", st)
	}
	if n := strings.Count(logged.String(), "no recorded answer: "); n != len(tests) {
		t.Errorf("log:\n%s", logged.String())
	}
}

func count(calls []*call, target string) int {
	n := 0
	for _, c := range calls {
		if c.target == target {
			n++
		}
	}
	return n
}

// TestReplayConcurrent: many clients at once, each replaying the whole run, all get the
// recorded answers (every request of the run is recorded once, so repeats are the same).
func TestReplayConcurrent(t *testing.T) {
	s := memStore(t)
	sealed, live := recordedSIRun(t, s, "safe")
	srv, ep := replayServer(t, s, sealed.Bundle, Options{})
	want := asRecorded(live)
	const clients = 8
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for _, l := range live {
				c := &call{side: l.side, method: l.method, target: l.target, body: l.body}
				c.do(t, ep)
				if c.status != l.status || !bytes.Equal(c.answer, want[c.side+" "+c.method+" "+c.target+" "+string(c.body)]) {
					t.Errorf("%s %s: %d %s", c.method, c.target, c.status, c.answer)
					return
				}
			}
		})
	}
	wg.Wait()
	if st := srv.Stats(); st.Answered != clients*len(live) || st.Repeated != (clients-1)*len(live) {
		t.Errorf("stats %+v", st)
	}
}

// TestReplaySequence: equal requests recorded several times are answered in the order they
// were recorded (the wire log's), one per call, then the last again; a bundle without a wire
// log gives the manifest's order.
func TestReplaySequence(t *testing.T) {
	var n int
	var mu sync.Mutex
	counter := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Call", fmt.Sprint(k))
		fmt.Fprintf(w, `{"call":%d}`, k)
	})
	s := memStore(t)
	sealed := record(t, s, counter, counter, 0, func(ep endpoints) {
		for range 3 {
			(&call{side: "provider", method: http.MethodPost, target: "/v1/state-snapshot", body: []byte(`{"environment_id":"e"}`)}).do(t, ep)
		}
	})
	_, ep := replayServer(t, s, sealed.Bundle, Options{})
	for i, want := range []int{1, 2, 3, 3} {
		c := &call{side: "provider", method: http.MethodPost, target: "/v1/state-snapshot", body: []byte(`{ "environment_id": "e" }`)}
		c.do(t, ep)
		if string(c.answer) != fmt.Sprintf(`{"call":%d}`, want) || c.header.Get("X-Call") != fmt.Sprint(want) {
			t.Errorf("call %d: %s (X-Call %s), want call %d", i+1, c.answer, c.header.Get("X-Call"), want)
		}
	}
	withoutLog := *sealed.Manifest
	withoutLog.WireLog = nil
	sources, err := recordedOrder(context.Background(), s, &withoutLog)
	if err != nil || !slices.Equal(sources, sealed.Manifest.Sources) {
		t.Errorf("without a wire log: %v (%v), want the manifest's order %v", sources, err, sealed.Manifest.Sources)
	}
}

// TestReplayFailedExchanges: a call that failed upstream, and an answer recorded truncated,
// are answered 502 with a JSON error saying why.
func TestReplayFailedExchanges(t *testing.T) {
	big := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.Repeat("a", 100)) })
	s := memStore(t)
	sealed := record(t, s, nil, big, 64, func(ep endpoints) {
		(&call{side: "provider", method: http.MethodGet, target: "/v1/conformance"}).do(t, ep)
		(&call{side: "agent", method: http.MethodGet, target: "/identity-and-configuration"}).do(t, ep)
	})
	_, ep := replayServer(t, s, sealed.Bundle, Options{})
	for _, tt := range []struct{ side, target, reason string }{
		{"provider", "/v1/conformance", "the recorded provider call failed: connection refused"},
		{"agent", "/identity-and-configuration", "its recorded answer was truncated at the recording limit"},
	} {
		c := &call{side: tt.side, method: http.MethodGet, target: tt.target}
		c.do(t, ep)
		var e callError
		if err := json.Unmarshal(c.answer, &e); err != nil || c.status != http.StatusBadGateway || !strings.HasPrefix(e.Reason, tt.reason) ||
			!strings.HasPrefix(e.Exchange, "exchanges/run/") {
			t.Errorf("%s %s: %d %s, want 502 saying %q", tt.side, tt.target, c.status, c.answer, tt.reason)
		}
	}
}

// TestLoadRefuses: a bundle without exchanges, and one larger than the memory limit.
func TestLoadRefuses(t *testing.T) {
	s := memStore(t)
	sealed, _ := recordedSIRun(t, s, "safe")
	if _, err := Load(context.Background(), s, sealed.Bundle, Options{MaxMemory: 1000}); !errors.Is(err, ErrTooLarge) ||
		!strings.Contains(err.Error(), "more than the limit of 1000 bytes") {
		t.Errorf("Load with a small limit = %v", err)
	}
	imported := recordertest.OasisctlBundle(t, s, profileForTest(t).Profile, "safe")
	if _, err := Load(context.Background(), s, imported, Options{}); !errors.Is(err, ErrNoExchanges) || !strings.Contains(err.Error(), `recorded by "oasisctl"`) {
		t.Errorf("Load of an imported run = %v", err)
	}
}
