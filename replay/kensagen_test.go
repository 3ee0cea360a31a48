package replay

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// genScenarios are the scenarios of generated Kensa runs: between them every check type,
// dataset placeholders, criteria without a judge, a judge spec, a pattern RE2 cannot express
// and member names whose UTF-16 order is not their byte order.
var genScenarios = map[string]string{
	"mix": `id: mix
name: Every simple check
input: refund A-1
run_command: [agent]
checks:
  - type: output_contains
    params: {value: Refunded}
  - type: output_matches
    params: {pattern: "refund(ed)?\\.?$"}
  - type: tools_called
    params: {tools: [lookup_order, refund_order]}
  - type: tools_not_called
    params: {tools: [escalate]}
  - type: tool_order
    params: {order: [lookup_order, refund_order]}
  - type: max_cost
    params: {max_usd: 0.003}
  - type: max_turns
    params: {max: 3}
  - type: max_duration
    params: {max_seconds: 0.5}
  - type: no_repeat_calls
`,
	"traj": `id: traj
name: Trajectory
input: {order: A-2, "ｱ": 1, "😀": 2, "a": {"z": 1.5, "é": [1, 2.0, 9007199254740993]}}
run_command: [agent]
checks:
  - type: trajectory
    params:
      steps:
        - {tool: lookup_order, args: {order_id: A-2}}
        - {tool: refund_order}
        - {tool: escalate, args: {reason: "late"}}
      ordering: any_order
      args: exact
      min_accuracy: 0.6
      max_steps: 5
      max_tokens: 900
      max_duration_seconds: 2.5
  - type: max_cost
    params: {max: 0.3}
`,
	"rows": `id: rows
name: Dataset rows
dataset: rows.jsonl
input_field: question
run_command: [agent]
checks:
  - type: output_contains
    params: {value: "{{order}}", case_sensitive: true}
  - type: trajectory
    params:
      steps:
        - {tool: lookup_order, args: {order_id: "{{order}}"}}
      ordering: exact
`,
	"judged": `id: judged
name: Criteria
input: where A-3
run_command: [agent]
checks:
  - type: output_contains
    params: {value: "a"}
criteria: The agent is polite and names the order.
`,
	"spec": `id: spec
name: Judge spec
input: where A-4
run_command: [agent]
checks:
  - type: max_turns
    params: {max: 8}
judge: polite
`,
	"lookaround": `id: lookaround
name: A pattern RE2 cannot express
input: where A-5
run_command: [agent]
checks:
  - type: output_matches
    params: {pattern: "(?=Order)Order"}
`,
	"unicode": `id: unicode
name: Unicode output
input: "Ünïcödé ✓"
run_command: [agent]
checks:
  - type: output_contains
    params: {value: "ÜNÏCÖDÉ"}
  - type: output_matches
    params: {pattern: "\\w+\\s✓"}
`,
}

const (
	genDataset = `{"question": "where B-1", "order": "B-1", "expected": "shipped"}
{"question": "where B-2", "order": "B-2", "expected": 2.5}
{"question": "where B-3", "order": "B-3"}
`
	genJudgeSpec = "criterion: polite\npass: says please\nfail: rude\n"
)

// genTools, genTexts and genKeys are what generated spans are made of.
var (
	genTools = []string{"lookup_order", "refund_order", "escalate", "search"}
	genTexts = []string{"Refunded.", "Order A-2 was refunded.", "Looking up the order.", "Ünïcödé ✓", "ünïcödé ✓ done",
		"tab\there \"quoted\" back\\slash", "line\nbreak", "Order B-1 shipped", "order b-2", "emoji 😀 and \u2028 separator",
		"", "control \x01 char"}
	genKeys = []string{"order_id", "amount", "reason", "é", "ｱ", "😀", "Z", "a b"}
)

// genDefinitions parses genScenarios into the definitions runs are recorded against.
func genDefinitions(t testing.TB) []*rkensa.Definition {
	t.Helper()
	var defs []*rkensa.Definition
	for _, id := range []string{"judged", "lookaround", "mix", "rows", "spec", "traj", "unicode"} {
		path := "scenarios/" + id + ".yaml"
		sc, err := fkensa.ParseScenario(path, []byte(genScenarios[id]))
		if err != nil {
			t.Fatal(err)
		}
		def := &rkensa.Definition{Scenario: sc, ScenarioPath: path, Files: map[string][]byte{path: []byte(genScenarios[id])}}
		if sc.Dataset != "" {
			def.Files["scenarios/"+sc.Dataset] = []byte(genDataset)
		}
		if sc.Judge != nil {
			def.Files["judges/"+*sc.Judge+".yaml"] = []byte(genJudgeSpec)
		}
		defs = append(defs, def)
	}
	return defs
}

