// Package otlp reads OpenTelemetry spans, once, into one general span model, and interprets them
// as AI-agent activity.
//
// # Sources
//
// DecodeProtobuf and DecodeJSON read OTLP/HTTP trace export request bodies (and OTLP files,
// which hold the same TracesData message) with the OpenTelemetry collector's pdata
// unmarshalers, which get trace and span ids right in both encodings (hex strings in OTLP/JSON,
// raw bytes in protobuf). ReadJSONL reads the JSON-lines span files some exporters write
// (Kensa's JSONLSpanExporter: one span a line with trace_id, span_id, parent_span_id, name,
// start_time and end_time in nanoseconds, status and flat attributes).
//
// # The span model
//
// A Span keeps what every consumer needs and nothing specific to one convention: ids as
// lowercase hex, name, kind, start and end in Unix nanoseconds, status, attributes in arrival
// order with typed values (pyvalue.Value: string, int, float, bool, list, map), events, and the
// resource and scope attributes. Bytes values become base64 strings, as OTLP/JSON writes them.
//
// # Interpretation
//
// Interpret layers the meaning of a span on top of the model, from three vocabularies:
//   - OpenInference (openinference.span.kind, llm.model_name, llm.token_count.*, llm.cost.*,
//     tool.name, tool.parameters, input.value, output.value, llm.input_messages,
//     llm.output_messages, llm.tool_calls.*) — exactly as Kensa v0.7.0 reads it
//     (src/kensa/translate.py);
//   - the OpenTelemetry GenAI semantic conventions, current (gen_ai.operation.name,
//     gen_ai.provider.name, gen_ai.tool.name, gen_ai.tool.call.arguments,
//     gen_ai.usage.input_tokens / output_tokens, gen_ai.input.messages / output.messages) and
//     older (gen_ai.system, gen_ai.usage.prompt_tokens / completion_tokens, gen_ai.prompt /
//     gen_ai.completion);
//   - nothing: a span with neither is a "chain" span, as Kensa makes it.
//
// A span that declares openinference.span.kind is read as OpenInference only, so Kensa's
// reading of its own spans is reproduced exactly; otherwise gen_ai.* attributes decide. The
// result is a Semantics: kind (llm, tool, agent, chain, retriever, evaluator), model, provider,
// input and output payloads, token counts, declared cost and tool calls.
package otlp
