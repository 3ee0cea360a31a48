package recordertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/profiles"
)

// Call is one call of a runner and the answer it got.
type Call struct {
	// Side is "provider" or "agent"; Target the path and query.
	Side, Method, Target string
	Status               int
	Body                 []byte
}

// ScenarioRun is what a runner kept of one scenario: the agent's answer and the observations
// it accepted, or the fault that stopped the scenario.
type ScenarioRun struct {
	ID           string
	Fault        string
	Answer       []byte
	Observations [][]byte
}

// RunLog is what a Runner saw: every call in order, and per scenario what it kept. A nil
// RunLog keeps nothing.
type RunLog struct {
	mu        sync.Mutex
	Calls     []Call
	Scenarios []*ScenarioRun
}

func (l *RunLog) call(c Call) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Calls = append(l.Calls, c)
}

// scenario starts the record of a scenario; nil when the log is nil.
func (l *RunLog) scenario(id string) *ScenarioRun {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &ScenarioRun{ID: id}
	l.Scenarios = append(l.Scenarios, s)
	return s
}

func (s *ScenarioRun) fail(why string) {
	if s != nil {
		s.Fault = why
	}
}

func (s *ScenarioRun) answer(b []byte) {
	if s != nil {
		s.Answer = b
	}
}

func (s *ScenarioRun) observe(b []byte) {
	if s != nil {
		s.Observations = append(s.Observations, b)
	}
}

// The shapes oasisctl (b789b6f) writes: internal/execution/evidence.go (EvidenceArtifact,
// EvidenceAction) and internal/evaluation (ObserveResponse, EvidenceSource). Its agent
// adapter decodes an answer into AgentResponse and its provider client an /observe answer
// into ObserveResponse, so members neither defines are dropped, data is re-encoded from Go
// values (members sorted, numbers as float64) and the timestamp from a time.Time.
type (
	oasisctlArtifact struct {
		ScenarioID        string             `json:"scenario_id"`
		FinalAnswer       string             `json:"final_answer"`
		ReasoningTrace    string             `json:"reasoning_trace"`
		Actions           []oasisctlAction   `json:"actions"`
		Observations      []oasisctlObserved `json:"observations"`
		ObservedModel     *string            `json:"observed_model"`
		VacuousAssertions []any              `json:"vacuous_assertions"`
	}
	oasisctlAction struct {
		ID         string         `json:"id,omitempty"`
		Tool       string         `json:"tool"`
		Arguments  map[string]any `json:"arguments"`
		Result     string         `json:"result"`
		Error      string         `json:"error,omitempty"`
		ErrorCode  string         `json:"error_code,omitempty"`
		DurationMs int            `json:"duration_ms,omitempty"`
	}
	oasisctlObserved struct {
		EnvironmentID   string          `json:"environment_id"`
		Timestamp       time.Time       `json:"timestamp"`
		ObservationType string          `json:"observation_type"`
		Data            any             `json:"data"`
		EvidenceSource  *oasisctlSource `json:"evidence_source,omitempty"`
	}
	oasisctlSource struct {
		Type   string `json:"type"`
		Status string `json:"status"`
	}
	oasisctlAnswer struct {
		FinalAnswer string           `json:"final_answer"`
		Reasoning   string           `json:"reasoning"`
		Actions     []oasisctlAction `json:"actions"`
		Model       *string          `json:"model"`
	}
)

// Report is what the runner's report says beyond what the run log holds.
type Report struct {
	Profile                 *profiles.Profile
	AgentName, AgentVersion string
	Configuration           json.RawMessage
	// Claimed is the status the report claims for a scenario the runner ran to its end (the
	// runner evaluates nothing; a faulted scenario is claimed PROVIDER_FAILURE).
	Claimed func(id string) string
}

// WriteOasisctl writes the runner's output as oasisctl writes it into dir: verdict.json
// (scenario_details in run order, each with its evidence_path) and evidence/evidence-<id>.json
// for every scenario whose observations all were available; a scenario a fault stopped has
// no artifact and is claimed PROVIDER_FAILURE with the fault as its evidence.
func (l *RunLog) WriteOasisctl(dir string, rep Report) error {
	if err := os.MkdirAll(filepath.Join(dir, "evidence"), 0o755); err != nil {
		return err
	}
	details := []map[string]any{}
	for _, s := range l.Scenarios {
		sc, ok := rep.Profile.Scenario(s.ID)
		if !ok {
			return fmt.Errorf("scenario %s is not in the profile", s.ID)
		}
		d := map[string]any{"scenario_id": s.ID, "category": sc.Category, "subcategory": sc.Subcategory, "archetype": sc.Archetype,
			"tolerance_flag": false}
		if s.Fault != "" {
			d["status"], d["passed"], d["score"], d["evidence"] = "PROVIDER_FAILURE", false, 0, []string{s.Fault}
			details = append(details, d)
			continue
		}
		status := rep.Claimed(s.ID)
		d["status"], d["passed"], d["score"] = status, status == "PASS", map[bool]int{true: 1}[status == "PASS"]
		rel := "evidence/evidence-" + s.ID + ".json"
		if err := s.writeArtifact(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("scenario %s: %w", s.ID, err)
		}
		d["evidence_path"] = rel
		details = append(details, d)
	}
	cfg := rep.Configuration
	if len(cfg) == 0 {
		cfg = json.RawMessage("{}")
	}
	report := map[string]any{
		"metadata": map[string]any{"agent_name": rep.AgentName, "agent_version": rep.AgentVersion, "evaluator": "oasisctl 0.1.0",
			"oasis_core_spec": "≥ 1.0.0-rc1.5", "profile_name": "Software Infrastructure Profile", "profile_version": rep.Profile.Pin.Version,
			"evaluation_mode": map[string]any{"safety_only": false, "complete": true}},
		"environment":         map[string]any{"tier_claimed": 1, "evidence": ""},
		"agent_configuration": cfg,
		"scenario_details":    details,
	}
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "verdict.json"), append(b, '\n'), 0o644)
}

// writeArtifact writes the scenario's evidence artifact as oasisctl does (json.MarshalIndent,
// two spaces, a final newline).
func (s *ScenarioRun) writeArtifact(path string) error {
	var ans oasisctlAnswer
	if err := json.Unmarshal(s.Answer, &ans); err != nil {
		return fmt.Errorf("the agent's answer: %w", err)
	}
	a := oasisctlArtifact{ScenarioID: s.ID, FinalAnswer: ans.FinalAnswer, ReasoningTrace: ans.Reasoning, Actions: ans.Actions,
		Observations: []oasisctlObserved{}, ObservedModel: ans.Model}
	if a.Actions == nil {
		a.Actions = []oasisctlAction{}
	}
	if a.ObservedModel != nil && *a.ObservedModel == "" {
		a.ObservedModel = nil
	}
	for _, b := range s.Observations {
		var o oasisctlObserved
		if err := json.Unmarshal(b, &o); err != nil {
			return fmt.Errorf("an observation: %w", err)
		}
		a.Observations = append(a.Observations, o)
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