// generateKensaRecords makes n runs of genScenarios, the same n runs for the same n: random
// traces (tool and LLM spans, embedded tool calls, costs, tokens, nested arguments, text with
// escapes), now and then a run that failed, has no trace, has a malformed trace, or stdout that
// is not UTF-8, and judgements of every kind.
func generateKensaRecords(t testing.TB, n int) []*rkensa.Record {
	t.Helper()
	defs := genDefinitions(t)
	rows, err := fkensa.ReadDataset("rows.jsonl", []byte(genDataset), "question")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, uint64(n)))
	records := make([]*rkensa.Record, n)
	for i := range records {
		def := defs[i%len(defs)]
		r := &rkensa.Record{Definition: def, RunID: fmt.Sprintf("gen%05d", i), Input: def.Scenario.Input, HasInput: !def.Scenario.Input.IsNull(),
			NonScoring: map[string]string{"duration_seconds": "0.1"}}
		if def.Scenario.Dataset != "" {
			row := rows[i%len(rows)]
			r.Case, r.Row = row.Number, &row
			r.Input, _ = row.Value.Get("question")
			r.HasInput = true
		}
		spans := genSpans(rng, int64(i))
		r.Trace = fkensa.WriteTrace(spans)
		r.TracePath = fmt.Sprintf(".kensa/traces/%s_%d.jsonl", def.Scenario.ID, i)
		stdout := genTexts[rng.IntN(len(genTexts))]
		switch rng.IntN(16) {
		case 0:
			r.Exit.Code, r.Stderr = 1, captured("boom \xff\xfe not UTF-8")
		case 1:
			r.Trace, r.Exit.Error = nil, "agent exited before sending spans"
		case 2:
			r.Trace = r.Trace[:len(r.Trace)/2] // cut mid-line
		case 3:
			r.Trace = append(r.Trace, `{"trace_id": 1}`+"\n"...)
		case 4:
			stdout = "out \xc3\x28 bad"
		case 5:
			r.Trace = spaced(r.Trace) // the same spans, written with spaces
		}
		r.Stdout = captured(stdout)
		genJudgement(rng, r)
		records[i] = r
	}
	return records
}

func captured(s string) rkensa.Captured {
	return rkensa.Captured{Data: []byte(s), Total: int64(len(s))}
}

// spaced writes a trace with a space after every ':' and ',' outside strings.
func spaced(trace []byte) []byte {
	var b strings.Builder
	inString, escaped := false, false
	for _, c := range string(trace) {
		b.WriteRune(c)
		switch {
		case escaped:
			escaped = false
		case c == '\\' && inString:
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			b.WriteByte(' ')
		}
	}
	return []byte(b.String())
}

// genSpans makes up to eight spans starting at run i's second.
func genSpans(rng *rand.Rand, i int64) []fkensa.Span {
	start := int64(1_795_558_803_000_000) + i*1_000_000
	kinds := []string{"llm", "tool", "tool", "agent", "chain"}
	spans := make([]fkensa.Span, rng.IntN(9))
	for j := range spans {
		s := &spans[j]
		s.TraceID, s.SpanID = fmt.Sprintf("%032x", i+1), fmt.Sprintf("%016x", rng.Uint64())
		s.Name, s.Kind, s.Status = "chat", kinds[rng.IntN(len(kinds))], "ok"
		s.Start = start + int64(rng.IntN(400_000))
		s.End = s.Start + int64(rng.IntN(300_000))
		s.Metadata = pyvalue.NewDict(nil, nil)
		if j > 0 {
			parent := spans[0].SpanID
			s.ParentSpanID = &parent
		}
		if rng.IntN(12) == 0 {
			s.Status = "error"
			s.Metadata = pyvalue.NewDict([]string{"error.type", "n"}, []pyvalue.Value{pyvalue.NewStr("Timeout"), pyvalue.NewInt(3)})
		}
		switch s.Kind {
		case "llm":
			model := "gpt-4o-mini"
			s.Model = &model
			s.Tokens = &fkensa.Tokens{Prompt: int64(rng.IntN(500)), Completion: int64(rng.IntN(100))}
			s.Tokens.Total = s.Tokens.Prompt + s.Tokens.Completion
			if rng.IntN(4) > 0 {
				s.Cost = &fkensa.Cost{Prompt: 0.1, Completion: 0.2, Total: []float64{0.0012, 0.1 + 0.2, 1e-7, 0}[rng.IntN(4)]}
			}
			out := genOutput(rng)
			s.Output = &out
			if rng.IntN(3) == 0 {
				s.Tools = []fkensa.Tool{genTool(rng)}
			}
		case "tool":
			t := genTool(rng)
			s.Name = t.Name
			if rng.IntN(5) > 0 {
				s.Tools = []fkensa.Tool{t}
			}
			out := pyvalue.NewDict([]string{"value"}, []pyvalue.Value{pyvalue.NewStr(`{"status": "shipped"}`)})
			s.Output = &out
		}
	}
	return spans
}

