package evaluator

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator/behavior"
	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
)

// update rewrites golden files instead of comparing with them: go test ./evaluator -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// memSource is an in-memory Source: objects and blobs by digest.
type memSource struct {
	mu   sync.Mutex
	data map[store.Digest][]byte
}

func newMemSource() *memSource { return &memSource{data: map[store.Digest][]byte{}} }

func (m *memSource) put(b []byte) store.Digest {
	d := store.Sum(b)
	m.mu.Lock()
	m.data[d] = b
	m.mu.Unlock()
	return d
}

func (m *memSource) GetObject(_ context.Context, d store.Digest) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.data[d]
	if !ok {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, d)
	}
	return b, nil
}

func (m *memSource) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	b, err := m.GetObject(ctx, d)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

// blob stores a payload and returns its descriptor.
func (m *memSource) blob(mediaType string, b []byte) store.Descriptor {
	return store.Descriptor{MediaType: mediaType, Digest: m.put(b), Size: int64(len(b))}
}

// object encodes and stores a structured object.
func (m *memSource) object(t testing.TB, obj store.Object) store.Descriptor {
	t.Helper()
	b, desc, err := store.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	m.put(b)
	return desc
}

// loadSI returns the SI profile of the shared spec checkout, skipping when it is absent.
func loadSI(t testing.TB) *profiles.Profile { return profiletest.SI(t) }

// stubRules stand in for the behaviour rules in tests of the evaluator core: every behaviour
// is shown, every capability scenario scores its rubric's highest band. They make the core's
// results independent of the behaviour package while it changes.
type stubRules struct{}

const stubRule = "test-stub/1"

func (stubRules) Evaluate(id string, in *behavior.Input) (behavior.Outcome, error) {
	return behavior.Outcome{Shown: true, Rule: stubRule, Detail: "test stub: every behaviour is shown"}, nil
}

func (stubRules) Score(in *behavior.Input, _ []behavior.AssertionOutcome) (behavior.ScoreResult, error) {
	best := behavior.ScoreResult{Rule: stubRule}
	for _, b := range in.Scenario.Scoring.Rubric {
		if b.Kind == profiles.RubricScore && (best.Band == "" || b.Score > best.Score) {
			best.Band, best.Score = b.Name, b.Score
		}
	}
	return best, nil
}

func (stubRules) Check(*profiles.Profile) error { return nil }
func (stubRules) Table() ([]byte, error)        { return []byte(`{"stub":1}`), nil }
func (stubRules) Version() string               { return stubRule }

// fixedScores are rules that give each capability scenario a fixed score, for arithmetic tests.
type fixedScores map[string]decimal.Decimal

func (f fixedScores) Evaluate(id string, in *behavior.Input) (behavior.Outcome, error) {
	return stubRules{}.Evaluate(id, in)
}

func (f fixedScores) Score(in *behavior.Input, _ []behavior.AssertionOutcome) (behavior.ScoreResult, error) {
	return behavior.ScoreResult{Score: f[in.Scenario.ID], Rule: "fixed/1"}, nil
}
func (fixedScores) Check(*profiles.Profile) error { return nil }
func (fixedScores) Table() ([]byte, error)        { return []byte(`{}`), nil }
func (fixedScores) Version() string               { return "fixed/1" }

// oasisctlReport is what the fixture loader reads of an oasisctl report.
type oasisctlReport struct {
	Metadata struct {
		AgentName    string `json:"agent_name"`
		AgentVersion string `json:"agent_version"`
		Date         string `json:"date"`
		ProviderInfo string `json:"provider_info"`
	} `json:"metadata"`
	Environment struct {
		TierClaimed int `json:"tier_claimed"`
	} `json:"environment"`
	AgentConfiguration map[string]json.RawMessage `json:"agent_configuration"`
	ScenarioDetails    []struct {
		ScenarioID string   `json:"scenario_id"`
		Status     *string  `json:"status"`
		Errors     []string `json:"errors"`
	} `json:"scenario_details"`
}

// oasisctlEvidence is an oasisctl evidence-<id>.json artifact.
type oasisctlEvidence struct {
	ScenarioID     string `json:"scenario_id"`
	FinalAnswer    string `json:"final_answer"`
	ReasoningTrace string `json:"reasoning_trace"`
	Actions        []struct {
		ID        string          `json:"id"`
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    string          `json:"result"`
		Error     string          `json:"error"`
	} `json:"actions"`
	Observations []struct {
		EnvironmentID  string                `json:"environment_id"`
		Timestamp      string                `json:"timestamp"`
		Type           string                `json:"observation_type"`
		Data           json.RawMessage       `json:"data"`
		EvidenceSource *store.EvidenceSource `json:"evidence_source"`
	} `json:"observations"`
	ObservedModel string `json:"observed_model"`
}

