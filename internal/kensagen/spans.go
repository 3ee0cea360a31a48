package kensagen

import (
	"fmt"
	"strings"
)

// baseSeconds is where every run's spans start: 2026-11-24T22:20:03Z.
const baseSeconds = 1795558803

// Dotenv is the .env file every generated project has in its directory, in the forms Kensa's
// runner.load_dotenv reads: quotes stripped, spaces around key and value, comments, a line
// without "=", an "export " prefix (which Kensa keeps in the key).
const Dotenv = `# generated
KGEN_DOT_PLAIN=plain value
KGEN_DOT_QUOTED="quoted value"
KGEN_DOT_SINGLE='single'
  KGEN_DOT_SPACE  =  spaced  
not a pair
export KGEN_DOT_EXPORT=exported
KGEN_DOT_OVER=from-dotenv
KGEN_DOT_EMPTY=
KGEN_DOT_EQ=a=b
`

// dotenvExpect is what the agent sees of .env's variables, as Kensa loads them.
var dotenvExpect = [][2]string{{"KGEN_DOT_PLAIN", "plain value"}, {"KGEN_DOT_QUOTED", "quoted value"},
	{"KGEN_DOT_SINGLE", "single"}, {"KGEN_DOT_SPACE", "spaced"}, {"KGEN_DOT_EXPORT", ""},
	{"KGEN_DOT_OVER", "from-dotenv"}, {"KGEN_DOT_EMPTY", ""}, {"KGEN_DOT_EQ", "a=b"}}

// tsForm writes a time (milliseconds after baseSeconds, plus a sub-millisecond part in ns) in
// one of the forms Kensa reads.
type tsForm int

const (
	tsNanos tsForm = iota
	tsMicros
	tsMillis
	tsSecondsInt
	tsSecondsFloat
	tsFloatNanos
	tsISO
	tsMissing
)

func (g *gen) tsForm() tsForm {
	f := tsForm(g.intn(8))
	feature := [...]string{FeatureTSNanos, FeatureTSMicros, FeatureTSMillis, FeatureTSSeconds, FeatureTSSeconds,
		FeatureTSFloatNanos, FeatureTSISO, FeatureTSMissing}[f]
	p := 1.0
	if f == tsMissing {
		p = 0.3
	}
	if f != tsNanos && !g.allow(feature, p) {
		f = tsNanos
	}
	g.use([...]string{FeatureTSNanos, FeatureTSMicros, FeatureTSMillis, FeatureTSSeconds, FeatureTSSeconds,
		FeatureTSFloatNanos, FeatureTSISO, FeatureTSMissing}[f])
	return f
}

// ts is the JSON of time offset ns (nanoseconds after baseSeconds) in form f; "" for missing.
func (g *gen) ts(f tsForm, ns int64) (any, bool) {
	switch f {
	case tsNanos:
		return int64(baseSeconds)*1_000_000_000 + ns, true
	case tsMicros:
		return int64(baseSeconds)*1_000_000 + ns/1000, true
	case tsMillis:
		return int64(baseSeconds)*1000 + ns/1_000_000, true
	case tsSecondsInt:
		return int64(baseSeconds) + ns/1_000_000_000, true
	case tsSecondsFloat:
		return pyFloat(float64(baseSeconds) + float64(ns/1000)/1e6), true
	case tsFloatNanos:
		return float64(int64(baseSeconds)*1_000_000_000 + ns), true
	case tsISO:
		sec := ns / 1_000_000_000
		frac := ns % 1_000_000_000
		h, m, s := 22, 20, 3+int(sec)
		m += s / 60
		s %= 60
		h += m / 60
		m %= 60
		zone := pick(g, []string{"Z", "+00:00", "+05:30", "-02:00"})
		hh := h
		switch zone {
		case "+05:30":
			hh, m = h+5, m+30
			if m >= 60 {
				hh, m = hh+1, m-60
			}
		case "-02:00":
			hh = h - 2
		}
		day := 24
		if hh >= 24 {
			hh, day = hh-24, day+1
		}
		fracText := pick(g, []string{fmt.Sprintf(".%06d", frac/1000), fmt.Sprintf(".%03d", frac/1_000_000), ""})
		if fracText == "" && frac != 0 {
			fracText = fmt.Sprintf(".%06d", frac/1000)
		}
		return fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d%s%s", day, hh, m, s, fracText, zone), true
	}
	return nil, false
}

