package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/recorder/journal"
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

// fuzzRecords encodes records for FuzzJournalRecords: each a type byte, a 16-bit little-endian
// length and the payload.
func fuzzRecords(records ...[]byte) []byte {
	var out []byte
	for _, r := range records {
		out = append(out, r[0], byte(len(r)-1), byte((len(r)-1)>>8))
		out = append(out, r[1:]...)
	}
	return out
}

func fuzzExchangeRecord(t journal.Type, id uint64, payload string) []byte {
	p, _ := exchangeRecord(id, payload)
	return append([]byte{byte(t)}, p...)
}

// FuzzJournalRecords: whatever records a journal holds (each one whole and checksummed, as
// written by a recorder with a bug or by hand), reading them for sealing never panics, and
// either fails with ErrJournal or gives a capture whose incomplete exchanges can be listed.
func FuzzJournalRecords(f *testing.F) {
	header := `{"format":1,"source":"proxy","version":"test","profile":{"id":"p","version":"1","tree":"sha256:` + strings.Repeat("0", 64) +
		`"},"redaction":{"values":0},"proxy":{"max_body":64,"max_read":64}}`
	f.Add(fuzzRecords([]byte("H" + header)))
	f.Add(fuzzRecords([]byte("H"+header), []byte("F\x05a.yamlid: p\n"),
		fuzzExchangeRecord(recBegin, 0, `{"side":"provider","method":"POST","target":"/v1/provision"}`),
		fuzzExchangeRecord(recBody, 0, "q{\"scenario_id\":\"x\"}"),
		fuzzExchangeRecord(recArrived, 0, `{"size":18}`),
		fuzzExchangeRecord(recResponse, 0, `{"status":200}`),
		fuzzExchangeRecord(recBody, 0, `s{"environment_id":"e"}`),
		fuzzExchangeRecord(recEnd, 0, `{"size":22}`),
		fuzzExchangeRecord(recBegin, 1, `{"side":"agent","method":"POST","target":"/"}`),
		fuzzExchangeRecord(recCut, 1, "cut")))
	f.Add(fuzzRecords([]byte(`H{"format":1,"source":"webhook","webhook":{"scenario":"s"}}`),
		fuzzExchangeRecord(recBegin, 7, `{}`), fuzzExchangeRecord(recRefused, 7, "no")))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := journal.Create(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for len(data) >= 3 {
			typ, n := journal.Type(data[0]), int(data[1])|int(data[2])<<8
			data = data[3:]
			n = min(n, len(data))
			if typ != 0 {
				if _, err := w.Append(typ, data[:n]); err != nil {
					t.Fatal(err)
				}
			}
			data = data[n:]
		}
		j := w.Finish()
		defer j.Close()
		c, _, err := readCapture(j)
		if err != nil {
			if !errors.Is(err, ErrJournal) {
				t.Fatalf("not a journal error: %v", err)
			}
			return
		}
		_ = c.incomplete()
		if _, err := c.profile(); err != nil && !errors.Is(err, ErrJournal) {
			t.Fatalf("the profile: not a journal error: %v", err)
		}
	})
}
