package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultMaxProxyBody is the recording limit of one request or response body. Responses are
// forwarded whole whatever their size; beyond the limit only the beginning is recorded.
const DefaultMaxProxyBody = 64 << 20

// Proxy sides.
const (
	sideProvider = "provider"
	sideAgent    = "agent"
)

// Steps of the OASIS wire protocol a proxied exchange is classified as (oasisctl's provider
// client and agent adapter contract; SI provider guide §4).
const (
	stepConformance = "conformance"
	stepProvision   = "provision"
	stepInject      = "inject-state"
	stepSnapshot    = "state-snapshot"
	stepObserve     = "observe"
	stepTeardown    = "teardown"
	stepIdentity    = "identity"
	stepTask        = "task"
	stepOther       = "other"
)

// stepRank orders a scenario's exchanges in the manifest.
var stepRank = map[string]int{stepConformance: 0, stepIdentity: 1, stepProvision: 2, stepInject: 3, stepTask: 4,
	stepSnapshot: 5, stepObserve: 6, stepTeardown: 7, stepOther: 8}

// ProxyOptions are the options of a proxy recording.
type ProxyOptions struct {
	Options
	// Provider and Agent are the base URLs of the real environment provider and agent adapter.
	Provider, Agent string
	// MaxBody is the recording limit of one body (DefaultMaxProxyBody when ≤ 0). A request body
	// beyond it is refused with 413; a response body beyond it is forwarded whole, recorded
	// truncated, and not read.
	MaxBody int64
	// Idle seals the recording when no request has been in flight for this long (DefaultIdle
	// when ≤ 0).
	Idle time.Duration
	// Tier is the claimed tier; 0 takes the tier of the runner's provision requests.
	Tier int
	// Timestamp is when the run happened (RFC 3339), if known.
	Timestamp string
	// Transport reaches the upstreams; nil is a transport without compression, environment
	// proxies or timeouts of its own (the runner's timeouts apply: cancelling a request to the
	// proxy cancels the upstream call).
	Transport http.RoundTripper
}

// Proxy records the OASIS wire traffic of a live run: the runner talks to two loopback
// listeners, which forward every call to the real provider and agent adapter and return each
// response unchanged. See doc.go for what is recorded and how exchanges are attributed to
// scenarios.
type Proxy struct {
	rec      *recording
	opts     ProxyOptions
	upstream map[string]*url.URL
	client   *http.Client
	act      *activity

	mu        sync.Mutex
	sealed    bool
	seq       int
	exchanges []*exchange
	envs      map[string]*environment
}

// environment is one environment a provision created.
type environment struct {
	id, scenario string
	seq          int  // arrival of its provision request
	closed       bool // a teardown for it arrived
	taskArrived  bool // an agent task attributed to its scenario arrived while it was open
}

// exchange is one proxied call, as it is processed.
type exchange struct {
	side, step     string
	seq            int // arrival order: used to attribute calls, never recorded
	method, target string
	reqHeader      http.Header
	reqBody        []byte
	req            proxyRequest
	status         int // 0 when the call failed
	respHeader     http.Header
	respBody       []byte
	truncated      bool
	failure        string
	blob           store.Descriptor

	envID    string // the environment it concerns
	scenario string // the scenario it is attributed to, "" for the run
	phase    string // state snapshots: before or after the agent task

	obs        *store.Observation
	transcript *transcriptFile
	provision  *provisionResponse
	findings   []store.Finding
}

// proxyRequest is what the recorder reads of a request body.
type proxyRequest struct {
	ScenarioID      string `json:"scenario_id"`
	EnvironmentID   string `json:"environment_id"`
	ObservationType string `json:"observation_type"`
	Tier            *int   `json:"tier"`
	Prompt          string `json:"prompt"`
}

// provisionResponse is what the recorder reads of a provision response.
type provisionResponse struct {
	EnvironmentID    string          `json:"environment_id"`
	Status           string          `json:"status"`
	Error            string          `json:"error"`
	AgentCredentials json.RawMessage `json:"agent_credentials"`
}