// genOutput is an LLM span's output in one of the shapes Kensa reads text from.
func genOutput(rng *rand.Rand) pyvalue.Value {
	text := pyvalue.NewStr(genTexts[rng.IntN(len(genTexts))])
	dict := func(k string, v pyvalue.Value) pyvalue.Value { return pyvalue.NewDict([]string{k}, []pyvalue.Value{v}) }
	switch rng.IntN(4) {
	case 0:
		return dict("messages", pyvalue.NewList([]pyvalue.Value{text, dict("content", text)}))
	case 1:
		block := pyvalue.NewDict([]string{"type", "text"}, []pyvalue.Value{pyvalue.NewStr("text"), text})
		return dict("messages", pyvalue.NewList([]pyvalue.Value{dict("content", pyvalue.NewList([]pyvalue.Value{block}))}))
	case 2:
		s, _ := text.AsStr()
		return dict("value", pyvalue.NewStr(`{"choices": [{"message": {"content": `+pyvalue.Dumps(pyvalue.NewStr(s))+`}}]}`))
	}
	return dict("value", text)
}

// genTool is a tool call with arguments of every JSON type.
func genTool(rng *rand.Rand) fkensa.Tool {
	var keys []string
	var vals []pyvalue.Value
	for _, k := range genKeys {
		if rng.IntN(3) > 0 {
			continue
		}
		keys = append(keys, k)
		switch rng.IntN(6) {
		case 0:
			vals = append(vals, pyvalue.NewStr("A-2"))
		case 1:
			vals = append(vals, pyvalue.NewInt(int64(rng.IntN(3))*10))
		case 2:
			vals = append(vals, pyvalue.NewFloat(float64(rng.IntN(4))/4))
		case 3:
			vals = append(vals, pyvalue.NewList([]pyvalue.Value{pyvalue.NewBool(true), pyvalue.Value{}, pyvalue.NewInt(1 << 60)}))
		case 4:
			vals = append(vals, pyvalue.NewDict([]string{"é", "e"}, []pyvalue.Value{pyvalue.NewStr("x"), pyvalue.NewFloat(1e21)}))
		default:
			vals = append(vals, pyvalue.NewStr(genTexts[rng.IntN(len(genTexts))]))
		}
	}
	if rng.IntN(2) == 0 {
		keys, vals = []string{"order_id"}, []pyvalue.Value{pyvalue.NewStr("A-2")}
	}
	return fkensa.Tool{Name: genTools[rng.IntN(len(genTools))], Args: pyvalue.NewDict(keys, vals)}
}

// genJudgement records, for a scenario with a judge or criteria, a judgement of one kind or
// none.
func genJudgement(rng *rand.Rand, r *rkensa.Record) {
	sc := r.Definition.Scenario
	if !sc.NeedsJudge() {
		return
	}
	answers := []string{`{"verdict": "pass", "reasoning": "polite", "evidence": ["please"]}`, "```json\n{\"verdict\": \"FAIL\", \"reasoning\": \"rude\"}\n```",
		`{"passed": 1}`, "not json", `{"verdict": "uncertain", "reasoning": "unsure"}`}
	switch k := rng.IntN(5); {
	case k == 0:
		return // pending
	case sc.Judge != nil:
		answer := `{"passed": true, "reasoning": "r", "verdict": "pass", "evidence": ["a", 1]}`
		if k == 1 {
			answer = `{"passed": false, "reasoning": "no", "verdict": null, "evidence": []}`
		}
		r.Judgement = &store.KensaJudgement{Source: "kensa", Label: "pass"}
		r.JudgeAnswer, r.JudgeAnswerType = []byte(answer), store.MediaTypeKensaJudgeResult
	default:
		r.Judgement = &store.KensaJudgement{Source: "judge-cmd", Command: []string{"judge"}, Model: "m", Label: "pass"}
		if k == 1 {
			r.Judgement.Exit = store.KensaExit{Code: 3}
		}
		r.JudgePrompt = []byte("the prompt")
		r.JudgeAnswer, r.JudgeAnswerType = []byte(answers[rng.IntN(len(answers))]), store.MediaTypeText
	}
}
