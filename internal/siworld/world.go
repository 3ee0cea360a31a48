// Package siworld is a scripted Software Infrastructure world for tests and benchmarks: an OASIS
// environment provider and an agent adapter, both over HTTP, that replay one evaluation run
// written by the reference runner (an oasisctl output directory: the report and the
// per-scenario evidence artifacts). A runner driven against them sees the provider's
// observations and the agent's answers of the original run, so the same run can be captured
// twice, live through record proxy and imported from the runner's output, and the two verdicts
// compared.
//
// The provider answers every call of the SI provider guide §4 in the guide's own shapes:
// GET /v1/conformance (§4.0), POST /v1/provision (§4.1: environment_id, agent_endpoint,
// agent_credentials, status), /v1/state-snapshot (§4.2: environment_id, timestamp, resources
// with kind, name, namespace, spec and status), /v1/teardown (§4.3: status "destroyed"),
// /v1/inject-state (§4.4: status "applied") and /v1/observe (§4.5: environment_id, timestamp,
// observation_type, data, evidence_source). Observations come from the scenario's artifact; a
// scenario the report marks PROVIDER_FAILURE and that has no artifact gets every observation
// answered with evidence_source.status "unreachable", which is how such a run arose. Faults
// add other misbehaviour per scenario.
//
// The agent answers GET /identity-and-configuration with the report's agent name, version and
// configuration, and a task (POST to its root) with the transcript of the scenario whose
// environment is open: final_answer, reasoning, actions and model, as oasisctl's HTTP adapter
// reads them. It is meant for runners that run one scenario at a time, as oasisctl does by
// default; a task while several environments are open is answered 409.
//
// Nothing here reads a clock or a random source: environment ids are numbered in provision
// order, timestamps come from the artifacts, so a runner that calls in the same order gets the
// same bytes.
package siworld

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Run is one oasisctl run as the world replays it.
type Run struct {
	AgentName     string
	AgentVersion  string
	Configuration json.RawMessage
	// Statuses are the report's scenario statuses by scenario id.
	Statuses map[string]string
	// Artifacts are the evidence artifacts by scenario id.
	Artifacts map[string]*Artifact
}

// Artifact is the part of an evidence artifact the world serves.
type Artifact struct {
	FinalAnswer    string            `json:"final_answer"`
	ReasoningTrace string            `json:"reasoning_trace"`
	Actions        []json.RawMessage `json:"actions"`
	Observations   []Observation     `json:"observations"`
	ObservedModel  *string           `json:"observed_model"`
}

// Observation is one observation of an artifact, as the provider's /observe answered it.
type Observation struct {
	EnvironmentID   string          `json:"environment_id"`
	Timestamp       string          `json:"timestamp"`
	ObservationType string          `json:"observation_type"`
	Data            json.RawMessage `json:"data"`
	EvidenceSource  json.RawMessage `json:"evidence_source,omitempty"`
}

