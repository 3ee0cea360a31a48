package otlp

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// genAIKinds maps gen_ai.operation.name to a kind.
var genAIKinds = map[string]string{
	"chat": KindLLM, "text_completion": KindLLM, "generate_content": KindLLM,
	"execute_tool": KindTool, "invoke_agent": KindAgent, "create_agent": KindAgent,
	"embeddings": KindChain,
}

// genAI reads s by the OpenTelemetry GenAI semantic conventions, current and older names.
func genAI(s *Span, attrs pyvalue.Value) Semantics {
	sem := Semantics{Convention: ConventionGenAI, Kind: KindChain, Error: errorStatus(s)}
	op, hasOp := s.AttrString("gen_ai.operation.name")
	switch {
	case hasOp:
		if k, ok := genAIKinds[op]; ok {
			sem.Kind = k
		}
	case hasAttr(s, "gen_ai.tool.name"):
		sem.Kind = KindTool
	case hasAttr(s, "gen_ai.request.model") || hasAttr(s, "gen_ai.system"):
		sem.Kind = KindLLM // the older conventions had no operation name on inference spans
	}
	sem.Model = firstString(attrs, "gen_ai.response.model", "gen_ai.request.model")
	sem.Provider = firstString(attrs, "gen_ai.provider.name", "gen_ai.system")
	sem.Tokens = genAITokens(attrs)
	sem.Input = genAIMessages(s, attrs, "gen_ai.input.messages", "gen_ai.prompt")
	sem.Output = genAIMessages(s, attrs, "gen_ai.output.messages", "gen_ai.completion")
	if sem.Kind == KindTool {
		name := op
		if n, ok := s.AttrString("gen_ai.tool.name"); ok {
			name = n
		} else if name == "" || name == "execute_tool" {
			name = strings.TrimPrefix(s.Name, "execute_tool ")
		}
		args, _ := attrs.Get("gen_ai.tool.call.arguments")
		sem.Tools = []Tool{{Name: name, Args: parseToolArgs(args)}}
		if res, ok := attrs.Get("gen_ai.tool.call.result"); ok {
			p := pyvalue.NewDict([]string{"value"}, []pyvalue.Value{res})
			sem.Output = &p
		}
	} else if sem.Output != nil {
		sem.Tools = genAIToolCalls(*sem.Output)
	}
	for _, a := range s.Attributes {
		if !strings.HasPrefix(a.Key, "gen_ai.") {
			sem.Metadata = append(sem.Metadata, a)
		}
	}
	return sem
}

func hasAttr(s *Span, key string) bool {
	_, ok := s.Attr(key)
	return ok
}

func firstString(attrs pyvalue.Value, keys ...string) *string {
	for _, k := range keys {
		if v, ok := attrs.Get(k); ok && !v.IsNull() {
			return optString(v, true)
		}
	}
	return nil
}

func genAITokens(attrs pyvalue.Value) *Tokens {
	count := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			if v, ok := attrs.Get(k); ok {
				return intOf(v)
			}
		}
		return 0, false
	}
	in, hasIn := count("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
	out, hasOut := count("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
	if !hasIn && !hasOut {
		return nil
	}
	cache, _ := count("gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens")
	return &Tokens{Prompt: in, Completion: out, Total: in + out, CacheRead: cache}
}

// genAIMessages reads the messages of a span: the current attribute (a JSON string or an
// array of {role, parts}), else the older span attribute or event of the same content
// (gen_ai.prompt / gen_ai.completion), as Kensa-style {"messages": [{role, content}]}.
func genAIMessages(s *Span, attrs pyvalue.Value, current, older string) *pyvalue.Value {
	raw, ok := attrs.Get(current)
	if !ok {
		raw, ok = attrs.Get(older)
	}
	if !ok {
		for _, e := range s.Events {
			if v, found := lookup(e.Attributes, older); found {
				raw, ok = v, true
			}
		}
	}
	if !ok {
		return nil
	}
	if str, isStr := raw.AsStr(); isStr {
		parsed, err := pyvalue.Loads("attribute", []byte(str))
		if err != nil {
			p := pyvalue.NewDict([]string{"value"}, []pyvalue.Value{raw})
			return &p
		}
		raw = parsed
	}
	if raw.Kind() != pyvalue.KindList {
		p := pyvalue.NewDict([]string{"value"}, []pyvalue.Value{raw})
		return &p
	}
	msgs := make([]pyvalue.Value, 0, raw.Len())
	for _, m := range raw.Items() {
		msgs = append(msgs, genAIMessage(m))
	}
	p := pyvalue.NewDict([]string{"messages"}, []pyvalue.Value{pyvalue.NewList(msgs)})
	return &p
}

// genAIMessage turns {role, parts: [{type: text, content}, {type: tool_call, name,
// arguments}]} into {role, content, tool_calls}; a message that already has a content is
// kept as it is.
func genAIMessage(m pyvalue.Value) pyvalue.Value {
	parts, ok := m.Get("parts")
	if !ok || parts.Kind() != pyvalue.KindList {
		return m
	}
	role, _ := m.Get("role")
	var texts []string
	var calls []pyvalue.Value
	for _, p := range parts.Items() {
		typ, _ := p.Get("type")
		switch pyvalue.Str(typ) {
		case "text":
			c, _ := p.Get("content")
			texts = append(texts, pyvalue.Str(c))
		case "tool_call":
			name, _ := p.Get("name")
			args, _ := p.Get("arguments")
			calls = append(calls, pyvalue.NewDict([]string{"name", "arguments"}, []pyvalue.Value{name, args}))
		}
	}
	keys := []string{"role", "content"}
	vals := []pyvalue.Value{role, pyvalue.NewStr(strings.Join(texts, "\n"))}
	if calls != nil {
		keys, vals = append(keys, "tool_calls"), append(vals, pyvalue.NewList(calls))
	}
	return pyvalue.NewDict(keys, vals)
}

// genAIToolCalls lists the tool calls an LLM span's output messages request.
func genAIToolCalls(output pyvalue.Value) []Tool {
	msgs, ok := output.Get("messages")
	if !ok {
		return nil
	}
	var tools []Tool
	for _, m := range msgs.Items() {
		calls, _ := m.Get("tool_calls")
		for _, c := range calls.Items() {
			name, _ := c.Get("name")
			args, _ := c.Get("arguments")
			tools = append(tools, Tool{Name: pyvalue.Str(name), Args: parseToolArgs(args)})
		}
	}
	return tools
}