// NewProxy checks the options, stores the pinned profile and returns a proxy ready to serve.
func NewProxy(ctx context.Context, s Store, opts ProxyOptions) (*Proxy, error) {
	rec, err := newRecording(s, opts.Options, SourceProxy)
	if err != nil {
		return nil, err
	}
	p := &Proxy{rec: rec, opts: opts, upstream: map[string]*url.URL{}, act: newActivity(), envs: map[string]*environment{}}
	for side, raw := range map[string]string{sideProvider: opts.Provider, sideAgent: opts.Agent} {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: %s URL %q is not an http(s) URL", ErrOptions, side, raw)
		}
		p.upstream[side] = u
	}
	if opts.Timestamp != "" {
		if _, err := time.Parse(time.RFC3339Nano, opts.Timestamp); err != nil {
			return nil, fmt.Errorf("%w: timestamp %q is not RFC 3339", ErrOptions, opts.Timestamp)
		}
	}
	if p.opts.MaxBody <= 0 {
		p.opts.MaxBody = DefaultMaxProxyBody
	}
	transport := opts.Transport
	if transport == nil {
		transport = &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}
	}
	p.client = &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if err := rec.begin(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// ProviderHandler serves the runner's calls to the provider.
func (p *Proxy) ProviderHandler() http.Handler { return p.handler(sideProvider) }

// AgentHandler serves the runner's calls to the agent adapter.
func (p *Proxy) AgentHandler() http.Handler { return p.handler(sideAgent) }

// Serve runs both listeners until ctx is done (SIGINT, SIGTERM) or no request has been in
// flight for the idle timeout, then seals the bundle and returns it.
func (p *Proxy) Serve(ctx context.Context, provider, agent net.Listener) (*Result, error) {
	err := serveUntil(ctx, p.opts.Idle, p.act, map[net.Listener]http.Handler{provider: p.ProviderHandler(), agent: p.AgentHandler()})
	if err != nil {
		return nil, err
	}
	return p.Seal(context.WithoutCancel(ctx))
}

func (p *Proxy) handler(side string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		done := p.act.begin()
		defer done()
		// What was exchanged is recorded even if the runner gives up on the call.
		record := context.WithoutCancel(req.Context())
		body, err := io.ReadAll(io.LimitReader(req.Body, p.opts.MaxBody+1))
		if err != nil {
			http.Error(rw, "oasis-replay proxy: cannot read the request body", http.StatusBadRequest)
			return
		}
		ex := &exchange{side: side, method: req.Method, target: req.URL.RequestURI(), reqHeader: req.Header.Clone(), reqBody: body,
			step: classify(side, req.Method, req.URL.Path)}
		tooLarge := int64(len(body)) > p.opts.MaxBody
		if tooLarge {
			ex.reqBody, ex.truncated = body[:p.opts.MaxBody], true
			ex.failure = "request body larger than the recording limit; not forwarded"
		}
		if !p.arrive(ex) {
			http.Error(rw, "oasis-replay proxy: the recording is sealed", http.StatusServiceUnavailable)
			return
		}
		if tooLarge {
			p.complete(record, ex)
			http.Error(rw, fmt.Sprintf("oasis-replay proxy: request body larger than the recording limit of %d bytes", p.opts.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		resp, err := p.forward(req, ex)
		if err != nil {
			ex.failure = upstreamError(err)
			p.complete(record, ex)
			http.Error(rw, "oasis-replay proxy: upstream "+side+": "+ex.failure, http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		// The response is read (up to the recording limit) and processed before the runner
		// sees it, so any call the runner makes after it finds the proxy's state up to date.
		ex.status, ex.respHeader = resp.StatusCode, resp.Header
		prefix, err := io.ReadAll(io.LimitReader(resp.Body, p.opts.MaxBody+1))
		if err != nil {
			ex.failure = upstreamError(err)
		}
		ex.respBody = prefix[:min(int64(len(prefix)), p.opts.MaxBody)]
		ex.truncated = int64(len(prefix)) > p.opts.MaxBody
		p.complete(record, ex)
		for name, values := range resp.Header {
			if !slices.Contains(hopHeaders, http.CanonicalHeaderKey(name)) {
				rw.Header()[name] = values
			}
		}
		rw.WriteHeader(resp.StatusCode)
		_, _ = rw.Write(prefix)
		_, _ = io.Copy(rw, resp.Body) // beyond the recording limit: forwarded, not recorded
	})
}

// classify names the protocol step of a call by its side, method and path.
func classify(side, method, path string) string {
	path = strings.TrimSuffix(path, "/")
	last := path[strings.LastIndex(path, "/")+1:]
	if side == sideAgent {
		if method == http.MethodGet && last == "identity-and-configuration" {
			return stepIdentity
		}
		if method == http.MethodPost {
			return stepTask
		}
		return stepOther
	}
	switch {
	case method == http.MethodGet && last == "conformance":
		return stepConformance
	case method != http.MethodPost:
		return stepOther
	case last == "provision":
		return stepProvision
	case last == "inject-state":
		return stepInject
	case last == "state-snapshot":
		return stepSnapshot
	case last == "observe":
		return stepObserve
	case last == "teardown":
		return stepTeardown
	}
	return stepOther
}

// forward sends the call upstream: same method, path, query, headers (less hop-by-hop ones
// and Accept-Encoding, so that bodies come back readable) and body.
func (p *Proxy) forward(req *http.Request, ex *exchange) (*http.Response, error) {
	base := p.upstream[ex.side]
	target := *base
	target.Path = upstreamPath(base.Path, req.URL.Path)
	target.RawPath = ""
	target.RawQuery = req.URL.RawQuery
	out, err := http.NewRequestWithContext(req.Context(), req.Method, target.String(), bytes.NewReader(ex.reqBody))
	if err != nil {
		return nil, err
	}
	for name, values := range req.Header {
		c := http.CanonicalHeaderKey(name)
		if !slices.Contains(hopHeaders, c) && c != "Accept-Encoding" {
			out.Header[name] = values
		}
	}
	return p.client.Do(out)
}

// upstreamPath maps a path the runner called on the proxy to the upstream's: "/" is the
// upstream base URL itself (the runner POSTs tasks to the agent URL as configured), anything
// else is appended to the base path.
func upstreamPath(base, path string) string {
	if path == "/" || path == "" {
		if base == "" {
			return "/"
		}
		return base
	}
	return strings.TrimSuffix(base, "/") + path
}

// arrive registers a call as it arrives, before it is forwarded: its place in the arrival
// order, an environment closing, an agent task's scenario, a snapshot's phase. It returns
// false once the recording is sealed.
func (p *Proxy) arrive(ex *exchange) bool {
	if len(ex.reqBody) > 0 && ex.step != stepOther && ex.step != stepConformance && ex.step != stepIdentity {
		_ = json.Unmarshal(ex.reqBody, &ex.req) // a body that is not JSON is noted when the call completes
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sealed {
		return false
	}
	ex.seq = p.seq
	p.seq++
	p.exchanges = append(p.exchanges, ex)
	ex.envID = ex.req.EnvironmentID
	switch ex.step {
	case stepTeardown:
		if env := p.envs[ex.envID]; env != nil {
			env.closed = true
		}
	case stepTask:
		p.attributeTask(ex)
	case stepSnapshot:
		ex.phase = store.PhaseBefore
		if env := p.envs[ex.envID]; env != nil && env.taskArrived {
			ex.phase = store.PhaseAfter
		}
	}
	return true
}

// complete processes a finished call: credentials are learned, the exchange is stored, its
// payload read, and the proxy's state updated.
func (p *Proxy) complete(ctx context.Context, ex *exchange) {
	hooks := p.rec.hooks
	hooks.learn(headerCredentials(ex.reqHeader)...)
	if ex.step == stepProvision && ex.succeeded() {
		var pr provisionResponse
		if json.Unmarshal(ex.respBody, &pr) == nil {
			ex.provision = &pr
			hooks.learn(credentialValues(pr.AgentCredentials)...)
		}
	}
	blob, err := p.storeExchange(ctx, ex)
	if err != nil {
		ex.findings = append(ex.findings, store.Finding{Code: CodeUnrecorded, Severity: store.SeverityError,
			Field: ex.what(), Message: "the exchange could not be stored: " + err.Error()})
	}
	ex.blob = blob
	p.readPayload(ctx, ex)
	p.mu.Lock()
	defer p.mu.Unlock()
	if ex.step == stepProvision && ex.provision != nil && ex.provision.EnvironmentID != "" && ex.req.ScenarioID != "" &&
		ex.provision.Status != "error" {
		p.envs[ex.provision.EnvironmentID] = &environment{id: ex.provision.EnvironmentID, scenario: ex.req.ScenarioID, seq: ex.seq}
	}
}

// succeeded reports whether the upstream answered 2xx with a whole body.
func (ex *exchange) succeeded() bool {
	return ex.failure == "" && ex.status >= 200 && ex.status < 300 && !ex.truncated
}

// what describes the call for findings.
func (ex *exchange) what() string {
	s := ex.method + " " + ex.target
	if ex.req.ObservationType != "" {
		s += " (" + ex.req.ObservationType + ")"
	}
	return s
}

// problem says why a call did not succeed.
func (ex *exchange) problem() string {
	switch {
	case ex.failure != "":
		return ex.failure
	case ex.truncated:
		return "body larger than the recording limit"
	case ex.status < 200 || ex.status >= 300:
		return fmt.Sprintf("status %d %s", ex.status, http.StatusText(ex.status))
	}
	return ""
}

// storeExchange records the exchange as a blob, everything through the hooks.
func (p *Proxy) storeExchange(ctx context.Context, ex *exchange) (store.Descriptor, error) {
	hooks := p.rec.hooks
	red := hooks.current()
	doc := &exchangeDoc{Side: ex.side, Error: ex.failure,
		Request: exchangeMessage{Method: ex.method, Target: hooks.str(ex.target), Headers: recordHeaders(ex.reqHeader, red.Marker, hooks.str)}}
	doc.Request.setBody(ex.reqBody, hooks.bytes)
	if ex.status != 0 {
		doc.Response = &exchangeMessage{Status: ex.status, Headers: recordHeaders(ex.respHeader, red.Marker, hooks.str), Truncated: ex.truncated}
		doc.Response.setBody(ex.respBody, hooks.bytes)
	}
	b, err := exchangeBlob(doc)
	if err != nil {
		return store.Descriptor{}, err
	}
	return p.rec.putHooked(ctx, b, store.MediaTypeHTTPExchange)
}

// credentialValues lists the string values of a provision response's agent_credentials (a
// map of name → credential): every one is redacted from the recording.
func credentialValues(raw json.RawMessage) []string {
	var creds map[string]any
	if json.Unmarshal(raw, &creds) != nil {
		return nil
	}
	var out []string
	for _, v := range creds {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
