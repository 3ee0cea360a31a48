package kensa

import (
	"bytes"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
)

const fuzzScenario = `id: refund
name: Refund
input: refund A-200
run_command: [agent]
checks:
  - type: trajectory
    params: {steps: [{tool: lookup_order, args: {order_id: A-200}}, {tool: refund_order}], ordering: any_order, min_accuracy: 0.5, max_tokens: 1000}
  - type: output_matches
    params: {pattern: "refunded\\.$"}
  - type: no_repeat_calls
  - type: max_cost
    params: {max_usd: 0.01}
criteria: The agent is polite.
`

const fuzzTrace = `{"trace_id":"t","span_id":"a","parent_span_id":null,"name":"chat","kind":"llm","start_time":"2026-11-24T22:20:03.001Z","end_time":"2026-11-24T22:20:03.021Z","status":"ok","model":"m","provider":null,"input":null,"output":{"value":"{\"choices\":[{\"message\":{\"content\":\"Order A-200 was refunded.\"}}]}"},"tokens":{"prompt":200,"completion":40,"total":240,"cache_read":0},"cost":{"prompt":0.0,"completion":0.0,"total":0.0012},"tools":[{"name":"refund_order","args":{"order_id":"A-200"},"result":null}],"metadata":{}}
{"trace_id":"t","span_id":"b","parent_span_id":"a","name":"lookup_order","kind":"tool","start_time":"2026-11-24T22:20:03.026Z","end_time":"2026-11-24T22:20:03.046Z","status":"ok","model":null,"provider":null,"input":null,"output":null,"tokens":null,"cost":null,"tools":[{"name":"lookup_order","args":{"order_id":"A-200"},"result":{"status":"shipped"}}],"metadata":{}}
`

// Any scenario over any trace evaluates without a panic, to the same verdict bytes twice,
// written directly as store.Marshal writes them.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte(fuzzScenario), []byte(fuzzTrace), `{"verdict": "pass", "reasoning": "ok", "evidence": ["x"]}`)
	f.Fuzz(func(t *testing.T, scenario, trace []byte, answer string) {
		sc, err := kensa.ParseScenario("s.yaml", scenario)
		if err != nil {
			return
		}
		spans, err := kensa.ReadTrace("t.jsonl", trace)
		ev := &Evidence{Scenario: sc, HasTrace: true, Spans: spans, Judgement: &Judgement{Source: "judge-cmd", Answer: answer, Prompt: "p"}}
		if err != nil {
			ev.TraceError = err.Error()
		}
		a, _, errA := Evaluate(ev).Encode()
		b, _, errB := Evaluate(ev).Encode()
		if (errA == nil) != (errB == nil) || !bytes.Equal(a, b) {
			t.Fatalf("two evaluations differ:\n%s\n%s", a, b)
		}
		checkEncodeIsMarshal(t, Evaluate(ev).Verdict())
	})
}

func FuzzParseJudgeAnswer(f *testing.F) {
	for _, s := range []string{"```json\n{\"verdict\": \"PASS\", \"reasoning\": \"r\"}\n```", `{"passed": 1}`, `{"verdict": "", "passed": []}`, "not json"} {
		f.Add(s, false)
	}
	f.Add(`{"passed": true, "reasoning": "r", "verdict": "pass", "evidence": ["a", 1]}`, true)
	f.Fuzz(func(t *testing.T, answer string, recorded bool) {
		out := ParseJudgeAnswer(answer, recorded)
		if out.Verdict != nil && !recorded {
			switch *out.Verdict {
			case StatusPass, StatusFail, StatusError, StatusUncertain:
			default:
				t.Fatalf("verdict %q", *out.Verdict)
			}
		}
	})
}