// LoadRun reads an oasisctl output directory: verdict.json and evidence/evidence-<id>.json.
func LoadRun(dir string) (*Run, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		return nil, err
	}
	var report struct {
		Metadata struct {
			AgentName    string `json:"agent_name"`
			AgentVersion string `json:"agent_version"`
		} `json:"metadata"`
		AgentConfiguration json.RawMessage `json:"agent_configuration"`
		ScenarioDetails    []struct {
			ScenarioID string `json:"scenario_id"`
			Status     string `json:"status"`
		} `json:"scenario_details"`
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "verdict.json"), err)
	}
	run := &Run{AgentName: report.Metadata.AgentName, AgentVersion: report.Metadata.AgentVersion,
		Configuration: report.AgentConfiguration, Statuses: map[string]string{}, Artifacts: map[string]*Artifact{}}
	for _, s := range report.ScenarioDetails {
		run.Statuses[s.ScenarioID] = s.Status
	}
	files, err := filepath.Glob(filepath.Join(dir, "evidence", "evidence-*.json"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var a struct {
			ScenarioID string `json:"scenario_id"`
			Artifact
		}
		if err := json.Unmarshal(b, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		run.Artifacts[a.ScenarioID] = &a.Artifact
	}
	return run, nil
}

// Fault is a way a scenario's calls misbehave.
type Fault string

// The faults a scenario can be given.
const (
	// ProvisionError answers the provision 200 with status "error" (SI provider guide §4.1).
	ProvisionError Fault = "provision-error"
	// ObserveUnreachable answers every observation with evidence_source.status "unreachable".
	ObserveUnreachable Fault = "observe-unreachable"
	// ObserveServerError answers every observation with status 500.
	ObserveServerError Fault = "observe-500"
	// TeardownError answers the teardown with status "error".
	TeardownError Fault = "teardown-error"
	// ObserveMalformed answers every observation with a data member of the wrong shape
	// (resources a number, entries a string).
	ObserveMalformed Fault = "observe-malformed"
)

// Options shape the world's answers.
type Options struct {
	// Conformance is the body of the /v1/conformance answer; nil gives a conformant SI answer
	// (ConformantAnswer).
	Conformance []byte
	// ConformanceStatus is the status of that answer; 0 means 200.
	ConformanceStatus int
	// Faults are per-scenario faults, beside those the run implies.
	Faults map[string]Fault
	// SingleResource answers a resource_state observation that holds one resource with that
	// resource alone ("the full resource spec/status", SI provider guide §4.5) instead of
	// {"resources": [...]}.
	SingleResource bool
	// AgentCredentials is the agent_credentials member of a successful provision answer for
	// environment env; nil gives {"token": "token-<env>"}. The SI provider guide §4.1 leaves
	// its shape open ("kubeconfig content, bearer token, etc.").
	AgentCredentials func(env string) any
}

// ConformantAnswer is a /v1/conformance answer that meets every requirement of the SI profile
// 0.2.0-rc3 contract at tier 1 (Provider Conformance §3.8.2; the contract's §5.1 example).
const ConformantAnswer = `{"provider":"siworld","provider_version":"1.0.0","oasis_core_spec_versions":["1.0.0-rc1.5"],` +
	`"profile":"oasis-profile-software-infrastructure","profile_version":"0.2.0-rc3","supported":true,` +
	`"requirements":{"environment_type":"kubernetes-cluster","complexity_tier_supported":1,` +
	`"oasis_core_spec_version":["1.0.0-rc1.5"],"evidence_sources_available":["audit_log","resource_state","state_diff","value_containment"],` +
	`"value_containment_support":true,"state_injection":true,"audit_policy_installation":true,"network_policy_enforcement":true},` +
	`"unmet_requirements":[]}`

// World is the scripted provider and agent. Its methods are safe for concurrent use.
type World struct {
	run  *Run
	opts Options

	mu   sync.Mutex
	n    int
	envs map[string]string // environment id → scenario
	open []string          // environment ids provisioned and not torn down, in provision order
}

// New returns a world replaying run.
func New(run *Run, opts Options) *World {
	return &World{run: run, opts: opts, envs: map[string]string{}}
}

func (w *World) fault(scenario string) Fault {
	if f, ok := w.opts.Faults[scenario]; ok {
		return f
	}
	if _, ok := w.run.Artifacts[scenario]; !ok && w.run.Statuses[scenario] == "PROVIDER_FAILURE" {
		return ObserveUnreachable
	}
	return ""
}

// ProviderHandler serves the provider's endpoints.
func (w *World) ProviderHandler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req struct {
			ScenarioID      string `json:"scenario_id"`
			EnvironmentID   string `json:"environment_id"`
			ObservationType string `json:"observation_type"`
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		if body.Len() > 0 {
			if err := json.Unmarshal(body.Bytes(), &req); err != nil {
				writeJSON(rw, http.StatusBadRequest, map[string]string{"status": "error", "error": err.Error()})
				return
			}
		}
		scenario := req.ScenarioID
		if scenario == "" {
			scenario = w.scenarioOf(req.EnvironmentID)
		}
		switch r.URL.Path {
		case "/v1/conformance":
			w.conformance(rw)
		case "/v1/provision":
			w.provision(rw, req.ScenarioID)
		case "/v1/inject-state":
			writeJSON(rw, http.StatusOK, map[string]string{"status": "applied"})
		case "/v1/state-snapshot":
			w.snapshot(rw, req.EnvironmentID, scenario)
		case "/v1/observe":
			w.observe(rw, req.EnvironmentID, scenario, req.ObservationType)
		case "/v1/teardown":
			w.teardown(rw, req.EnvironmentID, scenario)
		default:
			writeJSON(rw, http.StatusNotFound, map[string]string{"status": "error", "error": "no such endpoint: " + r.URL.Path})
		}
	})
}

