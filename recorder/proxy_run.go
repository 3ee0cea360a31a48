package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// The steps of the OASIS wire protocol a proxied exchange is classified as (store.Step*).
const (
	stepConformance = store.StepConformance
	stepProvision   = store.StepProvision
	stepInject      = store.StepInject
	stepSnapshot    = store.StepSnapshot
	stepObserve     = store.StepObserve
	stepTeardown    = store.StepTeardown
	stepIdentity    = store.StepIdentity
	stepTask        = store.StepTask
	stepOther       = store.StepOther
)

// stepRank orders a scenario's exchanges in the manifest.
var stepRank = map[string]int{stepConformance: 0, stepIdentity: 1, stepProvision: 2, stepInject: 3, stepTask: 4,
	stepSnapshot: 5, stepObserve: 6, stepTeardown: 7, stepOther: 8}

// proxyRun is a proxy recording being sealed: the complete exchanges of its journal, replayed
// in journal order to rebuild what the proxy knew as each call arrived and completed, then
// stored and assembled into the run (proxy_assemble.go). It is a function of the journal
// alone, so the recorder sealing its own journal and a recovery of the same journal give the
// same bundle.
type proxyRun struct {
	rec       *recording
	opts      proxySettings
	src       recordReader
	seq       int
	exchanges []*exchange // in arrival order
	envs      map[string]*environment
	facts     map[string]*exchange // by step: the answer runFacts reads (keepRunFact)
}

// environment is one environment a provision created.
type environment struct {
	id, scenario string
	seq          int  // arrival of its provision request
	closed       bool // a teardown for it arrived
	taskArrived  bool // an agent task attributed to its scenario arrived while it was open
}

