package kensaagent

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// span is one span of the script, with its attributes in the three vocabularies.
type span struct {
	traceID [16]byte
	spanID  [8]byte
	parent  *[8]byte
	name    string
	// kind is llm, tool or agent.
	kind       string
	start, end int64
	// text is an LLM call's output; tool, args and result a tool call's.
	text         string
	tool         string
	args, result pyvalue.Value
}

// script plays the support agent: the spans in the order an SDK exports them (each when it
// ends: children before their parent) and the answer.
func script(verb, order string, start int64, seed uint64) ([]span, string) {
	var traceID [16]byte
	for i := range 16 {
		traceID[i] = byte(seed >> (8 * (i % 8)))
	}
	traceID[0] |= 1
	ids := seed
	next := func() [8]byte {
		ids = ids*6364136223846793005 + 1442695040888963407
		var id [8]byte
		for i := range 8 {
			id[i] = byte(ids >> (8 * i))
		}
		id[0] |= 1
		return id
	}
	root := span{traceID: traceID, spanID: next(), name: "support-agent", kind: "agent", start: start}
	t := start + 1_000_000
	var out []span
	step := func(s span) {
		s.traceID, s.spanID, s.parent, s.start, s.end = traceID, next(), &root.spanID, t, t+20_000_000
		t += 25_000_000
		out = append(out, s)
	}
	llm := func(text string) { step(span{name: "chat", kind: "llm", text: text}) }
	tool := func(name string, args, result pyvalue.Value) {
		step(span{name: name, kind: "tool", tool: name, args: args, result: result})
	}
	id := pyvalue.NewStr(order)
	lookup := dict("order_id", id)
	shipped := dict("status", pyvalue.NewStr("shipped"))
	llm("Looking up the order.")
	tool("lookup_order", lookup, shipped)
	answer := fmt.Sprintf("Order %s has shipped.", order)
	switch verb {
	case "refund":
		tool("refund_order", dict("order_id", id, "amount", pyvalue.NewInt(20)), dict("ok", pyvalue.NewBool(true)))
		answer = fmt.Sprintf("Order %s was refunded.", order)
	case "angry":
		tool("lookup_order", lookup, shipped)
		tool("escalate_ticket", dict("order_id", id, "priority", pyvalue.NewStr("high")), dict("ticket", pyvalue.NewInt(7)))
		answer = fmt.Sprintf("I escalated order %s to a human.", order)
	}
	llm(answer)
	root.end = t
	return append(out, root), answer
}

// dict builds a dict of name, value pairs, in order.
func dict(pairs ...any) pyvalue.Value {
	var keys []string
	var vals []pyvalue.Value
	for i := 0; i+1 < len(pairs); i += 2 {
		keys, vals = append(keys, pairs[i].(string)), append(vals, pairs[i+1].(pyvalue.Value))
	}
	return pyvalue.NewDict(keys, vals)
}

// Token counts and cost of every LLM call, as the fixture's agent states them.
const (
	promptTokens, completionTokens = 200, 40
	callCost                       = 0.0012
)

// attrs are the span's attributes in one vocabulary, in a fixed order.
func (s *span) attrs(semconv string) (keys []string, vals []any) {
	add := func(k string, v any) { keys, vals = append(keys, k), append(vals, v) }
	switch semconv {
	case "genai", "genai-old":
		s.genAI(semconv == "genai-old", add)
	default:
		add("openinference.span.kind", map[string]string{"llm": "LLM", "tool": "TOOL", "agent": "AGENT"}[s.kind])
		switch s.kind {
		case "llm":
			add("llm.model_name", "gpt-4o-mini")
			add("llm.provider", "openai")
			add("llm.token_count.prompt", int64(promptTokens))
			add("llm.token_count.completion", int64(completionTokens))
			add("llm.token_count.total", int64(promptTokens+completionTokens))
			add("llm.cost.total", callCost)
			add("output.value", s.text)
		case "tool":
			add("tool.name", s.tool)
			add("tool.parameters", pyvalue.Dumps(s.args))
			add("output.value", pyvalue.Dumps(s.result))
		}
	}
	return keys, vals
}

