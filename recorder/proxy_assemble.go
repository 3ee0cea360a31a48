package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// observeResponse is the provider's /observe answer (OASIS Reporting §1.1 observation shape).
type observeResponse struct {
	EnvironmentID   string                `json:"environment_id"`
	Timestamp       json.RawMessage       `json:"timestamp"`
	ObservationType string                `json:"observation_type"`
	Data            json.RawMessage       `json:"data"`
	EvidenceSource  *store.EvidenceSource `json:"evidence_source"`
}

// SourceTypeProviderSnapshot is the evidence source of an observation made from a provider's
// /state-snapshot answer, which carries no evidence_source block of its own: a 2xx answer
// with a snapshot is available evidence.
const SourceTypeProviderSnapshot = "provider_state_snapshot"

// readPayload reads what a finished call carries: an observation, a transcript, or the
// failure to note. Findings get their scenario when the exchange is attributed, at the seal.
func (p *proxyRun) readPayload(ctx context.Context, ex *exchange) {
	fail := func(code, severity, msg string) {
		ex.findings = append(ex.findings, store.Finding{Code: code, Severity: severity, Field: ex.what(), Message: msg})
	}
	if problem := ex.problem(); problem != "" {
		severity := store.SeverityError
		if ex.step == stepTeardown || ex.step == stepOther {
			severity = store.SeverityWarning
		}
		code := CodeUpstreamFailure
		if ex.truncated {
			code = CodeTruncatedBody
		}
		fail(code, severity, fmt.Sprintf("%s call %s failed: %s%s", ex.side, ex.what(), problem, errorField(ex.respBody)))
		return
	}
	var err error
	switch ex.step {
	case stepProvision:
		switch {
		case ex.req.ScenarioID == "":
			fail(CodeMalformedBody, store.SeverityError, "the provision request names no scenario_id")
		case ex.provision != nil && ex.provision.Status == "error":
			// SI provider guide §4.1: status "error" with the error message; no environment.
			fail(CodeUpstreamFailure, store.SeverityError, "provision failed: "+ex.provision.Error)
		case ex.provision == nil || ex.provision.EnvironmentID == "":
			fail(CodeMalformedBody, store.SeverityError, "the provision response names no environment_id")
		}
	case stepObserve:
		err = p.readObservation(ctx, ex)
	case stepSnapshot:
		err = p.readSnapshot(ctx, ex)
	case stepTask:
		if ex.transcript, err = parseTranscript(ex.what(), ex.respBody); err == nil {
			ex.findings = append(ex.findings, ex.transcript.findings...)
		}
	case stepConformance, stepIdentity:
		if !json.Valid(ex.respBody) {
			err = fmt.Errorf("the response is not JSON")
		}
	case stepTeardown, stepInject:
		// SI provider guide §4.3, §4.4: {"status": "destroyed" | "applied" | "error", "error"?}.
		var a struct {
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		if len(ex.respBody) > 0 && json.Unmarshal(ex.respBody, &a) == nil && a.Status == "error" {
			fail(CodeUpstreamFailure, store.SeverityWarning, fmt.Sprintf("%s failed: %s", ex.step, a.Error))
		}
	}
	if err != nil {
		fail(CodeMalformedBody, store.SeverityError, fmt.Sprintf("%s answer to %s cannot be read: %v", ex.side, ex.what(), err))
	}
}

// errorField quotes the "error" member of a JSON error body, if any.
func errorField(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error == "" {
		return ""
	}
	return fmt.Sprintf(" (%q)", e.Error)
}

// readObservation turns an /observe answer into an observation: its data member, compacted,
// is the payload; evidence_source is kept as the provider sent it (absent stays absent).
func (p *proxyRun) readObservation(ctx context.Context, ex *exchange) error {
	var r observeResponse
	if err := json.Unmarshal(ex.respBody, &r); err != nil {
		return err
	}
	typ := r.ObservationType
	if typ == "" {
		typ = ex.req.ObservationType
	}
	if typ == "" {
		return fmt.Errorf("no observation_type")
	}
	data := []byte("null")
	if len(r.Data) > 0 {
		var buf bytes.Buffer
		if err := json.Compact(&buf, r.Data); err != nil {
			return err
		}
		data = buf.Bytes()
	}
	mediaType, known := store.ObservationMediaType(typ)
	if !known {
		ex.findings = append(ex.findings, store.Finding{Code: CodeUnknownObservationType, Severity: store.SeverityWarning, Field: ex.what(),
			Message: fmt.Sprintf("observation type %q is not one OASIS Reporting §1.1 names; its data is kept as %s", typ, store.MediaTypeJSON)})
	}
	desc, err := p.rec.putBytes(ctx, data, mediaType)
	if err != nil {
		return err
	}
	env := r.EnvironmentID
	if env == "" {
		env = ex.envID
	}
	o := &store.Observation{Type: typ, EnvironmentID: env, Timestamp: timestampText(r.Timestamp), Source: r.EvidenceSource, Data: desc}
	if typ == store.ObservationAuditLog {
		o.AgentPrincipal = declaredPrincipal(data)
	}
	ex.obs = o
	return nil
}

// readSnapshot turns a /state-snapshot answer ({environment_id, timestamp, resources}) into a
// resource_state observation whose payload is the whole answer, compacted.
func (p *proxyRun) readSnapshot(ctx context.Context, ex *exchange) error {
	var r struct {
		EnvironmentID string          `json:"environment_id"`
		Timestamp     json.RawMessage `json:"timestamp"`
		Resources     json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(ex.respBody, &r); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, ex.respBody); err != nil {
		return err
	}
	desc, err := p.rec.putBytes(ctx, buf.Bytes(), store.MediaTypeResourceState)
	if err != nil {
		return err
	}
	env := r.EnvironmentID
	if env == "" {
		env = ex.envID
	}
	ex.obs = &store.Observation{Type: store.ObservationResourceState, EnvironmentID: env, Timestamp: timestampText(r.Timestamp),
		Phase: ex.phase, Source: &store.EvidenceSource{Type: SourceTypeProviderSnapshot, Status: store.StatusAvailable}, Data: desc}
	return nil
}

// timestampText is a timestamp member as written: a string's content, else its JSON text.
func timestampText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// attributeTask decides, as an agent task arrives, which scenario it belongs to. The task
// carries no scenario id (agent adapter contract: prompt, tools, mode, scope), so:
//
//  1. the scenarios provisioned so far whose operator prompt (the first operator_prompt
//     stimulus, Scenarios §1.4, which is what oasisctl sends) is the task's prompt, or failing
//     that is contained in it (a runner may wrap the stimulus);
//  2. if that names several, those of them with an environment open now (provisioned, not
//     torn down); if it names none, every scenario with an environment open now;
//  3. exactly one candidate is the task's scenario; otherwise the task is ambiguous: it is
//     recorded, attributed to no scenario, and named by a finding.
//
// A runner that runs one scenario at a time (oasisctl does) is always attributed by step 1 or
// by its one open environment; parallel scenarios are told apart by their prompts, so the
// outcome never depends on timing unless two parallel scenarios send the same prompt.
func (p *proxyRun) attributeTask(ex *exchange) {
	var open, all []string
	envs := make([]*environment, 0, len(p.envs))
	for _, env := range p.envs {
		envs = append(envs, env)
	}
	slices.SortFunc(envs, func(a, b *environment) int { return a.seq - b.seq })
	for _, env := range envs {
		all = appendUnique(all, env.scenario)
		if !env.closed {
			open = appendUnique(open, env.scenario)
		}
	}
	candidates := p.byPrompt(all, ex.req.Prompt)
	switch {
	case len(candidates) > 1:
		candidates = intersect(candidates, open)
	case len(candidates) == 0:
		candidates = open
	}
	if len(candidates) != 1 {
		slices.Sort(candidates)
		ex.findings = append(ex.findings, store.Finding{Code: CodeAmbiguousCorrelation, Severity: store.SeverityError, Field: ex.what(),
			Message: fmt.Sprintf("the agent task cannot be attributed to one scenario (candidates: %s); it is kept as an exchange of the run", candidateList(candidates))})
		return
	}
	ex.scenario = candidates[0]
	for _, env := range envs {
		if env.scenario == ex.scenario && !env.closed {
			env.taskArrived = true
		}
	}
}

func candidateList(c []string) string {
	if len(c) == 0 {
		return "none"
	}
	return strings.Join(c, ", ")
}

// byPrompt returns the scenarios of ids whose operator prompt equals prompt, or else is
// contained in it.
func (p *proxyRun) byPrompt(ids []string, prompt string) []string {
	prompt = strings.TrimSpace(prompt)
	if prompt == "" {
		return nil
	}
	var exact, contained []string
	for _, id := range ids {
		sc, ok := p.rec.opts.Profile.Scenario(id)
		if !ok {
			continue
		}
		stimulus := strings.TrimSpace(operatorPrompt(sc))
		switch {
		case stimulus == "":
		case stimulus == prompt:
			exact = append(exact, id)
		case strings.Contains(prompt, stimulus):
			contained = append(contained, id)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return contained
}

// operatorPrompt is the value of a scenario's first operator_prompt stimulus.
func operatorPrompt(sc *profiles.Scenario) string {
	for _, s := range sc.Stimuli {
		if s.Type == profiles.OperatorPrompt {
			return s.Value
		}
	}
	return ""
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// assembly builds the manifest of a proxy recording.
type assembly struct {
	p     *proxyRun
	rec   *recording
	paths map[*exchange]string
}

func (a *assembly) run(ctx context.Context) error {
	p, rec := a.p, a.rec
	for _, ex := range p.exchanges {
		a.attribute(ex)
	}
	ids := a.scenarioIDs()
	for _, id := range ids {
		rec.m.Scenarios = append(rec.m.Scenarios, store.ScenarioRef{ScenarioID: id})
	}
	a.nameExchanges(ids)
	if err := a.wireLog(ctx); err != nil {
		return err
	}
	if err := a.runFacts(ctx); err != nil {
		return err
	}
	for i, id := range ids {
		desc, err := a.scenarioEvidence(ctx, id)
		if err != nil {
			return err
		}
		rec.m.Scenarios[i].Evidence = desc
	}
	for _, ex := range p.exchanges {
		for _, f := range ex.findings {
			if f.Scenario == "" {
				f.Scenario = ex.scenario
			}
			f.File = a.paths[ex]
			rec.addFinding(f)
		}
	}
	rec.m.Tier = a.tier(ids)
	if p.opts.Timestamp != "" {
		rec.m.Annotations[store.AnnotationTimestamp] = p.opts.Timestamp
	}
	return nil
}

// attribute gives each exchange its scenario: provisions by their scenario_id, tasks as
// decided on arrival, environment calls by the provision that created the environment.
func (a *assembly) attribute(ex *exchange) {
	switch {
	case ex.step == stepProvision:
		ex.scenario = ex.req.ScenarioID
	case ex.step == stepTask:
	case ex.envID != "":
		if env := a.p.envs[ex.envID]; env != nil {
			ex.scenario = env.scenario
		} else {
			ex.findings = append(ex.findings, store.Finding{Code: CodeUncorrelated, Severity: store.SeverityWarning, Field: ex.what(),
				Message: fmt.Sprintf("environment %q was not created by any recorded provision; the exchange is kept as an exchange of the run", ex.envID)})
		}
	}
}

// scenarioIDs lists the provisioned scenarios in the profile's suite order (Phase 1 before
// Phase 2, Core §2), which does not depend on the order in which parallel scenarios ran.
// Scenarios the profile does not define are left out, with a finding.
func (a *assembly) scenarioIDs() []string {
	var requested []string
	for _, ex := range a.p.exchanges {
		if ex.step == stepProvision && ex.req.ScenarioID != "" {
			requested = appendUnique(requested, ex.req.ScenarioID)
		}
	}
	var ids []string
	for _, sc := range a.rec.opts.Profile.Scenarios {
		if slices.Contains(requested, sc.ID) {
			ids = append(ids, sc.ID)
		}
	}
	slices.Sort(requested)
	for _, id := range requested {
		if !slices.Contains(ids, id) {
			a.rec.addFinding(store.Finding{Code: CodeUnknownScenario, Severity: store.SeverityError, Scenario: id,
				Message: fmt.Sprintf("the runner provisioned a scenario profile %s %s does not define; it is left out of the run", a.rec.m.Profile.ID, a.rec.m.Profile.Version)})
		}
	}
	return ids
}

// nameExchanges keeps every exchange as a manifest source: the run's own first (conformance,
// identity, calls no scenario claims), then each scenario's in manifest order, each group by
// step, target and digest; named exchanges/<scenario or "run">/<n>-<step>.json.
func (a *assembly) nameExchanges(ids []string) {
	group := func(ex *exchange) int {
		if i := slices.Index(ids, ex.scenario); i >= 0 {
			return i + 1
		}
		return 0
	}
	list := slices.Clone(a.p.exchanges)
	slices.SortFunc(list, func(x, y *exchange) int {
		return cmpFirst(group(x)-group(y), stepRank[x.step]-stepRank[y.step], strings.Compare(x.target, y.target),
			bytes.Compare(x.blob.Digest[:], y.blob.Digest[:]))
	})
	a.paths = map[*exchange]string{}
	n, last := 0, -1
	for _, ex := range list {
		if ex.blob.Digest.IsZero() {
			continue
		}
		g := group(ex)
		if g != last {
			n, last = 0, g
		}
		n++
		name := "run"
		if g > 0 {
			name = ids[g-1]
		}
		a.paths[ex] = fmt.Sprintf("exchanges/%s/%03d-%s.json", name, n, ex.step)
		a.rec.m.Sources = append(a.rec.m.Sources, store.SourceFile{Path: a.paths[ex], Blob: ex.blob})
	}
}

// wireLog stores the order of the calls (store.WireLog): every exchange in arrival order, with
// the positions of its arrival and completion, its attribution and what its answer said. Its
// strings pass through the hooks, as the exchanges' do.
func (a *assembly) wireLog(ctx context.Context) error {
	p := a.rec.hooks.pass()
	h := p.str
	wl := &store.WireLog{Calls: []store.WireCall{}}
	for _, ex := range a.p.exchanges {
		if ex.blob.Digest.IsZero() {
			continue
		}
		env := ex.envID
		if ex.step == stepProvision {
			env = provisionEnv(ex)
			if env == "" && ex.provision != nil {
				env = ex.provision.EnvironmentID
			}
		}
		wl.Calls = append(wl.Calls, store.WireCall{Seq: len(wl.Calls) + 1, Start: ex.start, End: ex.end, Side: ex.side, Step: ex.step,
			Method: ex.method, Target: ex.recordedTarget, Scenario: h(ex.scenario), EnvironmentID: h(env),
			ObservationType: h(ex.req.ObservationType), Status: ex.status, Outcome: h(ex.outcome), Failure: h(ex.failure),
			Exchange: ex.blob, Source: a.paths[ex]})
	}
	desc, err := store.Put(ctx, a.rec.s, wl)
	if err != nil {
		return err
	}
	a.rec.stored(desc.Digest, p)
	a.rec.m.WireLog = &desc
	return nil
}

// runFacts fills what the run-wide calls tell: the conformance answer and the provider's
// identity, the agent's identity and configuration. If a call was made more than once, the
// last successful answer counts.
func (a *assembly) runFacts(ctx context.Context) error {
	var conformance, identity *exchange
	for _, ex := range a.p.exchanges {
		if !ex.succeeded() || !json.Valid(ex.respBody) {
			continue
		}
		switch ex.step {
		case stepConformance:
			if conformance == nil || ex.seq > conformance.seq {
				conformance = ex
			}
		case stepIdentity:
			if identity == nil || ex.seq > identity.seq {
				identity = ex
			}
		}
	}
	if conformance != nil {
		desc, err := a.rec.putBytes(ctx, conformance.respBody, store.MediaTypeConformance)
		if err != nil {
			return err
		}
		a.rec.m.Conformance = &desc
		var c struct {
			Provider        string `json:"provider"`
			ProviderVersion string `json:"provider_version"`
		}
		if json.Unmarshal(conformance.respBody, &c) == nil && (c.Provider != "" || c.ProviderVersion != "") {
			a.rec.m.Provider = &store.ProviderInfo{Name: c.Provider, Version: c.ProviderVersion}
		}
	}
	if identity != nil {
		var id struct {
			Identity      store.AgentIdentity        `json:"identity"`
			Configuration map[string]json.RawMessage `json:"configuration"`
		}
		if err := json.Unmarshal(identity.respBody, &id); err != nil {
			identity.findings = append(identity.findings, store.Finding{Code: CodeMalformedBody, Severity: store.SeverityError,
				Field: identity.what(), Message: "the identity answer cannot be read: " + err.Error()})
			return nil
		}
		a.rec.m.Agent = id.Identity
		if len(id.Configuration) > 0 {
			a.rec.m.AgentConfiguration = map[string]string{}
			for k, v := range id.Configuration {
				a.rec.m.AgentConfiguration[k] = configLiteral(v)
			}
		}
	}
	return nil
}

// configLiteral renders a configuration value as the manifest keeps it: a string's content,
// the JSON text of anything else.
func configLiteral(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// scenarioEvidence assembles one scenario: the environment of its last successful provision,
// the transcript of its last successful agent task, and every observation made of that
// environment. Without an environment or a transcript the scenario has no evidence (the
// evaluator gives PROVIDER_FAILURE), and a finding says why.
func (a *assembly) scenarioEvidence(ctx context.Context, id string) (*store.Descriptor, error) {
	var env string
	var provisions, tasks []*exchange
	for _, ex := range a.p.exchanges {
		if ex.scenario != id {
			continue
		}
		switch ex.step {
		case stepProvision:
			provisions = append(provisions, ex)
		case stepTask:
			tasks = append(tasks, ex)
		}
	}
	slices.SortFunc(provisions, func(x, y *exchange) int { return x.seq - y.seq })
	slices.SortFunc(tasks, func(x, y *exchange) int { return x.seq - y.seq })
	for _, ex := range provisions {
		if e := a.p.envs[provisionEnv(ex)]; e != nil {
			env = e.id
		}
	}
	var task *exchange
	for _, ex := range tasks {
		if ex.succeeded() && ex.transcript != nil {
			task = ex
		}
	}
	if len(provisions) > 1 || len(tasks) > 1 {
		a.rec.addFinding(store.Finding{Code: CodeRepeatedTask, Severity: store.SeverityWarning, Scenario: id,
			Message: fmt.Sprintf("the scenario was provisioned %d times and given %d agent tasks; the last successful of each is its evidence", len(provisions), len(tasks))})
	}
	switch {
	case env == "":
		if !hasFinding(provisions) {
			a.rec.addFinding(store.Finding{Code: CodeMissingEvidence, Severity: store.SeverityError, Scenario: id,
				Message: "no provision of the scenario succeeded; no evidence is recorded"})
		}
		return nil, nil
	case task == nil:
		if !hasFinding(tasks) {
			a.rec.addFinding(store.Finding{Code: CodeNoTranscript, Severity: store.SeverityError, Scenario: id,
				Message: fmt.Sprintf("environment %q was provisioned but no agent transcript was recorded for the scenario; no evidence is recorded", env)})
		}
		return nil, nil
	}
	ev := &store.ScenarioEvidence{ScenarioID: id, Transcript: task.transcript.transcript, ObservedModel: task.transcript.model,
		Observations: []store.Observation{}}
	if len(task.transcript.nonScoring) > 0 {
		ev.NonScoring = task.transcript.nonScoring
	}
	for _, ex := range a.p.exchanges {
		if ex.obs != nil && ex.envID == env {
			o := *ex.obs
			o.Attributes = map[string]string{store.AttrSource: a.paths[ex]}
			ev.Observations = append(ev.Observations, o)
		}
	}
	slices.SortFunc(ev.Observations, compareObservations)
	desc, err := a.rec.putEvidence(ctx, ev)
	if err != nil {
		return nil, err
	}
	return &desc, nil
}

func provisionEnv(ex *exchange) string {
	if ex.provision == nil || !ex.succeeded() || ex.provision.Status == "error" {
		return ""
	}
	return ex.provision.EnvironmentID
}

func hasFinding(list []*exchange) bool {
	for _, ex := range list {
		if len(ex.findings) > 0 {
			return true
		}
	}
	return false
}

// compareObservations orders a scenario's observations by content: snapshots before the task,
// then the rest, then snapshots after it; within each, by observation type, timestamp and
// payload digest.
func compareObservations(x, y store.Observation) int {
	rank := func(o store.Observation) int {
		switch o.Phase {
		case store.PhaseBefore:
			return 0
		case store.PhaseAfter:
			return 2
		}
		return 1
	}
	return cmpFirst(rank(x)-rank(y), strings.Compare(x.Type, y.Type), strings.Compare(x.Timestamp, y.Timestamp),
		bytes.Compare(x.Data.Digest[:], y.Data.Digest[:]))
}

// tier is the claimed tier: the option, else the tier of the provision request of the first
// scenario that sent one.
func (a *assembly) tier(ids []string) int {
	if a.p.opts.Tier > 0 {
		return a.p.opts.Tier
	}
	for _, id := range ids {
		for _, ex := range a.p.exchanges {
			if ex.step == stepProvision && ex.req.ScenarioID == id && ex.req.Tier != nil {
				return *ex.req.Tier
			}
		}
	}
	return 0
}
