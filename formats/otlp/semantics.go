package otlp

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Kinds of agent activity a span can be (Kensa's SpanKind).
const (
	KindLLM       = "llm"
	KindTool      = "tool"
	KindAgent     = "agent"
	KindChain     = "chain"
	KindRetriever = "retriever"
	KindEvaluator = "evaluator"
)

// Conventions a span can be read by.
const (
	ConventionOpenInference = "openinference"
	ConventionGenAI         = "gen_ai"
	ConventionNone          = "none"
)

// Semantics is what a span means as agent activity.
type Semantics struct {
	Convention string
	Kind       string
	// Model and Provider are nil when the span does not name them.
	Model, Provider *string
	// Input and Output are payloads as Kensa keeps them: {"messages": …}, {"value": …}, or a
	// dict value as it was; nil when absent.
	Input, Output *pyvalue.Value
	Tokens        *Tokens
	// DeclaredCost is the cost the span itself states, nil when it states none.
	DeclaredCost *Cost
	Tools        []Tool
	// Error is true when the span's status is error.
	Error bool
	// Metadata are the attributes the interpretation did not consume, in order.
	Metadata []Attr
}

// Tokens are token counts of an LLM call.
type Tokens struct {
	Prompt, Completion, Total, CacheRead int64
}

// Cost is a cost in USD, as binary64 floats (see package pyvalue).
type Cost struct {
	Prompt, Completion, Total float64
}

// Tool is one tool call: a name and its arguments (a dict).
type Tool struct {
	Name string
	Args pyvalue.Value
}

// Interpret reads s by the first convention it declares (see the package documentation).
func Interpret(s *Span) Semantics {
	attrs := AttributesValue(s.Attributes)
	if _, ok := get(attrs, "openinference.span.kind"); ok || !hasGenAI(s.Attributes) {
		return openInference(s, attrs)
	}
	return genAI(s, attrs)
}

// InterpretOpenInference reads s as OpenInference whatever it declares: what Kensa's
// translate.span_to_kensa does with every span of its JSONL exporter's file (a span with
// gen_ai.* attributes only is a CHAIN span there, its attributes metadata).
func InterpretOpenInference(s *Span) Semantics {
	return openInference(s, AttributesValue(s.Attributes))
}

// get is Kensa's translate._get: the flat key, else a walk through nested dicts.
func get(attrs pyvalue.Value, key string) (pyvalue.Value, bool) {
	if v, ok := attrs.Get(key); ok {
		return v, true
	}
	cur := attrs
	for part := range strings.SplitSeq(key, ".") {
		if cur.Kind() != pyvalue.KindDict {
			return pyvalue.Value{}, false
		}
		next, ok := cur.Get(part)
		if !ok {
			return pyvalue.Value{}, false
		}
		cur = next
	}
	return cur, true
}

func hasGenAI(attrs []Attr) bool {
	for _, a := range attrs {
		if strings.HasPrefix(a.Key, "gen_ai.") {
			return true
		}
	}
	return false
}

func optString(v pyvalue.Value, ok bool) *string {
	if !ok || v.IsNull() {
		return nil
	}
	s := pyvalue.Str(v)
	return &s
}

func errorStatus(s *Span) bool {
	c := strings.ToUpper(s.Status.Code)
	return c == "ERROR" || c == "2"
}

// parseToolArgs is Kensa's _parse_tool_args: a dict as is, a JSON object string parsed, an
// empty value {}, anything else {"raw": value}.
func parseToolArgs(raw pyvalue.Value) pyvalue.Value {
	if raw.Kind() == pyvalue.KindDict {
		return raw
	}
	if !pyvalue.Truthy(raw) {
		return pyvalue.NewDict(nil, nil)
	}
	if s, ok := raw.AsStr(); ok && strings.HasPrefix(strings.TrimLeft(s, " \t\n\r"), "{") {
		if parsed, err := pyvalue.Loads("attribute", []byte(s)); err == nil && parsed.Kind() == pyvalue.KindDict {
			return parsed
		}
	}
	return pyvalue.NewDict([]string{"raw"}, []pyvalue.Value{raw})
}

// payload is Kensa's _extract_io_payload.
func payload(messages pyvalue.Value, haveMessages bool, value pyvalue.Value, haveValue bool) *pyvalue.Value {
	var p pyvalue.Value
	switch {
	case haveMessages && !messages.IsNull():
		p = pyvalue.NewDict([]string{"messages"}, []pyvalue.Value{messages})
	case !haveValue || value.IsNull():
		return nil
	case value.Kind() == pyvalue.KindDict:
		p = value
	default:
		p = pyvalue.NewDict([]string{"value"}, []pyvalue.Value{value})
	}
	return &p
}
