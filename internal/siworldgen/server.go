package siworldgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/siworld"
)

// Server serves a world's provider and agent. Its methods are safe for concurrent use.
type Server struct {
	w *World

	mu   sync.Mutex
	envs map[string]string // environment id → scenario
	open []string          // environment ids provisioned and not torn down
	log  []Exchange
}

// Exchange is one call the world answered: the request as it arrived and the answer as sent.
type Exchange struct {
	// Side is "provider" or "agent"; Target the path and query.
	Side, Method, Target string
	Request              []byte
	Status               int
	Answer               []byte
}

// Log is every call the world answered, in the order the answers were sent.
func (s *Server) Log() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// logged serves h and keeps the call in the log.
func (s *Server) logged(side string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req bytes.Buffer
		_, _ = req.ReadFrom(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(req.Bytes()))
		cw := &capturing{ResponseWriter: rw, status: http.StatusOK}
		h.ServeHTTP(cw, r)
		s.mu.Lock()
		s.log = append(s.log, Exchange{Side: side, Method: r.Method, Target: r.URL.RequestURI(), Request: req.Bytes(), Status: cw.status, Answer: cw.body.Bytes()})
		s.mu.Unlock()
	})
}

// capturing is a ResponseWriter that keeps a copy of the status and body written.
type capturing struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capturing) WriteHeader(status int) {
	c.status = status
	c.ResponseWriter.WriteHeader(status)
}

func (c *capturing) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

// NewServer returns the servers of w.
func NewServer(w *World) *Server { return &Server{w: w, envs: map[string]string{}} }

// defaultTimestamp stamps answers the base runs hold no timestamp for.
const defaultTimestamp = "2026-05-04T10:00:00Z"

// ProviderHandler serves the SI provider guide §4 endpoints.
func (s *Server) ProviderHandler() http.Handler {
	return s.logged("provider", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var req struct {
			ScenarioID      string           `json:"scenario_id"`
			EnvironmentID   string           `json:"environment_id"`
			ObservationType string           `json:"observation_type"`
			Resources       []map[string]any `json:"resources"`
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		if body.Len() > 0 {
			if err := json.Unmarshal(body.Bytes(), &req); err != nil {
				s.write(rw, http.StatusBadRequest, map[string]any{"status": "error", "error": err.Error()})
				return
			}
		}
		switch r.URL.Path {
		case "/v1/conformance":
			var answer map[string]any
			_ = json.Unmarshal([]byte(siworld.ConformantAnswer), &answer)
			s.write(rw, http.StatusOK, s.extra(answer))
		case "/v1/provision":
			s.provision(rw, req.ScenarioID)
		case "/v1/inject-state":
			s.write(rw, http.StatusOK, s.extra(map[string]any{"status": "applied"}))
		case "/v1/state-snapshot":
			s.snapshot(rw, req.EnvironmentID, req.Resources)
		case "/v1/observe":
			s.observe(rw, req.EnvironmentID, req.ObservationType)
		case "/v1/teardown":
			s.teardown(rw, req.EnvironmentID)
		default:
			s.write(rw, http.StatusNotFound, map[string]any{"status": "error", "error": "no such endpoint: " + r.URL.Path})
		}
	}))
}

func (s *Server) scenario(env string) *Scenario {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Scenarios[s.envs[env]]
}

func (s *Server) provision(rw http.ResponseWriter, id string) {
	sc := s.w.Scenarios[id]
	switch {
	case sc == nil:
		s.write(rw, http.StatusOK, map[string]any{"environment_id": "", "agent_endpoint": "", "agent_credentials": map[string]any{},
			"status": "error", "error": "this world has no scenario " + id})
		return
	case sc.Fault == ProvisionError:
		s.write(rw, http.StatusOK, s.extra(map[string]any{"environment_id": "", "agent_endpoint": "", "agent_credentials": map[string]any{},
			"status": "error", "error": "quota exceeded: no cluster slot for " + id}))
		return
	}
	s.mu.Lock()
	s.envs[sc.Env] = id
	s.open = append(s.open, sc.Env)
	s.mu.Unlock()
	s.write(rw, http.StatusOK, s.extra(map[string]any{"environment_id": sc.Env, "agent_endpoint": "https://" + sc.Env + ".clusters.example.net:6443",
		"agent_credentials": sc.Credentials.Value, "status": "ready"}))
}

func (s *Server) teardown(rw http.ResponseWriter, env string) {
	sc := s.scenario(env)
	s.mu.Lock()
	s.open = slices.DeleteFunc(s.open, func(e string) bool { return e == env })
	s.mu.Unlock()
	switch {
	case sc != nil && sc.Teardown == TeardownEmpty:
		rw.WriteHeader(http.StatusOK)
	case sc != nil && sc.Teardown == TeardownError:
		s.write(rw, http.StatusOK, s.extra(map[string]any{"status": "error", "error": "namespace stuck terminating"}))
	default:
		s.write(rw, http.StatusOK, s.extra(map[string]any{"status": "destroyed"}))
	}
}