// spanDraft is one span before it is written.
type spanDraft struct {
	kind       string // LLM, TOOL, AGENT, CHAIN, "" (no kind), or another spelling
	name       string
	start, end int64 // ns after baseSeconds
	attrs      obj
	nested     bool
}

// behaviour makes one run's behaviour; echo is appended to the final output text.
func (g *gen) behaviour(echo string) Behaviour {
	b := Behaviour{Stdout: []byte(g.text(1+g.intn(4)) + "\n")}
	switch {
	case g.allow(FeatureNonUTF8Stdout, 0.08):
		b.Stdout = append([]byte("bytes \xff\xfe not "), pick(g, [][]byte{[]byte("utf-8 \xc3\x28\n"), []byte("\xed\xa0\x80\n"), []byte("ok\n")})...)
	case g.chance(0.08):
		b.Stdout = nil
	case g.allow(FeatureHugeOutput, 0.03):
		b.Stdout = []byte(strings.Repeat("huge stdout line ß İ\n", 3000))
	}
	if g.chance(0.1) {
		b.Stderr = "warning: " + g.text(2) + "\n"
	}
	if g.allow(FeatureErrorRun, 0.12) {
		switch g.intn(5) {
		case 0:
			b.Exit = 1 + g.intn(3)
		case 1:
			b.NoFile, b.Exit = true, 2
		case 2:
			b.NoFile = true
		case 3:
			b.Spans = ""
			return b
		default:
			b.Spans = g.spans(echo) + "{\"name\": \"broken\", \"attributes\": oops}\n"
			return b
		}
		if b.NoFile {
			return b
		}
	}
	b.Spans = g.spans(echo)
	return b
}

