package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseArtifact("evidence.json", data)
		if err != nil {
			return
		}
		if a.scenarioID == "" {
			t.Fatal("accepted an artifact without a scenario id")
		}
		for _, p := range a.observations {
			if !json.Valid(p.data) {
				t.Fatalf("payload %q is not JSON", p.data)
			}
		}
		for _, act := range a.transcript.Actions {
			if act.Arguments != "" && !json.Valid([]byte(act.Arguments)) {
				t.Fatalf("arguments %q are not JSON", act.Arguments)
			}
		}
	})
}

// FuzzReport: the report reader never panics on JSON or YAML, and a report compared with
// itself shows no difference.
func FuzzReport(f *testing.F) {
	f.Add([]byte(seedReport), false)
	f.Add([]byte(seedReportYAML), true)
	f.Add([]byte("a: &x [*x]"), true)
	f.Add([]byte(`{"scenario_details":[{"scenario_id":"x","non_scoring_metadata":{"steps":3}}]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, asYAML bool) {
		var tree *value
		var err error
		if asYAML {
			tree, err = parseYAML("verdict.yaml", data)
		} else {
			tree, err = parseJSON("verdict.json", data, nil)
		}
		if err != nil {
			return
		}
		if d := compareTrees(tree, tree, 5); len(d) != 0 {
			t.Fatalf("a report differs from itself: %+v", d)
		}
		r, err := parseReport(newDoc("verdict", data), tree)
		if err != nil {
			return
		}
		for _, sc := range r.scenarios {
			if sc.id == "" {
				t.Fatal("accepted a scenario without an id")
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
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := parseTranscript("transcript.json", data)
		if err != nil {
			return
		}
		for _, act := range tf.transcript.Actions {
			if act.Tool == "" {
				t.Fatal("accepted an action without a tool")
			}
			if act.Arguments != "" && !json.Valid([]byte(act.Arguments)) {
				t.Fatalf("arguments %q are not JSON", act.Arguments)
			}
		}
	})
}

// FuzzWebhookBody: format detection and the EventList check of a POST body never panic, and
// detection only ever names one of the two audit-log media types.
func FuzzWebhookBody(f *testing.F) {
	f.Add([]byte(`{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[{"kind":"Event","verb":"get","user":{"username":"u"}}]}`))
	f.Add([]byte("{\"kind\":\"Event\",\"verb\":\"get\"}\n{\"kind\":\"Event\"}\n"))
	f.Add([]byte("{\n \"items\": [],\n \"kind\": \"EventList\"\n}"))
	f.Add([]byte(`{"kind": 0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		mediaType, err := DetectAuditFormat(data)
		if err == nil && mediaType != store.MediaTypeK8sAuditEvents && mediaType != store.MediaTypeK8sAuditEventList {
			t.Fatalf("detected %q", mediaType)
		}
		if err := checkEventList(bytes.NewReader(data)); err != nil && !errors.Is(err, ErrInput) {
			t.Fatalf("the check failed with %v, not an input error", err)
		}
	})
}