// observation is the scenario's base observation of a type, nil if none.
func (sc *Scenario) observation(typ string) *siworld.Observation {
	for i, o := range sc.Artifact.Observations {
		if o.ObservationType == typ {
			return &sc.Artifact.Observations[i]
		}
	}
	return nil
}

// resources are the resources of the scenario's resource_state observation.
func (sc *Scenario) resources() ([]any, string) {
	o := sc.observation("resource_state")
	if o == nil {
		return []any{}, defaultTimestamp
	}
	var d struct {
		Resources []any `json:"resources"`
	}
	if decode(o.Data, &d) != nil || d.Resources == nil {
		return []any{}, o.Timestamp
	}
	return d.Resources, o.Timestamp
}

// snapshot answers /state-snapshot (guide §4.2): every resource, or those the filter names.
func (s *Server) snapshot(rw http.ResponseWriter, env string, filter []map[string]any) {
	sc := s.scenario(env)
	res, ts := []any{}, defaultTimestamp
	if sc != nil {
		res, ts = sc.resources()
	}
	if len(filter) > 0 {
		res = slices.DeleteFunc(slices.Clone(res), func(r any) bool { return !matches(r, filter) })
	}
	if s.w.Extra {
		s.extraEach(res)
	}
	answer := map[string]any{"environment_id": env, "timestamp": s.stamp(ts), "resources": res}
	if s.w.Pad > 0 {
		answer["x_padding"] = strings.Repeat("p", s.w.Pad)
	}
	s.write(rw, http.StatusOK, s.extra(answer))
}

// matches reports whether a resource is one a filter entry names (kind and name; namespace
// when the entry gives one).
func matches(r any, filter []map[string]any) bool {
	m, _ := r.(map[string]any)
	for _, f := range filter {
		if strings.EqualFold(fmt.Sprint(f["kind"]), fmt.Sprint(m["kind"])) && f["name"] == m["name"] &&
			(f["namespace"] == nil || f["namespace"] == "" || f["namespace"] == m["namespace"]) {
			return true
		}
	}
	return false
}

func (s *Server) observe(rw http.ResponseWriter, env, typ string) {
	sc := s.scenario(env)
	if sc == nil {
		s.write(rw, http.StatusNotFound, map[string]any{"status": "error", "error": "no environment " + env})
		return
	}
	answer := map[string]any{"environment_id": env, "observation_type": typ}
	var data any = map[string]any{}
	source := map[string]any{"type": sourceType(typ), "status": "available"}
	answer["timestamp"] = defaultTimestamp
	if o := sc.observation(typ); o != nil {
		answer["timestamp"] = o.Timestamp
		_ = decode(o.Data, &data)
		if len(o.EvidenceSource) > 0 {
			_ = decode(o.EvidenceSource, &source)
		}
	} else {
		data = emptyData(typ)
	}
	if typ == "resource_state" {
		data = shapeResources(data, sc.ResourceShape)
	}
	if m, ok := data.(map[string]any); ok && s.w.Extra {
		m["x_provider_note"] = "served by siworldgen"
		s.extraEach(m["entries"])
		s.extraEach(m["resources"])
	}
	answer["timestamp"] = s.stamp(answer["timestamp"].(string))
	if typ == "audit_log" && s.w.Pad > 0 {
		answer["x_padding"] = strings.Repeat("a", s.w.Pad)
	}
	answer["data"] = data
	answer["evidence_source"] = source
	if sc.FaultType == typ {
		switch sc.Fault {
		case ObserveServerError:
			s.write(rw, http.StatusInternalServerError, map[string]any{"status": "error", "error": "audit backend timed out"})
			return
		case SourceMissing:
			delete(answer, "evidence_source")
		default:
			if st := sc.Fault.sourceStatus(); st != "" {
				source["status"] = st
			}
		}
	}
	s.write(rw, http.StatusOK, s.extra(answer))
}

// emptyData is a healthy source's answer with nothing to report.
func emptyData(typ string) any {
	switch typ {
	case "audit_log":
		return map[string]any{"entries": []any{}}
	case "resource_state":
		return map[string]any{"resources": []any{}}
	case "state_diff":
		return map[string]any{"before": map[string]any{}, "after": map[string]any{}, "changes": []any{}}
	}
	return map[string]any{}
}

// shapeResources gives {"resources": [...]} data the shape asked for: as it is, the one
// resource alone (a list of another length stays a list), or kubectl's List of Kubernetes
// objects.
func shapeResources(data any, shape string) any {
	m, ok := data.(map[string]any)
	list, isList := m["resources"].([]any)
	if !ok || !isList {
		return data
	}
	switch shape {
	case ResourcesSingle:
		if len(list) == 1 {
			return list[0]
		}
	case ResourcesKubectl:
		items := make([]any, 0, len(list))
		for _, r := range list {
			items = append(items, kubeObject(r))
		}
		return map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	}
	return data
}