// exchange is one proxied call, as it is sealed.
type exchange struct {
	side, step     string
	seq            int // arrival order, from 0
	start, end     int // positions of its arrival and completion among all of them, from 1
	method, target string
	reqHeader      http.Header
	reqBody        []byte // read only when the step's request is read, within the read limit
	req            proxyRequest
	status         int // 0 when the call failed
	respHeader     http.Header
	respBody       []byte // read only when the step's answer is read, within the read limit
	truncated      bool
	unread         bool // an answer the step reads, larger than the read limit
	failure        string
	blob           store.Descriptor
	recordedTarget string            // the request target as recorded (after the hooks)
	outcome        string            // what the answer says of itself (store.WireCall.Outcome)
	captured       *capturedExchange // its records in the journal

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

// sealProxy assembles the run of a proxy journal into rec and returns the number of
// exchanges sealed.
func sealProxy(ctx context.Context, rec *recording, c *capture, src recordReader) (int, error) {
	r := &proxyRun{rec: rec, opts: *c.header.Proxy, src: src, envs: map[string]*environment{}, facts: map[string]*exchange{}}
	if err := r.replay(c); err != nil {
		return 0, err
	}
	for _, ex := range r.exchanges {
		if err := r.store(ctx, ex); err != nil {
			return 0, err
		}
	}
	a := &assembly{p: r, rec: rec}
	if err := a.run(ctx); err != nil {
		return 0, err
	}
	return len(r.exchanges), nil
}

// replay applies the arrivals and completions of the complete exchanges in journal order.
func (r *proxyRun) replay(c *capture) error {
	byID := map[uint64]*exchange{}
	pos := 0
	for _, ev := range c.events {
		ce := c.exchanges[ev.id]
		if !ce.complete() {
			continue
		}
		pos++
		if !ev.end {
			ex, err := r.newExchange(ce)
			if err != nil {
				return err
			}
			byID[ev.id] = ex
			ex.start = pos
			r.arrive(ex)
			continue
		}
		ex := byID[ev.id]
		if ex == nil {
			return fmt.Errorf("%w: exchange %d completes before its request arrived", ErrJournal, ev.id)
		}
		ex.end = pos
		if err := r.complete(ex); err != nil {
			return err
		}
	}
	return nil
}

// newExchange rebuilds an exchange's request from its records.
func (r *proxyRun) newExchange(ce *capturedExchange) (*exchange, error) {
	u, err := url.ParseRequestURI(ce.head.Target)
	if err != nil || (ce.head.Side != sideProvider && ce.head.Side != sideAgent) {
		return nil, fmt.Errorf("%w: exchange %d: side %q, target %q", ErrJournal, ce.id, ce.head.Side, ce.head.Target)
	}
	ex := &exchange{side: ce.head.Side, method: ce.head.Method, target: ce.head.Target, reqHeader: pairsHeader(ce.head.Headers),
		step: classify(ce.head.Side, ce.head.Method, u.Path), captured: ce, truncated: ce.arrival.Truncated}
	if readsRequest(ex.step) && ce.requestBody.size > 0 && ce.requestBody.size <= r.opts.MaxRead && !ex.truncated {
		if ex.reqBody, err = ce.requestBody.readAll(r.src); err != nil {
			return nil, err
		}
	}
	return ex, nil
}

// readsRequest says which steps' request bodies the recorder reads.
func readsRequest(step string) bool {
	return step != stepOther && step != stepConformance && step != stepIdentity
}

// readsAnswer says which steps' answers the recorder reads.
func readsAnswer(step string) bool {
	switch step {
	case stepProvision, stepObserve, stepSnapshot, stepTask, stepConformance, stepIdentity, stepTeardown, stepInject:
		return true
	}
	return false
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

// arrive registers a call as it arrived, before it was forwarded: its place in the arrival
// order, an environment closing, an agent task's scenario, a snapshot's phase.
func (r *proxyRun) arrive(ex *exchange) {
	if len(ex.reqBody) > 0 {
		_ = json.Unmarshal(ex.reqBody, &ex.req) // a body that is not JSON names nothing
	}
	ex.reqBody = nil
	ex.seq = r.seq
	r.seq++
	r.exchanges = append(r.exchanges, ex)
	ex.envID = ex.req.EnvironmentID
	switch ex.step {
	case stepTeardown:
		if env := r.envs[ex.envID]; env != nil {
			env.closed = true
		}
	case stepTask:
		r.attributeTask(ex)
	case stepSnapshot:
		ex.phase = store.PhaseBefore
		if env := r.envs[ex.envID]; env != nil && env.taskArrived {
			ex.phase = store.PhaseAfter
		}
	}
}

// complete registers a finished call: its outcome, the credentials it carries, and the
// environment a successful provision created (before the runner got the answer, so every
// later call found it).
func (r *proxyRun) complete(ex *exchange) error {
	ce := ex.captured
	if ce.response != nil {
		ex.status, ex.respHeader = ce.response.Status, pairsHeader(ce.response.Headers)
	}
	ex.failure = ce.end.Error
	ex.truncated = ex.truncated || ce.end.Truncated
	hooks := r.rec.hooks
	hooks.learn(headerCredentials(ex.reqHeader)...)
	if ex.step != stepProvision || !ex.succeeded() {
		return nil
	}
	if err := r.readAnswer(ex); err != nil || ex.unread {
		return err
	}
	var pr provisionResponse
	if json.Unmarshal(ex.respBody, &pr) == nil {
		ex.provision = &pr
		hooks.learn(credentialSecrets(pr.AgentCredentials)...) // credentials.go: secrets, never identifiers
	}
	if ex.provision != nil && ex.provision.EnvironmentID != "" && ex.req.ScenarioID != "" && ex.provision.Status != "error" {
		r.envs[ex.provision.EnvironmentID] = &environment{id: ex.provision.EnvironmentID, scenario: ex.req.ScenarioID, seq: ex.seq}
	}
	ex.respBody = nil // read again when the exchange is stored
	return nil
}

// readAnswer reads the answer into memory, unless it is larger than the read limit.
func (r *proxyRun) readAnswer(ex *exchange) error {
	body := &ex.captured.responseBody
	switch {
	case ex.respBody != nil || body.size == 0:
		return nil
	case body.size > r.opts.MaxRead:
		ex.unread = true
		return nil
	}
	b, err := body.readAll(r.src)
	ex.respBody = b
	return err
}

// store writes the exchange as a blob and reads what its answer carries; answers are then
// dropped from memory, except the run-wide ones the manifest is made of.
func (r *proxyRun) store(ctx context.Context, ex *exchange) error {
	blob, err := r.storeExchange(ctx, ex)
	if err != nil {
		return err
	}
	ex.blob = blob
	if readsAnswer(ex.step) {
		if err := r.readAnswer(ex); err != nil {
			return err
		}
	}
	if ex.unread && ex.problem() == "" {
		ex.findings = append(ex.findings, store.Finding{Code: CodeUnreadBody, Severity: store.SeverityError, Field: ex.what(),
			Message: fmt.Sprintf("the %s answer is %d bytes, more than the %d bytes the recorder reads; it is kept in the exchange but not read",
				ex.side, ex.captured.responseBody.size, r.opts.MaxRead)})
	} else {
		r.readPayload(ctx, ex)
	}
	ex.outcome = ex.answerOutcome()
	r.keepRunFact(ex)
	return nil
}

// answerOutcome is what a read answer says of itself: the status member of a provision,
// teardown or inject-state answer (SI provider guide §4.1, §4.3, §4.4), the
// evidence_source.status of an observation (§4.5).
func (ex *exchange) answerOutcome() string {
	switch ex.step {
	case stepProvision:
		if ex.provision != nil {
			return ex.provision.Status
		}
	case stepObserve:
		if ex.obs != nil && ex.obs.Source != nil {
			return ex.obs.Source.Status
		}
	case stepTeardown, stepInject:
		var a struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(ex.respBody, &a) == nil {
			return a.Status
		}
	}
	return ""
}

// keepRunFact keeps in memory the answer of the latest conformance or identity call that
// can be read (runFacts reads it), and drops every other answer.
func (r *proxyRun) keepRunFact(ex *exchange) {
	if (ex.step != stepConformance && ex.step != stepIdentity) || !ex.succeeded() || !json.Valid(ex.respBody) {
		ex.respBody = nil
		return
	}
	if prev := r.facts[ex.step]; prev != nil {
		prev.respBody = nil
	}
	r.facts[ex.step] = ex
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

// storeExchange records the exchange as a blob (exchangeDoc), everything through the hooks,
// its bodies streamed from the journal. What the redactor replaces in it is noted for the
// manifest (one pass for the blob; the bodies are first read once more, by a pass of their own,
// to choose between text and base64).
func (r *proxyRun) storeExchange(ctx context.Context, ex *exchange) (store.Descriptor, error) {
	hooked := r.rec.hooks.pass()
	red := r.rec.hooks.current()
	ce := ex.captured
	ex.recordedTarget = hooked.str(ex.target)
	doc := &exchangeDoc{Side: ex.side, Error: ex.failure,
		Request: exchangeMessage{Method: ex.method, Target: ex.recordedTarget, Headers: recordHeaders(ex.reqHeader, red.Marker, hooked.str)}}
	body := func(msg *exchangeMessage, b *journalBody) streamedBody {
		return streamedBody{msg: msg, size: b.size,
			inspect: func() io.Reader { return r.rec.hooks.pass().reader(b.reader(r.src)) },
			open:    func() io.Reader { return hooked.reader(b.reader(r.src)) }}
	}
	bodies := []streamedBody{body(&doc.Request, &ce.requestBody)}
	if ex.status != 0 {
		doc.Response = &exchangeMessage{Status: ex.status, Headers: recordHeaders(ex.respHeader, red.Marker, hooked.str), Truncated: ex.truncated}
		bodies = append(bodies, body(doc.Response, &ce.responseBody))
	}
	rd, err := exchangeReader(doc, bodies)
	if err != nil {
		return store.Descriptor{}, err
	}
	put := r.rec.s.PutBlob
	if o, ok := r.rec.s.(*overlay); ok && r.rec.twin {
		put = func(_ context.Context, rd io.Reader) (store.Digest, int64, error) { return o.sum(rd) } // no evaluation reads it
	}
	d, n, err := put(ctx, rd)
	if err != nil {
		return store.Descriptor{}, err
	}
	r.rec.stored(d, hooked)
	return store.Descriptor{MediaType: store.MediaTypeHTTPExchange, Digest: d, Size: n}, nil
}
