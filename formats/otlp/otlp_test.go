package otlp

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// sampleTraces builds one resource with an OpenInference LLM span, a GenAI tool span (current
// names) and a GenAI chat span (older names).
func sampleTraces() ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "agent")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("test")
	tid := pcommon.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}

	llm := ss.Spans().AppendEmpty()
	llm.SetTraceID(tid)
	llm.SetSpanID(pcommon.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74})
	llm.SetParentSpanID(pcommon.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x73})
	llm.SetName("chat")
	llm.SetStartTimestamp(1_795_558_803_765_181_000)
	llm.SetEndTimestamp(1_795_558_803_765_206_000)
	a := llm.Attributes()
	a.PutStr("openinference.span.kind", "LLM")
	a.PutStr("llm.model_name", "gpt-4o-mini")
	a.PutInt("llm.token_count.prompt", 200)
	a.PutInt("llm.token_count.completion", 40)
	a.PutStr("output.value", `{"choices":[{"message":{"content":"Order A-100 has shipped."}}]}`)
	a.PutStr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup_order")
	a.PutStr("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", `{"order_id":"A-100"}`)

	tool := ss.Spans().AppendEmpty()
	tool.SetTraceID(tid)
	tool.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, 8})
	tool.SetName("execute_tool lookup_order")
	tool.Status().SetCode(ptrace.StatusCodeError)
	tool.Attributes().PutStr("gen_ai.operation.name", "execute_tool")
	tool.Attributes().PutStr("gen_ai.tool.name", "lookup_order")
	tool.Attributes().PutStr("gen_ai.tool.call.arguments", `{"order_id": "A-100"}`)

	old := ss.Spans().AppendEmpty()
	old.SetTraceID(tid)
	old.SetSpanID(pcommon.SpanID{9, 2, 3, 4, 5, 6, 7, 8})
	old.SetName("chat gpt-4")
	old.Attributes().PutStr("gen_ai.system", "openai")
	old.Attributes().PutStr("gen_ai.request.model", "gpt-4")
	old.Attributes().PutInt("gen_ai.usage.prompt_tokens", 10)
	old.Attributes().PutInt("gen_ai.usage.completion_tokens", 5)
	old.Attributes().PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"done"}]}]`)
	return td
}

func TestDecodeBothEncodings(t *testing.T) {
	td := sampleTraces()
	var pm ptrace.ProtoMarshaler
	pb, err := pm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	var jm ptrace.JSONMarshaler
	jb, err := jm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	fromPB, err := DecodeProtobuf(pb)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := DecodeJSON(jb)
	if err != nil {
		t.Fatal(err)
	}
	for _, spans := range [][]Span{fromPB, fromJSON} {
		if len(spans) != 3 {
			t.Fatalf("%d spans", len(spans))
		}
		s := spans[0]
		if s.TraceID != "5b8efff798038103d269b633813fc60c" || s.SpanID != "eee19b7ec3c1b174" || s.ParentSpanID != "eee19b7ec3c1b173" {
			t.Errorf("ids %s %s %s", s.TraceID, s.SpanID, s.ParentSpanID)
		}
		if s.Start != 1_795_558_803_765_181_000 || s.Name != "chat" || len(s.Attributes) != 7 {
			t.Errorf("span %+v", s)
		}
		if v, _ := s.AttrString("llm.model_name"); v != "gpt-4o-mini" {
			t.Errorf("model %q", v)
		}
		if spans[1].Status.Code != StatusError || spans[1].ParentSpanID != "" {
			t.Errorf("tool span %+v", spans[1])
		}
	}
}

func TestInterpret(t *testing.T) {
	spans, err := DecodeProtobuf(mustProto(t, sampleTraces()))
	if err != nil {
		t.Fatal(err)
	}
	oi := Interpret(&spans[0])
	if oi.Convention != ConventionOpenInference || oi.Kind != KindLLM || *oi.Model != "gpt-4o-mini" ||
		oi.Tokens == nil || oi.Tokens.Total != 240 || oi.DeclaredCost != nil || oi.Output == nil {
		t.Errorf("openinference: %+v", oi)
	}
	if len(oi.Tools) != 1 || oi.Tools[0].Name != "lookup_order" || pyvalue.DumpsSorted(oi.Tools[0].Args) != `{"order_id": "A-100"}` {
		t.Errorf("embedded tools %+v", oi.Tools)
	}
	tool := Interpret(&spans[1])
	if tool.Convention != ConventionGenAI || tool.Kind != KindTool || !tool.Error || len(tool.Tools) != 1 ||
		pyvalue.DumpsSorted(tool.Tools[0].Args) != `{"order_id": "A-100"}` {
		t.Errorf("gen_ai tool: %+v", tool)
	}
	old := Interpret(&spans[2])
	if old.Kind != KindLLM || *old.Provider != "openai" || *old.Model != "gpt-4" || old.Tokens.Total != 15 {
		t.Errorf("older gen_ai: %+v", old)
	}
	if got := pyvalue.Dumps(*old.Output); got != `{"messages": [{"role": "assistant", "content": "done"}]}` {
		t.Errorf("older gen_ai output %s", got)
	}
}

func TestReadJSONL(t *testing.T) {
	good := `{"name": "chat", "trace_id": "ab", "span_id": "cd", "parent_span_id": null, "start_time": 1795558803765181000, "end_time": 1795558803765206000, "status": {"status_code": "OK"}, "attributes": {"openinference.span.kind": "LLM", "llm.token_count.prompt": 5}}` + "\n\n"
	spans, err := ReadJSONL("spans.jsonl", []byte(good))
	if err != nil || len(spans) != 1 || spans[0].Status.Code != "ok" || spans[0].Start != 1795558803765181000 {
		t.Fatalf("%v %+v", err, spans)
	}
	if _, err := ReadJSONL("spans.jsonl", []byte(good+`{"name": "cut`)); err == nil || !strings.HasPrefix(err.Error(), `otlp: malformed spans: spans.jsonl:3:14: name: the last line is truncated`) {
		t.Errorf("truncated line: %v", err)
	}
}

func mustProto(t testing.TB, td ptrace.Traces) []byte {
	t.Helper()
	var pm ptrace.ProtoMarshaler
	b, err := pm.MarshalTraces(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzDecodeProtobuf(f *testing.F) {
	f.Add(mustProto(f, sampleTraces()))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := DecodeProtobuf(b)
		if err != nil {
			return
		}
		for i := range spans {
			_ = Interpret(&spans[i])
		}
	})
}

func FuzzDecodeJSON(f *testing.F) {
	var jm ptrace.JSONMarshaler
	b, _ := jm.MarshalTraces(sampleTraces())
	f.Add(b)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := DecodeJSON(b)
		if err != nil {
			return
		}
		for i := range spans {
			_ = Interpret(&spans[i])
		}
	})
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"name": "t", "attributes": {"tool.name": "x", "tool.parameters": "{\"a\": 1}", "openinference.span.kind": "TOOL"}}`))
	f.Add([]byte("{}\n[1]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, err := ReadJSONL("f", b)
		if err != nil {
			return
		}
		for i := range spans {
			_ = Interpret(&spans[i])
		}
	})
}
