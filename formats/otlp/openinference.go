package otlp

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// openInferenceKinds maps openinference.span.kind (upper-cased) to a kind; others are chain.
var openInferenceKinds = map[string]string{
	"LLM": KindLLM, "TOOL": KindTool, "AGENT": KindAgent, "CHAIN": KindChain,
	"RETRIEVER": KindRetriever, "EVALUATOR": KindEvaluator,
}

// openInference reads s as Kensa v0.7.0's span_to_kensa does (src/kensa/translate.py).
func openInference(s *Span, attrs pyvalue.Value) Semantics {
	sem := Semantics{Convention: ConventionNone, Kind: KindChain, Error: errorStatus(s)}
	if raw, ok := get(attrs, "openinference.span.kind"); ok {
		sem.Convention = ConventionOpenInference
		if k, ok := openInferenceKinds[strings.ToUpper(pyvalue.Str(raw))]; ok {
			sem.Kind = k
		}
	}
	sem.Tokens = oiTokens(attrs)
	sem.DeclaredCost = oiCost(attrs)
	sem.Model = optString(get(attrs, "llm.model_name"))
	sem.Provider = optString(get(attrs, "llm.provider"))
	msgs, hm := get(attrs, "llm.input_messages")
	val, hv := get(attrs, "input.value")
	sem.Input = payload(msgs, hm, val, hv)
	msgs, hm = get(attrs, "llm.output_messages")
	val, hv = get(attrs, "output.value")
	sem.Output = payload(msgs, hm, val, hv)
	sem.Tools = oiTools(attrs)
	for _, a := range s.Attributes {
		if !hasAnyPrefix(a.Key, "llm.", "openinference.", "input.", "output.", "tool.") {
			sem.Metadata = append(sem.Metadata, a)
		}
	}
	return sem
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// intOf is Python's int(v) for the values token counts take; ok is false where int() raises.
func intOf(v pyvalue.Value) (int64, bool) {
	switch v.Kind() {
	case pyvalue.KindInt:
		i, _ := v.AsInt()
		return i, true
	case pyvalue.KindBool:
		if b, _ := v.AsBool(); b {
			return 1, true
		}
		return 0, true
	case pyvalue.KindFloat:
		f, _ := v.AsNumber()
		if f != f || f > 9e18 || f < -9e18 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

func oiTokens(attrs pyvalue.Value) *Tokens {
	num := func(key string) pyvalue.Value {
		if v, ok := get(attrs, key); ok {
			return v
		}
		return pyvalue.NewInt(0)
	}
	p, c, t, cr := num("llm.token_count.prompt"), num("llm.token_count.completion"), num("llm.token_count.total"), num("llm.token_count.cache_read")
	if !pyvalue.Truthy(p) && !pyvalue.Truthy(c) && !pyvalue.Truthy(t) {
		return nil
	}
	var tok Tokens
	var ok [4]bool
	tok.Prompt, ok[0] = intOf(p)
	tok.Completion, ok[1] = intOf(c)
	tok.Total, ok[2] = intOf(t)
	tok.CacheRead, ok[3] = intOf(cr)
	if ok != [4]bool{true, true, true, true} {
		return nil // Kensa's int() would raise; the span gets no token counts
	}
	if tok.Total == 0 {
		tok.Total = tok.Prompt + tok.Completion
	}
	return &tok
}

// floatOf is Python's float(v) for numbers and numeric strings.
func floatOf(v pyvalue.Value) (float64, bool) {
	if f, ok := v.AsNumber(); ok {
		return f, true
	}
	if b, ok := v.AsBool(); ok {
		if b {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func oiCost(attrs pyvalue.Value) *Cost {
	num := func(key string) pyvalue.Value {
		if v, ok := get(attrs, key); ok {
			return v
		}
		return pyvalue.NewFloat(0)
	}
	t, p, c := num("llm.cost.total"), num("llm.cost.prompt"), num("llm.cost.completion")
	if !pyvalue.Truthy(t) && !pyvalue.Truthy(p) && !pyvalue.Truthy(c) {
		return nil
	}
	var cost Cost
	var ok [3]bool
	cost.Prompt, ok[0] = floatOf(p)
	cost.Completion, ok[1] = floatOf(c)
	cost.Total, ok[2] = floatOf(t)
	if ok != [3]bool{true, true, true} {
		return nil
	}
	if cost.Total == 0 {
		cost.Total = cost.Prompt + cost.Completion
	}
	return &cost
}

// oiTools is Kensa's _extract_tools: tool.name (with tool.parameters), else the tool calls
// embedded in llm.output_messages.* or llm.tool_calls.* attributes, in attribute order.
func oiTools(attrs pyvalue.Value) []Tool {
	if name, ok := get(attrs, "tool.name"); ok && pyvalue.Truthy(name) {
		params, _ := get(attrs, "tool.parameters")
		if !pyvalue.Truthy(params) {
			params = pyvalue.NewDict(nil, nil)
		}
		return []Tool{{Name: pyvalue.Str(name), Args: parseToolArgs(params)}}
	}
	var tools []Tool
	attrs.Members(func(key string, value pyvalue.Value) {
		if !strings.HasSuffix(key, ".tool_call.function.name") || !hasAnyPrefix(key, "llm.output_messages.", "llm.tool_calls.") {
			return
		}
		argsKey := strings.ReplaceAll(key, ".function.name", ".function.arguments")
		args, ok := attrs.Get(argsKey)
		if !ok {
			args = pyvalue.NewStr("{}")
		}
		tools = append(tools, Tool{Name: pyvalue.Str(value), Args: parseToolArgs(args)})
	})
	return tools
}
