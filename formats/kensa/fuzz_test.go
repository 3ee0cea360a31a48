package kensa

import (
	"strings"
	"testing"
)

const seedScenario = `id: refund_flow
name: Refund
input: refund A-200
run_command: ["python3", "agent.py"]
checks:
  - type: trajectory
    params: {steps: [{tool: lookup_order, args: {order_id: A-200}}], ordering: exact, min_accuracy: 0.5}
  - type: output_matches
    params: {pattern: "refunded\\.$"}
`

func TestParseScenarioErrors(t *testing.T) {
	if _, err := ParseScenario("s.yaml", []byte(seedScenario)); err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"id: a\nname: b\nrun_command: [x]\ndataset: d.jsonl\n":                                                                                                        "s.yaml:4:10: dataset: 'dataset' and 'input_field' must both be set",
		"id: a\nname: b\nrun_command: [x]\ncriteria: c\njudge: j\n":                                                                                                   "mutually exclusive",
		"id: a\nname: b\nrun_command: [x]\nchecks:\n  - type: nope\n":                                                                                                 "s.yaml:5:11: checks[0].type: unknown check type",
		"id: a\nname: b\nrun_command: [x]\nchecks:\n  - type: max_turns\n    params: {max: \"4\"}\n":                                                                  "must be a number",
		"id: a\nname: b\nrun_command: [x]\nchecks:\n  - type: trajectory\n    params: {steps: [{tool: t}]}\n  - type: trajectory\n    params: {steps: [{tool: t}]}\n": "at most one 'trajectory'",
		"id: a\nname: b\nrun_command: [x]\nchecks:\n  - type: tools_called\n    params: {tools: lookup}\n":                                                            "bare string",
		"id: a\nname: b\nrun_command: [x]\nbogus: 1\n":                                                                                                                "s.yaml:4:8: bogus: unknown field",
		"id: [a\n": "s.yaml",
	}
	for doc, want := range tests {
		_, err := ParseScenario("s.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", doc, err, want)
		}
	}
}

func FuzzParseScenario(f *testing.F) {
	f.Add([]byte(seedScenario))
	f.Add([]byte("id: a\nname: b\nrun_command: x {{input}}\ninput: {k: [1, 2.5, yes, ~]}\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseScenario("f.yaml", b) })
}

func FuzzReadTrace(f *testing.F) {
	f.Add([]byte(`{"trace_id":"t","span_id":"s","parent_span_id":null,"name":"chat","kind":"llm","start_time":"2026-11-24T22:20:03.765181Z","end_time":"2026-11-24T22:20:03.765206Z","status":"ok","model":"m","provider":null,"input":null,"output":{"value":"x"},"tokens":{"prompt":1,"completion":2,"total":3,"cache_read":0},"cost":{"prompt":0.0,"completion":0.0,"total":0.0012},"tools":[],"metadata":{}}` + "\n{\"trace_id\":"))
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := ReadTrace("f.jsonl", b)
		if err == nil {
			if _, err := ReadTrace("again", WriteTrace(spans)); err != nil {
				t.Fatalf("WriteTrace output does not read back: %v", err)
			}
		}
	})
}