func (w *World) scenarioOf(env string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.envs[env]
}

func (w *World) conformance(rw http.ResponseWriter) {
	status := w.opts.ConformanceStatus
	if status == 0 {
		status = http.StatusOK
	}
	body := w.opts.Conformance
	if body == nil {
		body = []byte(ConformantAnswer)
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

func (w *World) provision(rw http.ResponseWriter, scenario string) {
	if w.fault(scenario) == ProvisionError {
		writeJSON(rw, http.StatusOK, map[string]any{"environment_id": "", "agent_endpoint": "", "agent_credentials": map[string]string{},
			"status": "error", "error": "scripted provision failure for " + scenario})
		return
	}
	w.mu.Lock()
	w.n++
	env := fmt.Sprintf("env-%03d-%s", w.n, shortID(scenario))
	w.envs[env] = scenario
	w.open = append(w.open, env)
	w.mu.Unlock()
	var creds any = map[string]string{"token": "token-" + env}
	if w.opts.AgentCredentials != nil {
		creds = w.opts.AgentCredentials(env)
	}
	writeJSON(rw, http.StatusOK, map[string]any{"environment_id": env, "agent_endpoint": "https://127.0.0.1:6443",
		"agent_credentials": creds, "status": "ready"})
}

// shortID is the part of a scenario id after its tier and classification.
func shortID(id string) string {
	parts := strings.SplitN(id, ".", 3)
	return parts[len(parts)-1]
}

func (w *World) teardown(rw http.ResponseWriter, env, scenario string) {
	w.mu.Lock()
	w.open = slices.DeleteFunc(w.open, func(e string) bool { return e == env })
	w.mu.Unlock()
	if w.fault(scenario) == TeardownError {
		writeJSON(rw, http.StatusOK, map[string]string{"status": "error", "error": "scripted teardown failure"})
		return
	}
	writeJSON(rw, http.StatusOK, map[string]string{"status": "destroyed"})
}

// resources are the resources of the artifact's resource_state observation, or none.
func (w *World) resources(scenario string) (json.RawMessage, string) {
	a := w.run.Artifacts[scenario]
	if a == nil {
		return json.RawMessage("[]"), ""
	}
	for _, o := range a.Observations {
		if o.ObservationType != "resource_state" {
			continue
		}
		var d struct {
			Resources json.RawMessage `json:"resources"`
		}
		if json.Unmarshal(o.Data, &d) == nil && len(d.Resources) > 0 {
			return d.Resources, o.Timestamp
		}
	}
	return json.RawMessage("[]"), ""
}

func (w *World) snapshot(rw http.ResponseWriter, env, scenario string) {
	res, ts := w.resources(scenario)
	if ts == "" {
		ts = "2026-05-04T10:00:00Z"
	}
	writeJSON(rw, http.StatusOK, map[string]any{"environment_id": env, "timestamp": ts, "resources": res})
}

func (w *World) observe(rw http.ResponseWriter, env, scenario, typ string) {
	switch w.fault(scenario) {
	case ObserveServerError:
		writeJSON(rw, http.StatusInternalServerError, map[string]string{"status": "error", "error": "scripted observe failure"})
		return
	case ObserveUnreachable:
		writeJSON(rw, http.StatusOK, map[string]any{"environment_id": env, "timestamp": "2026-05-04T10:00:00Z", "observation_type": typ,
			"data": map[string]any{}, "evidence_source": map[string]string{"type": sourceType(typ), "status": "unreachable"}})
		return
	case ObserveMalformed:
		writeJSON(rw, http.StatusOK, map[string]any{"environment_id": env, "timestamp": "2026-05-04T10:00:00Z", "observation_type": typ,
			"data": map[string]any{"resources": 42, "entries": "none"}, "evidence_source": map[string]string{"type": sourceType(typ), "status": "available"}})
		return
	}
	if a := w.run.Artifacts[scenario]; a != nil {
		for _, o := range a.Observations {
			if o.ObservationType != typ {
				continue
			}
			data := o.Data
			if typ == "resource_state" && w.opts.SingleResource {
				data = single(data)
			}
			answer := map[string]any{"environment_id": env, "timestamp": o.Timestamp, "observation_type": typ, "data": data}
			if len(o.EvidenceSource) > 0 {
				answer["evidence_source"] = o.EvidenceSource
			}
			writeJSON(rw, http.StatusOK, answer)
			return
		}
	}
	// Nothing recorded of this type: a healthy source with nothing to report.
	data := map[string]any{}
	switch typ {
	case "audit_log":
		data["entries"] = []any{}
	case "resource_state":
		data["resources"] = []any{}
	case "state_diff":
		data = map[string]any{"before": map[string]any{}, "after": map[string]any{}, "changes": []any{}}
	}
	writeJSON(rw, http.StatusOK, map[string]any{"environment_id": env, "timestamp": "2026-05-04T10:00:00Z", "observation_type": typ,
		"data": data, "evidence_source": map[string]string{"type": sourceType(typ), "status": "available"}})
}

// single is {"resources": [r]} as r alone, anything else as it is.
func single(data json.RawMessage) json.RawMessage {
	var d struct {
		Resources []json.RawMessage `json:"resources"`
	}
	if json.Unmarshal(data, &d) == nil && len(d.Resources) == 1 {
		return d.Resources[0]
	}
	return data
}

// sourceType is the evidence source type the SI provider guide §4.5 names for an observation.
func sourceType(typ string) string {
	if typ == "audit_log" {
		return "audit_log_file"
	}
	return "kube_api"
}

// AgentHandler serves the agent adapter's endpoints.
func (w *World) AgentHandler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/identity-and-configuration") {
			cfg := w.run.Configuration
			if len(cfg) == 0 {
				cfg = json.RawMessage("{}")
			}
			writeJSON(rw, http.StatusOK, map[string]any{"identity": map[string]string{"name": w.run.AgentName, "version": w.run.AgentVersion},
				"configuration": cfg})
			return
		}
		var task struct{} // prompt, tools, mode, scope: the open environment says which scenario
		if err := json.NewDecoder(r.Body).Decode(&task); err != nil {
			writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "task body: " + err.Error()})
			return
		}
		scenario, err := w.taskScenario()
		if err != nil {
			writeJSON(rw, http.StatusConflict, map[string]string{"error": err.Error()})
			return
		}
		a := w.run.Artifacts[scenario]
		if a == nil {
			writeJSON(rw, http.StatusOK, map[string]any{"final_answer": "I will not act without more context.", "reasoning": "", "actions": []any{}})
			return
		}
		answer := map[string]any{"final_answer": a.FinalAnswer, "reasoning": a.ReasoningTrace, "actions": nonNil(a.Actions)}
		if a.ObservedModel != nil {
			answer["model"] = *a.ObservedModel
		}
		writeJSON(rw, http.StatusOK, answer)
	})
}

func nonNil(actions []json.RawMessage) []json.RawMessage {
	if actions == nil {
		return []json.RawMessage{}
	}
	return actions
}

// taskScenario is the scenario a task belongs to: the one whose environment is open. The
// world serves runners that run one scenario at a time.
func (w *World) taskScenario() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.open) != 1 {
		return "", fmt.Errorf("the task cannot be attributed: %d environments are open, the scripted world serves one at a time", len(w.open))
	}
	return w.envs[w.open[0]], nil
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the answer failed"}`)
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_, _ = rw.Write(append(b, '\n'))
}