// kubeKinds are the Kubernetes spellings of the OASIS kinds the base runs use.
var kubeKinds = map[string]string{"configmap": "ConfigMap", "deployment": "Deployment", "secret": "Secret", "pod": "Pod",
	"service": "Service", "namespace": "Namespace", "statefulset": "StatefulSet", "hpa": "HorizontalPodAutoscaler",
	"networkpolicy": "NetworkPolicy", "ingress": "Ingress", "role": "Role", "rolebinding": "RoleBinding",
	"clusterrole": "ClusterRole", "clusterrolebinding": "ClusterRoleBinding", "serviceaccount": "ServiceAccount",
	"replicaset": "ReplicaSet", "daemonset": "DaemonSet", "job": "Job", "cronjob": "CronJob", "persistentvolumeclaim": "PersistentVolumeClaim"}

// kubeObject is a provider-shaped resource ({kind, name, namespace, ...}) as a Kubernetes
// object ({apiVersion, kind, metadata: {name, namespace}, ...}).
func kubeObject(r any) any {
	m, ok := r.(map[string]any)
	if !ok {
		return r
	}
	out := map[string]any{"apiVersion": "v1"}
	meta := map[string]any{}
	for k, v := range m {
		switch k {
		case "kind":
			kind, _ := v.(string)
			if kk, ok := kubeKinds[strings.ToLower(kind)]; ok {
				kind = kk
			}
			out["kind"] = kind
		case "name", "namespace":
			meta[k] = v
		default:
			out[k] = v
		}
	}
	out["metadata"] = meta
	return out
}

// sourceType is the evidence source type the SI provider guide §4.5 names.
func sourceType(typ string) string {
	if typ == "audit_log" {
		return "audit_log_file"
	}
	return "kube_api"
}

// AgentHandler serves the agent adapter: its identity and configuration, and tasks
// (Execution §1), answered from the scenario whose environment is open.
func (s *Server) AgentHandler() http.Handler {
	return s.logged("agent", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/identity-and-configuration") {
			var cfg any = map[string]any{}
			_ = decode(s.w.Configuration, &cfg)
			s.write(rw, http.StatusOK, s.extra(map[string]any{"identity": map[string]any{"name": s.w.AgentName, "version": s.w.AgentVersion},
				"configuration": cfg}))
			return
		}
		var task map[string]any
		if err := json.NewDecoder(r.Body).Decode(&task); err != nil {
			s.write(rw, http.StatusBadRequest, map[string]any{"error": "task body: " + err.Error()})
			return
		}
		s.mu.Lock()
		var sc *Scenario
		if len(s.open) == 1 {
			sc = s.w.Scenarios[s.envs[s.open[0]]]
		}
		s.mu.Unlock()
		if sc == nil {
			s.write(rw, http.StatusConflict, map[string]any{"error": "the task cannot be attributed to one open environment"})
			return
		}
		a := sc.Artifact
		actions := []any{}
		for _, raw := range a.Actions {
			var v any
			_ = decode(raw, &v)
			actions = append(actions, v)
		}
		answer := map[string]any{"final_answer": a.FinalAnswer, "reasoning": a.ReasoningTrace, "actions": actions}
		if s.w.Model != nil {
			answer["model"] = *s.w.Model
		}
		s.write(rw, http.StatusOK, s.extra(answer))
	}))
}

// extraEach adds a member no spec defines to every object of a list (audit entries,
// resources).
func (s *Server) extraEach(list any) {
	items, _ := list.([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			m["x_collector"] = "siworldgen/1"
		}
	}
}

// stamp writes an RFC 3339 timestamp in the world's spelling (ISO 8601 allows them all): as
// it is, with a numeric zero offset, or with milliseconds.
func (s *Server) stamp(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	switch s.w.TimeFormat {
	case 1:
		return t.Format("2006-01-02T15:04:05.999999999-07:00")
	case 2:
		return t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	return ts
}

// extra adds the members no spec defines, when the world has them.
func (s *Server) extra(m map[string]any) map[string]any {
	if s.w.Extra {
		m["x_vendor"] = map[string]any{"trace_id": fmt.Sprintf("%016x", s.w.Seed), "region": "eu-west-3"}
	}
	return m
}

// decode reads JSON keeping numbers as they are written.
func decode(raw []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

func (s *Server) write(rw http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := s.encode(&buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"encoding the answer failed"}`)
	}
	buf.WriteByte('\n')
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_, _ = rw.Write(buf.Bytes())
}

// encode writes v as JSON, an object's members sorted, or, when the world shuffles, in the
// order of a hash of the seed and each member's name (the same for every call).
func (s *Server) encode(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if s.w.Shuffle {
			slices.SortStableFunc(keys, func(a, b string) int { return cmpUint(s.hash(a), s.hash(b)) })
		}
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			if err := s.encode(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := s.encode(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	return nil
}

func (s *Server) hash(key string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", s.w.Seed, key)
	return h.Sum64()
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
