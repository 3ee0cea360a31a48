package kensa

import (
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// call is one canonical tool call.
type call struct {
	name string
	args pyvalue.Value
}

// key is Kensa's tool_call_key: the name and the arguments as json.dumps(sort_keys=True).
func (c call) key() string { return c.name + ":" + pyvalue.DumpsSorted(c.args) }

// spanCalls is trace_semantics.span_tool_calls: a TOOL span with no tools is one call named
// by the span.
func spanCalls(s *kensa.Span) []call {
	if s.Kind == "tool" && len(s.Tools) == 0 {
		return []call{{name: s.Name, args: pyvalue.NewDict(nil, nil)}}
	}
	out := make([]call, len(s.Tools))
	for i, t := range s.Tools {
		out[i] = call{name: t.Name, args: t.Args}
	}
	return out
}

// byStart is the spans sorted by start time, stably (Python's sorted).
func byStart(spans []kensa.Span) []kensa.Span {
	sorted := slices.Clone(spans)
	slices.SortStableFunc(sorted, func(a, b kensa.Span) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return sorted
}

// toolCalls is trace_semantics.collect_tool_calls.
func toolCalls(spans []kensa.Span, ordered bool) []call {
	if ordered {
		spans = byStart(spans)
	}
	var covered map[string]int // made at the first call embedded in another kind of span
	var calls []call
	for i := range spans {
		if spans[i].Kind == "tool" {
			calls = append(calls, spanCalls(&spans[i])...)
			continue
		}
		for _, c := range spanCalls(&spans[i]) {
			if covered == nil {
				covered = toolSpanCalls(spans)
			}
			if k := c.key(); covered[k] > 0 {
				covered[k]--
			} else {
				calls = append(calls, c)
			}
		}
	}
	return calls
}

// toolSpanCalls counts the calls of the TOOL spans by key: those an embedded call may repeat.
func toolSpanCalls(spans []kensa.Span) map[string]int {
	covered := map[string]int{}
	for i := range spans {
		if spans[i].Kind == "tool" {
			for _, c := range spanCalls(&spans[i]) {
				covered[c.key()]++
			}
		}
	}
	return covered
}

func callNames(calls []call) []string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.name
	}
	return names
}

// repeatedNames is trace_semantics.repeated_tool_names.
func repeatedNames(spans []kensa.Span, ordered bool) []string {
	var dups []string
	seen := map[string]bool{}
	for _, c := range toolCalls(spans, ordered) {
		if k := c.key(); seen[k] {
			dups = append(dups, c.name)
		} else {
			seen[k] = true
		}
	}
	return dups
}

func llmSpans(spans []kensa.Span) int {
	n := 0
	for i := range spans {
		if spans[i].Kind == "llm" {
			n++
		}
	}
	return n
}

// durationSeconds is the latest end minus the earliest start, as timedelta.total_seconds().
func durationSeconds(spans []kensa.Span) float64 {
	if len(spans) == 0 {
		return 0
	}
	first, last := spans[0].Start, spans[0].End
	for _, s := range spans[1:] {
		first, last = min(first, s.Start), max(last, s.End)
	}
	return float64(last-first) / 1e6
}

// agentOutput is utils.get_agent_output: the output text of the last LLM span by end time
// (the first of equals, as Python's max keeps).
func agentOutput(spans []kensa.Span) string {
	var last *kensa.Span
	for i := range spans {
		if spans[i].Kind == "llm" && (last == nil || spans[i].End > last.End) {
			last = &spans[i]
		}
	}
	if last == nil {
		return ""
	}
	return outputText(last)
}

// outputText is utils.extract_output_text.
func outputText(s *kensa.Span) string {
	if s.Output == nil {
		return ""
	}
	out := *s.Output
	if msgs, ok := out.Get("messages"); ok {
		var texts []string
		for _, m := range pyIter(msgs) {
			switch m.Kind() {
			case pyvalue.KindStr:
				t, _ := m.AsStr()
				texts = append(texts, t)
			case pyvalue.KindDict:
				content, ok := m.Get("content")
				if !ok {
					content = pyvalue.NewStr("")
				}
				if t, isStr := content.AsStr(); isStr {
					texts = append(texts, t)
				} else if content.Kind() == pyvalue.KindList {
					if t := contentBlocksText(content); t != "" {
						texts = append(texts, t)
					}
				}
			}
		}
		return strings.Join(texts, "\n")
	}
	if v, ok := out.Get("value"); ok {
		return textFromValue(v)
	}
	return pyvalue.Dumps(out)
}

// pyIter is what Python's for loop goes through: a list's items, a dict's keys, a string's
// characters (each a string); nothing for another value (where Python raises TypeError).
func pyIter(v pyvalue.Value) []pyvalue.Value {
	switch v.Kind() {
	case pyvalue.KindDict:
		keys := v.Keys()
		out := make([]pyvalue.Value, len(keys))
		for i, k := range keys {
			out[i] = pyvalue.NewStr(k)
		}
		return out
	case pyvalue.KindStr:
		s, _ := v.AsStr()
		var out []pyvalue.Value
		for _, r := range s {
			out = append(out, pyvalue.NewStr(string(r)))
		}
		return out
	}
	return v.Items()
}

// contentBlocksText is utils._extract_text_from_content_blocks.
func contentBlocksText(content pyvalue.Value) string {
	var texts []string
	for _, block := range content.Items() {
		if typ, _ := block.Get("type"); pyvalue.Str(typ) == "text" && typ.Kind() == pyvalue.KindStr {
			t, ok := block.Get("text")
			if !ok {
				t = pyvalue.NewStr("")
			}
			texts = append(texts, pyvalue.Str(t))
		}
	}
	return strings.Join(texts, "\n")
}

// textFromValue is utils._extract_from_value: a JSON API response's text, else the value.
func textFromValue(raw pyvalue.Value) string {
	s, ok := raw.AsStr()
	if !ok {
		return pyvalue.Str(raw)
	}
	// Only an object is read further: text that cannot be one is not parsed at all.
	if !strings.HasPrefix(strings.TrimLeft(s, " \t\n\r"), "{") {
		return s
	}
	parsed, err := pyvalue.Loads("output value", []byte(s))
	if err != nil || parsed.Kind() != pyvalue.KindDict {
		return s
	}
	if content, ok := parsed.Get("content"); ok && content.Kind() == pyvalue.KindList {
		if t := contentBlocksText(content); t != "" {
			return t
		}
	}
	if choices, ok := parsed.Get("choices"); ok && choices.Kind() == pyvalue.KindList {
		var texts []string
		for _, c := range choices.Items() {
			if c.Kind() != pyvalue.KindDict {
				continue
			}
			msg, ok := c.Get("message")
			if !ok || msg.Kind() != pyvalue.KindDict {
				continue
			}
			if t, isStr := func() (string, bool) { v, _ := msg.Get("content"); return v.AsStr() }(); isStr && t != "" {
				texts = append(texts, t)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return s
}