func (s *span) genAI(old bool, add func(string, any)) {
	switch s.kind {
	case "agent":
		add("gen_ai.operation.name", "invoke_agent")
	case "llm":
		if old {
			add("gen_ai.system", "openai")
			add("gen_ai.request.model", "gpt-4o-mini")
			add("gen_ai.usage.prompt_tokens", int64(promptTokens))
			add("gen_ai.usage.completion_tokens", int64(completionTokens))
			add("gen_ai.completion", pyvalue.Dumps(pyvalue.NewList([]pyvalue.Value{
				dict("role", pyvalue.NewStr("assistant"), "content", pyvalue.NewStr(s.text))})))
			return
		}
		add("gen_ai.operation.name", "chat")
		add("gen_ai.provider.name", "openai")
		add("gen_ai.request.model", "gpt-4o-mini")
		add("gen_ai.usage.input_tokens", int64(promptTokens))
		add("gen_ai.usage.output_tokens", int64(completionTokens))
		part := dict("type", pyvalue.NewStr("text"), "content", pyvalue.NewStr(s.text))
		add("gen_ai.output.messages", pyvalue.Dumps(pyvalue.NewList([]pyvalue.Value{
			dict("role", pyvalue.NewStr("assistant"), "parts", pyvalue.NewList([]pyvalue.Value{part}))})))
	case "tool":
		add("gen_ai.operation.name", "execute_tool")
		add("gen_ai.tool.name", s.tool)
		add("gen_ai.tool.call.arguments", pyvalue.Dumps(s.args))
		add("gen_ai.tool.call.result", pyvalue.Dumps(s.result))
	}
}

// jsonl renders the span as Kensa's JSONLSpanExporter writes it (exporter.py _span_to_dict,
// json.dumps).
func (s *span) jsonl(semconv, times string) string {
	keys, vals := s.attrs(semconv)
	attrVals := make([]pyvalue.Value, len(vals))
	for i, v := range vals {
		attrVals[i] = pyValue(v)
	}
	parent := pyvalue.Value{}
	if s.parent != nil {
		parent = pyvalue.NewStr(fmt.Sprintf("%x", s.parent[:]))
	}
	d := pyvalue.NewDict(
		[]string{"name", "trace_id", "span_id", "parent_span_id", "start_time", "end_time", "status", "attributes"},
		[]pyvalue.Value{pyvalue.NewStr(s.name), pyvalue.NewStr(fmt.Sprintf("%x", s.traceID[:])), pyvalue.NewStr(fmt.Sprintf("%x", s.spanID[:])),
			parent, timeValue(s.start, times), timeValue(s.end, times),
			pyvalue.NewDict([]string{"status_code"}, []pyvalue.Value{pyvalue.NewStr("UNSET")}),
			pyvalue.NewDict(keys, attrVals)})
	return pyvalue.Dumps(d)
}

// timeValue is a span time (Unix nanoseconds) in one of the forms Kensa's
// translate._parse_timestamp reads: ns (integer nanoseconds, the exporter's), us, ms, s (a
// float), iso (UTC, "Z"), iso-offset (+05:30), iso-naive (no offset), or null.
func timeValue(ns int64, form string) pyvalue.Value {
	t := time.Unix(0, ns).UTC()
	switch form {
	case "us":
		return pyvalue.NewInt(ns / 1e3)
	case "ms":
		return pyvalue.NewInt(ns / 1e6)
	case "s":
		return pyvalue.NewFloat(float64(ns) / 1e9)
	case "iso":
		return pyvalue.NewStr(t.Format("2006-01-02T15:04:05.000000Z"))
	case "iso-offset":
		return pyvalue.NewStr(t.In(time.FixedZone("", 5*3600+1800)).Format("2006-01-02T15:04:05.000000-07:00"))
	case "iso-naive":
		return pyvalue.NewStr(t.Format("2006-01-02 15:04:05.000000"))
	case "null":
		return pyvalue.Value{}
	}
	return pyvalue.NewInt(ns)
}

func pyValue(v any) pyvalue.Value {
	switch x := v.(type) {
	case string:
		return pyvalue.NewStr(x)
	case int64:
		return pyvalue.NewInt(x)
	case float64:
		return pyvalue.NewFloat(x)
	}
	panic(fmt.Sprintf("kensaagent: attribute of type %T", v))
}

// otlpBody is one OTLP/HTTP export request holding the spans, protobuf or JSON.
func otlpBody(spans []span, semconv string, asJSON bool) ([]byte, string, error) {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "kensa-agent")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("kensa-agent")
	for i := range spans {
		s := &spans[i]
		ps := ss.Spans().AppendEmpty()
		ps.SetTraceID(pcommon.TraceID(s.traceID))
		ps.SetSpanID(pcommon.SpanID(s.spanID))
		if s.parent != nil {
			ps.SetParentSpanID(pcommon.SpanID(*s.parent))
		}
		ps.SetName(s.name)
		ps.SetStartTimestamp(pcommon.Timestamp(s.start))
		ps.SetEndTimestamp(pcommon.Timestamp(s.end))
		keys, vals := s.attrs(semconv)
		for j, k := range keys {
			switch v := vals[j].(type) {
			case string:
				ps.Attributes().PutStr(k, v)
			case int64:
				ps.Attributes().PutInt(k, v)
			case float64:
				ps.Attributes().PutDouble(k, v)
			}
		}
	}
	if asJSON {
		var m ptrace.JSONMarshaler
		b, err := m.MarshalTraces(td)
		return b, "application/json", err
	}
	var m ptrace.ProtoMarshaler
	b, err := m.MarshalTraces(td)
	return b, "application/x-protobuf", err
}