// fixtureRun turns an oasisctl output directory into a stored run, the way a recorder would:
// scenarios in the report's order, one evidence object per artifact, observation payloads as
// blobs, a finding for each listed scenario without an artifact. It returns the run loaded back
// through LoadRun.
func fixtureRun(t testing.TB, p *profiles.Profile, name string) *Run {
	t.Helper()
	dir := sharedtest.OasisctlRun(t, name)
	raw, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep oasisctlReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	src := newMemSource()
	m := &store.RunManifest{
		Recorder:        store.RecorderInfo{Name: "fixture-loader", Version: "test", Source: "oasisctl"},
		Profile:         p.Pin.Ref(),
		CoreSpecVersion: CoreVersion,
		Agent:           store.AgentIdentity{Name: rep.Metadata.AgentName, Version: rep.Metadata.AgentVersion},
		Provider:        &store.ProviderInfo{URL: rep.Metadata.ProviderInfo},
		Tier:            rep.Environment.TierClaimed,
		Annotations:     map[string]string{store.AnnotationTimestamp: rep.Metadata.Date},
	}
	m.AgentConfiguration = map[string]string{}
	for k, v := range rep.AgentConfiguration {
		var s string
		if json.Unmarshal(v, &s) == nil {
			m.AgentConfiguration[k] = s
		} else {
			m.AgentConfiguration[k] = string(v)
		}
	}
	for _, d := range rep.ScenarioDetails {
		ref := store.ScenarioRef{ScenarioID: d.ScenarioID}
		path := filepath.Join(dir, "evidence", "evidence-"+d.ScenarioID+".json")
		if b, err := os.ReadFile(path); err == nil {
			ev := fixtureEvidence(t, src, b)
			desc := src.object(t, ev)
			ref.Evidence = &desc
		} else {
			for _, e := range d.Errors {
				m.Findings = append(m.Findings, store.Finding{Code: "missing-evidence", Severity: store.SeverityError, Scenario: d.ScenarioID, Message: e})
			}
			if len(d.Errors) == 0 {
				m.Findings = append(m.Findings, store.Finding{Code: "missing-evidence", Severity: store.SeverityError, Scenario: d.ScenarioID, Message: "no evidence artifact"})
			}
		}
		m.Scenarios = append(m.Scenarios, ref)
	}
	return storedRun(t, src, m)
}

// storedRun stores a run manifest and loads the run back through LoadRun.
func storedRun(t testing.TB, src *memSource, m *store.RunManifest) *Run {
	t.Helper()
	desc := src.object(t, m)
	run, err := LoadRun(context.Background(), src, desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func fixtureEvidence(t testing.TB, src *memSource, b []byte) *store.ScenarioEvidence {
	t.Helper()
	var a oasisctlEvidence
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	ev := &store.ScenarioEvidence{ScenarioID: a.ScenarioID, ObservedModel: a.ObservedModel, Observations: []store.Observation{},
		Transcript: store.Transcript{FinalAnswer: a.FinalAnswer, Reasoning: a.ReasoningTrace, Actions: []store.Action{}}}
	for _, act := range a.Actions {
		ev.Transcript.Actions = append(ev.Transcript.Actions, store.Action{ID: act.ID, Tool: act.Tool, Arguments: string(act.Arguments), Result: act.Result, Error: act.Error})
	}
	for _, o := range a.Observations {
		ev.Observations = append(ev.Observations, store.Observation{Type: o.Type, EnvironmentID: o.EnvironmentID, Timestamp: o.Timestamp,
			Source: o.EvidenceSource, Data: src.blob(payloadType(o.Type), o.Data)})
	}
	return ev
}

// pretty indents canonical JSON for golden files, which humans review.
func pretty(t testing.TB, canonical []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, canonical, "", "  "); err != nil {
		t.Fatal(err)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// statuses maps scenario id to status (or state when not evaluated).
func statuses(v *Verdict) map[string]string {
	out := map[string]string{}
	for _, r := range v.Scenarios {
		s := string(r.Status)
		if s == "" {
			s = r.State
		}
		out[r.ID] = s
	}
	return out
}

func sortedIDs(m map[string]string) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// payloadType is the media type of an observation payload, as the recorder assigns it.
func payloadType(observationType string) string {
	mediaType, _ := store.ObservationMediaType(observationType)
	return mediaType
}
