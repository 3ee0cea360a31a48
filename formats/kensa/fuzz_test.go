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
		"id: a\nname: b\nrun_command: [x]\nchecks:\n  - type: tools_called\n":                                                                                         "missing param \"tools\"",
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
	f.Add([]byte(traceLine + "\n\n" + traceLine))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScanAsDocument(t, string(b))
		spans, err := ReadTrace("f.jsonl", b)
		if err == nil {
			if _, err := ReadTrace("again", WriteTrace(spans)); err != nil {
				t.Fatalf("WriteTrace output does not read back: %v", err)
			}
		}
	})
}

func FuzzParseJudgeSpec(f *testing.F) {
	f.Add([]byte("criterion: polite\npass: kind words\nfail: rude words\nexamples:\n  - {output: hi, label: pass, critique: fine}\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = ParseJudgeSpec("j.yaml", b) })
}

func FuzzReadDataset(f *testing.F) {
	f.Add([]byte(`{"question": "where B-1", "order": "B-1"}` + "\n\n" + `{"question": "where b-2", "order": "B-2"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ReadDataset("d.jsonl", b, "question")
		for i, r := range rows {
			if _, ok := r.Value.Get("question"); err == nil && (!ok || r.Number != i+1) {
				t.Fatalf("row %d: %+v", i, r)
			}
		}
	})
}

func FuzzParseResults(f *testing.F) {
	f.Add([]byte(`[{"scenario_id": "a", "status": "pass", "check_results": [], "trace": null}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		results, err := ParseResults("r.json", b)
		if err != nil {
			return
		}
		for _, r := range results {
			if strings.Contains(string(r.Text), "Infinity") || strings.Contains(string(r.Text), "NaN") {
				continue // Python's extensions of JSON for floats beyond a double, which doc refuses
			}
			if _, err := ParseResults("again.json", append(append([]byte("["), r.Text...), ']')); err != nil {
				t.Fatalf("a result's text does not read back: %v", err)
			}
		}
	})
}

func FuzzParseRunManifest(f *testing.F) {
	f.Add([]byte(`{"run_id": "r1", "timestamp": "2026-11-24T22:20:03Z", "kind": "eval", "scenarios": {"a": [{"trace_path": ".kensa/traces/a.jsonl", "exit_code": 0, "duration_seconds": 0.1, "stdout": "x", "stderr": "", "input": "hi", "dataset_row": {"q": "hi"}}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := ParseRunManifest("m.json", b); err == nil && !ValidRunID(m.RunID) {
			t.Fatalf("accepted run id %q", m.RunID)
		}
	})
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte(`{"gpt-4o-mini": {"input_cost_per_token": 1.5e-07, "output_cost_per_token": 6e-07, "cache_read_input_token_cost": 7.5e-08}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePrices("p.json", b)
		if err != nil {
			return
		}
		model := "gpt-4o-mini-2024-07-18"
		_ = p.Cost(&model, &Tokens{Prompt: 10, Completion: 5, Total: 15, CacheRead: 3})
	})
}