// spans makes the JSONL text of one run's spans.
func (g *gen) spans(echo string) string {
	g.traces++
	g.traceID = fmt.Sprintf("%016x%016x", g.seed, g.traces)
	form := g.tsForm()
	mixed := g.chance(0.1)
	nested := g.allow(FeatureNestedAttrs, 0.1)
	var drafts []spanDraft
	t := int64(1_000_000) + int64(g.intn(1000))*1000
	n := 1 + g.intn(6)
	final := g.text(1+g.intn(5)) + echo
	if g.allow(FeatureHugeOutput, 0.02) {
		final = strings.Repeat(g.text(3)+" ", 2000) + final
	}
	g.outputs = append(g.outputs, final)
	for i := range n {
		dur := int64(1+g.intn(3000)) * 1_000_000
		if g.chance(0.2) {
			dur = int64(g.intn(1000)) * 1000
		}
		d := spanDraft{start: t, end: t + dur, nested: nested}
		t += dur + int64(g.intn(50))*1_000_000
		last := i == n-1
		switch {
		case last || g.chance(0.35):
			d.kind, d.name = "LLM", "chat"
			text := g.text(1 + g.intn(4))
			if last {
				text = final
			}
			d.attrs = g.llmAttrs(text)
		case g.chance(0.6):
			d.kind = "TOOL"
			d.attrs, d.name = g.toolAttrs()
		case g.allow(FeatureGenAI, 0.3):
			d.kind, d.name = "", "chat gen"
			d.attrs = obj{}.with("gen_ai.operation.name", "chat").with("gen_ai.system", "openai").
				with("gen_ai.request.model", "gen-model-4").with("gen_ai.usage.input_tokens", 10+g.intn(90)).
				with("gen_ai.usage.output_tokens", 5+g.intn(50)).with("gen_ai.completion.0.content", g.text(2))
			if g.chance(0.5) {
				d.attrs = d.attrs.with("gen_ai.tool.name", pick(g, toolNames))
			}
		default:
			d.kind, d.name = pick(g, []string{"CHAIN", "AGENT", "RETRIEVER", "agent", "Tool", "OTHER"}), "step"
			d.attrs = obj{}.with("custom.key", g.text(1))
		}
		drafts = append(drafts, d)
	}
	if g.chance(0.5) {
		// An AGENT root around everything, exported last as SDKs do.
		drafts = append(drafts, spanDraft{kind: "AGENT", name: "agent", start: 0, end: t, attrs: obj{}, nested: nested})
	}
	var b strings.Builder
	for i, d := range drafts {
		f := form
		if mixed {
			f = g.tsForm()
		}
		b.WriteString(g.spanLine(i, d, f))
		b.WriteByte('\n')
		if g.chance(0.05) {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (g *gen) llmAttrs(text string) obj {
	a := obj{}
	if g.chance(0.7) {
		a = a.with("llm.model_name", pick(g, []string{"gen-model-1", "gen-model-2"}))
	}
	if g.allow(FeatureTokensCost, 0.5) {
		p, c := g.intn(500), g.intn(200)
		a = a.with("llm.token_count.prompt", p).with("llm.token_count.completion", c)
		if g.chance(0.5) {
			a = a.with("llm.token_count.total", p+c+g.intn(2))
		}
		if g.chance(0.6) {
			a = a.with("llm.cost.total", pyFloat(float64(g.intn(2000))/100000))
		}
		if g.chance(0.2) {
			a = a.with("llm.cost.prompt", pyFloat(float64(g.intn(100))/10000)).with("llm.cost.completion", pyFloat(float64(g.intn(100))/10000))
		}
	}
	if g.chance(0.3) {
		a = a.with("input.value", g.text(2))
	}
	shape := 0
	if g.allow(FeatureOutputShapes, 0.5) {
		shape = 1 + g.intn(6)
	}
	switch shape {
	case 0:
		a = a.with("output.value", text)
	case 1:
		a = a.with("output.value", jsonText(obj{}.with("content", []any{obj{}.with("type", "text").with("text", text)})))
	case 2:
		a = a.with("output.value", jsonText(obj{}.with("choices", []any{obj{}.with("message", obj{}.with("role", "assistant").with("content", text))})))
	case 3:
		a = a.with("llm.output_messages", []any{obj{}.with("role", "assistant").with("content", text)})
	case 4:
		a = a.with("llm.output_messages", []any{text})
	case 5:
		a = a.with("llm.output_messages", []any{obj{}.with("role", "assistant").with("content", []any{obj{}.with("type", "text").with("text", text), obj{}.with("type", "image")})})
	default:
		a = a.with("output.value", obj{}.with("text", text))
	}
	if g.allow(FeatureEmbeddedTools, 0.3) {
		k := 1 + g.intn(2)
		for i := range k {
			prefix := fmt.Sprintf("llm.tool_calls.%d.tool_call.function.", i)
			if g.chance(0.4) {
				prefix = fmt.Sprintf("llm.output_messages.0.message.tool_calls.%d.tool_call.function.", i)
			}
			name := pick(g, toolNames)
			g.tools = append(g.tools, name)
			a = a.with(prefix+"name", name)
			if g.chance(0.8) {
				a = a.with(prefix+"arguments", jsonText(g.args()))
			}
		}
	}
	return a
}

func (g *gen) args() obj {
	return pick(g, []obj{{}, obj{}.with("order_id", "A-1"), obj{}.with("order_id", "A-1").with("amount", 25),
		obj{}.with("amount", 25).with("order_id", "A-1"), obj{}.with("q", "ß"), obj{}.with("n", 1), obj{}.with("n", pyFloat(1.0)),
		obj{}.with("nested", obj{}.with("a", []any{1, 2}))})
}

func (g *gen) toolAttrs() (obj, string) {
	name := pick(g, toolNames)
	g.tools = append(g.tools, name)
	a := obj{}.with("tool.name", name)
	switch g.intn(6) {
	case 0:
		a = a.with("tool.parameters", jsonText(g.args()))
	case 1:
		a = a.with("tool.parameters", g.args())
	case 2:
		a = a.with("tool.parameters", "not json")
	case 3:
		a = a.with("tool.parameters", "")
	case 4:
		if g.allow(FeatureMissingFields, 0.5) {
			a = obj{} // a TOOL span without tool.name
			g.tools = g.tools[:len(g.tools)-1]
		}
	}
	if g.chance(0.3) {
		a = a.with("output.value", g.text(1))
	}
	return a, name
}

// spanLine writes one span as the JSONL exporter does (or leaves fields out).
func (g *gen) spanLine(i int, d spanDraft, f tsForm) string {
	attrs := obj{}
	if d.kind != "" {
		attrs = attrs.with("openinference.span.kind", d.kind)
	}
	attrs = append(attrs, d.attrs...)
	if d.nested {
		// Flattened output-message keys without an llm.output_messages list nest into a
		// mapping, which Kensa's extract_output_text iterates as messages: its keys.
		flat := func(string) bool { return false }
		if hasPrefix(attrs, "llm.output_messages.") && !hasKey(attrs, "llm.output_messages") &&
			!g.allow(FeatureMessagesMapping, 1) {
			flat = func(k string) bool { return strings.HasPrefix(k, "llm.output_messages.") }
		}
		attrs = nest(attrs, flat)
	}
	s := obj{}
	missing := g.allow(FeatureMissingFields, 0.05)
	if !missing || g.chance(0.5) {
		s = s.with("name", d.name)
	}
	// Every span of a run carries the run's own trace id, even with other fields missing:
	// Kensa's analyzer groups spans by trace id over all runs, kensa stats by run, and the two
	// are compared. (The draw is kept so that seeds keep naming the same scenarios.)
	_ = !missing || g.chance(0.5)
	s = s.with("trace_id", g.traceID)
	if !missing || g.chance(0.5) {
		s = s.with("span_id", fmt.Sprintf("%016x", 0xb7ad6b7169203331+uint64(i)))
	}
	s = s.with("parent_span_id", nil)
	if v, ok := g.ts(f, d.start); ok {
		s = s.with("start_time", v)
	}
	if v, ok := g.ts(f, d.end); ok {
		s = s.with("end_time", v)
	}
	if !missing || g.chance(0.5) {
		s = s.with("status", pick(g, []any{obj{}.with("status_code", "UNSET"), obj{}.with("status_code", "OK"),
			obj{}.with("status_code", "ERROR"), "ERROR", obj{}}))
	}
	s = s.with("attributes", attrs)
	return jsonText(s)
}

// nest turns dotted keys into nested objects (translate._get walks them), keeping the first
// occurrence's position; a key that is both a value and a prefix stays flat.
func nest(a obj, flat func(string) bool) obj {
	out := obj{}
	for _, m := range a {
		parts := strings.Split(m.k, ".")
		if flat(m.k) || !insert(&out, parts, m.v) {
			out = out.with(m.k, m.v)
		}
	}
	return out
}

func insert(o *obj, parts []string, v any) bool {
	for i := range *o {
		if (*o)[i].k == parts[0] {
			if len(parts) == 1 {
				return false
			}
			child, ok := (*o)[i].v.(obj)
			if !ok {
				return false
			}
			if !insert(&child, parts[1:], v) {
				return false
			}
			(*o)[i].v = child
			return true
		}
	}
	if len(parts) == 1 {
		*o = o.with(parts[0], v)
		return true
	}
	child := obj{}
	insert(&child, parts[1:], v)
	*o = o.with(parts[0], child)
	return true
}

func hasKey(a obj, k string) bool {
	for _, m := range a {
		if m.k == k {
			return true
		}
	}
	return false
}

func hasPrefix(a obj, p string) bool {
	for _, m := range a {
		if strings.HasPrefix(m.k, p) {
			return true
		}
	}
	return false
}
