package oasisctl

import (
	"encoding/json"
	"errors"
	"testing"
)

const seedArtifact = `{
  "scenario_id": "infra.safety.be.zone-violation-001",
  "final_answer": "No.",
  "reasoning_trace": "Out of scope.",
  "actions": [{"id": "call-1", "tool": "container-orchestration", "arguments": {"command": "kubectl get pods"}, "result": "x", "duration_ms": 3}],
  "observations": [{"environment_id": "e", "timestamp": "2026-05-04T09:01:30Z", "observation_type": "audit_log",
    "data": {"agent_principal": "a", "entries": []}, "evidence_source": {"type": "t", "status": "available"}}],
  "observed_model": null,
  "vacuous_assertions": []
}`

const seedReport = `{"metadata": {"agent_name": "a", "agent_version": "1", "date": "2026-11-22T02:55:43Z", "aborted": false},
 "environment": {"tier_claimed": 1, "evidence": ""},
 "agent_configuration": {"zone_model": true},
 "scenario_details": [{"scenario_id": "x", "status": "PASS", "errors": null, "evidence_path": "evidence/evidence-x.json"}]}`

const seedReportYAML = "metadata:\n  agent_name: a\n  agent_version: \"1\"\n  date: 2026-11-22T02:55:43Z\nenvironment:\n  tier_claimed: 1\nscenario_details:\n  - scenario_id: x\n    status: PASS\n"

// FuzzArtifact: the artifact reader never panics; what it accepts has a scenario id, and every
// observation payload it keeps is valid JSON.
func FuzzArtifact(f *testing.F) {
	f.Add([]byte(seedArtifact))
	f.Add([]byte(`{"scenario_id":"x","actions":null,"observations":[{"observation_type":"state_diff"}]}`))
	f.Add([]byte(`{"scenario_id":"x","actions":[{"tool":"t","arguments":[1,2]}]`))
	f.Add([]byte(`{"scenario_id":"x","observed_model":"m","agent_failure":{"cause":"rate limited"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadArtifact("evidence.json", data)
		if err != nil {
			if !errors.Is(err, ErrArtifact) {
				t.Fatalf("not an artifact error: %v", err)
			}
			return
		}
		if a.ScenarioID == "" {
			t.Fatal("accepted an artifact without a scenario id")
		}
		for _, p := range a.Observations {
			if !json.Valid(p.Payload) {
				t.Fatalf("payload %q is not JSON", p.Payload)
			}
		}
		for _, act := range a.Transcript.Actions {
			if act.Arguments != "" && !json.Valid([]byte(act.Arguments)) {
				t.Fatalf("arguments %q are not JSON", act.Arguments)
			}
		}
	})
}

// FuzzReport: the oasisctl report reader never panics on JSON or YAML, accepts no scenario
// without an id, and a JSON report compared with itself as its YAML rendering shows no
// difference.
func FuzzReport(f *testing.F) {
	f.Add([]byte(seedReport), false)
	f.Add([]byte(seedReportYAML), true)
	f.Add([]byte("a: &x [*x]"), true)
	f.Add([]byte(`{"scenario_details":[{"scenario_id":"x","non_scoring_metadata":{"steps":3}}]}`), false)
	f.Add([]byte(`{"metadata":{"agent_identity":{"declared_model":"m","heterogeneous":false},"agent_failure_count":0},`+
		`"scenario_details":[{"scenario_id":"x","observed_model":"m","assertion_results":[{"assertion":{"action":"delete pod/*"},`+
		`"status":"PASS","vacuous":true,"vacuity_reason":"no_audit_log","audit_scope":{"agent_entries":0,"total_entries":0}}]}]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, asYAML bool) {
		format := FormatJSON
		if asYAML {
			format = FormatYAML
		}
		r, err := ReadReport(data, format, "verdict")
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrShape) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("not a report error: %v", err)
			}
			return
		}
		for _, sc := range r.Scenarios {
			if sc.ID == "" {
				t.Fatal("accepted a scenario without an id")
			}
		}
		if !asYAML {
			if d, _, err := CompareRenderings("verdict.json", data, "verdict.yaml", data, 5); err != nil || len(d) != 0 {
				t.Fatalf("a report differs from itself: %+v %v", d, err)
			}
		}
	})
}

// FuzzTranscript: the transcript reader never panics; what it accepts has tools on every
// action and JSON arguments.
func FuzzTranscript(f *testing.F) {
	f.Add([]byte(`{"final_answer":"a","reasoning":"b","actions":[{"tool":"t","arguments":{"k":"v"},"result":{"r":1}}],"model":"m"}`))
	f.Add([]byte(`{"reasoning_trace":"b","actions":[{"tool":"t","result":"x","error_code":"E1"}]}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"agent_failure":{"cause":"connection reset"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := ReadTranscript("transcript.json", data)
		if err != nil {
			if !errors.Is(err, ErrTranscript) {
				t.Fatalf("not a transcript error: %v", err)
			}
			return
		}
		for _, act := range tf.Actions {
			if act.Tool == "" {
				t.Fatal("accepted an action without a tool")
			}
			if act.Arguments != "" && !json.Valid([]byte(act.Arguments)) {
				t.Fatalf("arguments %q are not JSON", act.Arguments)
			}
		}
	})
}

// FuzzRunConfig: the run configuration reader never panics, and fails only with its error.
func FuzzRunConfig(f *testing.F) {
	f.Add([]byte("profile:\n  path: ./p\nagent:\n  token: t\n  shards: 2\nenvironment:\n  provider: petri\n"))
	f.Add([]byte("agent: [1]\nenvironment: {provider: 3}\n"))
	f.Add([]byte("- a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ReadRunConfig("run-config.yaml", data); err != nil && !errors.Is(err, ErrRunConfig) {
			t.Fatalf("not a run configuration error: %v", err)
		}
	})
}
