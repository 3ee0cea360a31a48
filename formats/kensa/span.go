package kensa

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Span is a span in Kensa's converted model (models.Span), one line of a trace file.
type Span struct {
	TraceID      string
	SpanID       string
	ParentSpanID *string
	Name         string
	// Kind is llm, tool, agent, chain, retriever or evaluator.
	Kind string
	// Start and End are microseconds since the Unix epoch (Kensa's datetimes are microsecond
	// precise).
	Start, End int64
	// Status is "ok" or "error" (any other text is kept as written).
	Status          string
	Model, Provider *string
	// Input and Output are dicts or nil.
	Input, Output *pyvalue.Value
	Tokens        *Tokens
	Cost          *Cost
	Tools         []Tool
	Metadata      pyvalue.Value
}

// Tokens are Kensa's TokenCounts.
type Tokens struct {
	Prompt, Completion, Total, CacheRead int64
}

// Cost is Kensa's CostInfo, binary64 floats (see internal/pyvalue).
type Cost struct {
	Prompt, Completion, Total float64
}

// Tool is Kensa's ToolInfo.
type Tool struct {
	Name   string
	Args   pyvalue.Value // a dict
	Result *pyvalue.Value
}

// Span kinds.
var spanKinds = []string{"llm", "tool", "agent", "chain", "retriever", "evaluator"}

var spanFields = []string{"trace_id", "span_id", "parent_span_id", "name", "kind", "start_time", "end_time",
	"status", "model", "provider", "input", "output", "tokens", "cost", "tools", "metadata"}

// ReadTrace reads a trace file in Kensa's span model: one JSON span a line, blank lines
// skipped. A malformed line (a file cut short mid-line included) is an error naming it.
func ReadTrace(file string, data []byte) ([]Span, error) {
	var spans []Span
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := pyvalue.Parse(line)
		if err != nil {
			return nil, fileError(file, n+1, "", "%v", err)
		}
		s, err := spanOf(v)
		if err != nil {
			return nil, fileError(file, n+1, "", "%v", err)
		}
		spans = append(spans, s)
	}
	return spans, nil
}

func spanOf(v pyvalue.Value) (Span, error) {
	if v.Kind() != pyvalue.KindDict {
		return Span{}, fmt.Errorf("a span is a JSON object, got %s", v.TypeName())
	}
	var err error
	v.Members(func(k string, _ pyvalue.Value) {
		if err == nil && !containsStr(spanFields, k) {
			err = fmt.Errorf("%s: unknown span field", k)
		}
	})
	if err != nil {
		return Span{}, err
	}
	r := fieldReader{v: v}
	s := Span{Status: "ok", Metadata: pyvalue.NewDict(nil, nil)}
	s.TraceID = r.str("trace_id", true)
	s.SpanID = r.str("span_id", true)
	s.ParentSpanID = r.optStr("parent_span_id")
	s.Name = r.str("name", true)
	s.Kind = r.str("kind", true)
	if r.err == nil && !containsStr(spanKinds, s.Kind) {
		return Span{}, fmt.Errorf("kind: %q is not one of %s", s.Kind, strings.Join(spanKinds, ", "))
	}
	s.Start = r.time("start_time")
	s.End = r.time("end_time")
	if st := r.optStr("status"); st != nil {
		s.Status = *st
	}
	s.Model, s.Provider = r.optStr("model"), r.optStr("provider")
	s.Input, s.Output = r.optDict("input"), r.optDict("output")
	s.Tokens = r.tokens()
	s.Cost = r.cost()
	s.Tools = r.tools()
	if md := r.optDict("metadata"); md != nil {
		s.Metadata = *md
	}
	return s, r.err
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fieldReader reads typed fields of a JSON object, keeping the first error.
type fieldReader struct {
	v   pyvalue.Value
	err error
}

func (r *fieldReader) fail(field, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
	}
}

func (r *fieldReader) str(field string, required bool) string {
	m, ok := r.v.Get(field)
	if !ok {
		if required {
			r.fail(field, "missing")
		}
		return ""
	}
	s, isStr := m.AsStr()
	if !isStr {
		r.fail(field, "must be a string, got %s", m.TypeName())
	}
	return s
}

func (r *fieldReader) optStr(field string) *string {
	m, ok := r.v.Get(field)
	if !ok || m.IsNull() {
		return nil
	}
	s, isStr := m.AsStr()
	if !isStr {
		r.fail(field, "must be a string or null, got %s", m.TypeName())
		return nil
	}
	return &s
}

func (r *fieldReader) optDict(field string) *pyvalue.Value {
	m, ok := r.v.Get(field)
	if !ok || m.IsNull() {
		return nil
	}
	if m.Kind() != pyvalue.KindDict {
		r.fail(field, "must be an object or null, got %s", m.TypeName())
		return nil
	}
	return &m
}

func (r *fieldReader) time(field string) int64 {
	m, ok := r.v.Get(field)
	if !ok {
		r.fail(field, "missing")
		return 0
	}
	s, isStr := m.AsStr()
	if !isStr {
		r.fail(field, "must be an ISO 8601 timestamp, got %s", m.TypeName())
		return 0
	}
	us, err := ParseTime(s)
	if err != nil {
		r.fail(field, "%v", err)
	}
	return us
}

func (r *fieldReader) tokens() *Tokens {
	d := r.optDict("tokens")
	if d == nil {
		return nil
	}
	sub := fieldReader{v: *d}
	t := &Tokens{Prompt: sub.int("prompt"), Completion: sub.int("completion"), Total: sub.int("total"), CacheRead: sub.int("cache_read")}
	if sub.err != nil {
		r.fail("tokens", "%v", sub.err)
	}
	return t
}

func (r *fieldReader) int(field string) int64 {
	m, ok := r.v.Get(field)
	if !ok {
		return 0
	}
	if i, isInt := m.AsInt(); isInt {
		return i
	}
	if f, isNum := m.AsNumber(); isNum && f == float64(int64(f)) {
		return int64(f) // pydantic accepts a float with no fraction for an int field
	}
	r.fail(field, "must be an integer, got %s", m.TypeName())
	return 0
}

func (r *fieldReader) float(field string) float64 {
	m, ok := r.v.Get(field)
	if !ok {
		return 0
	}
	f, isNum := m.AsNumber()
	if !isNum {
		r.fail(field, "must be a number, got %s", m.TypeName())
	}
	return f
}

func (r *fieldReader) cost() *Cost {
	d := r.optDict("cost")
	if d == nil {
		return nil
	}
	sub := fieldReader{v: *d}
	c := &Cost{Prompt: sub.float("prompt"), Completion: sub.float("completion"), Total: sub.float("total")}
	if sub.err != nil {
		r.fail("cost", "%v", sub.err)
	}
	return c
}

func (r *fieldReader) tools() []Tool {
	m, ok := r.v.Get("tools")
	if !ok || m.IsNull() {
		return nil
	}
	if m.Kind() != pyvalue.KindList {
		r.fail("tools", "must be a list, got %s", m.TypeName())
		return nil
	}
	var tools []Tool
	for i, item := range m.Items() {
		sub := fieldReader{v: item}
		if item.Kind() != pyvalue.KindDict {
			r.fail(fmt.Sprintf("tools[%d]", i), "must be an object")
			return nil
		}
		t := Tool{Name: sub.str("name", true), Args: pyvalue.NewDict(nil, nil)}
		if a := sub.optDict("args"); a != nil {
			t.Args = *a
		}
		t.Result = sub.optDict("result")
		if sub.err != nil {
			r.fail(fmt.Sprintf("tools[%d]", i), "%v", sub.err)
			return nil
		}
		tools = append(tools, t)
	}
	return tools
}

// ParseTime reads an ISO 8601 timestamp as pydantic does for Kensa's datetimes, to
// microseconds since the epoch. A timestamp without an offset is taken as UTC.
func ParseTime(s string) (int64, error) {
	text := s
	if strings.HasSuffix(text, "Z") || strings.HasSuffix(text, "z") {
		text = text[:len(text)-1] + "+00:00"
	}
	layouts := []string{"2006-01-02T15:04:05.999999999-07:00", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999"}
	for _, layout := range layouts {
		t, err := time.Parse(layout, text)
		if err != nil {
			continue
		}
		if t.Nanosecond()%1000 != 0 {
			return 0, fmt.Errorf("%q has more than microsecond precision", s)
		}
		return t.Unix()*1_000_000 + int64(t.Nanosecond()/1000), nil
	}
	return 0, fmt.Errorf("%q is not an ISO 8601 timestamp", s)
}

// FormatTime writes microseconds since the epoch as pydantic writes a UTC datetime:
// "2026-11-24T22:20:03.765181Z", without a fraction when it is zero.
func FormatTime(us int64) string {
	sec, frac := us/1_000_000, us%1_000_000
	if frac < 0 {
		sec, frac = sec-1, frac+1_000_000
	}
	t := time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05")
	if frac != 0 {
		t += "." + fmt.Sprintf("%06d", frac)
	}
	return t + "Z"
}

// MicrosFromNanos converts an OTel timestamp (Unix nanoseconds) as Kensa does: nanoseconds
// divided by 1e9 as a float, then datetime.fromtimestamp, which rounds the fraction to
// microseconds half to even.
func MicrosFromNanos(ns int64) int64 {
	secs := float64(ns) / 1e9
	whole := float64(int64(secs))
	if secs < 0 && whole != secs {
		whole-- // floor, as modf of a negative number then a borrow
	}
	frac := float64((secs - whole) * 1e6)
	us := roundHalfEven(frac)
	if us >= 1e6 {
		us -= 1e6
		whole++
	}
	return int64(whole)*1_000_000 + int64(us)
}

func roundHalfEven(f float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 0, 64), 64)
	return r
}

// WriteTrace writes spans as Kensa's trace files hold them (pydantic's model_dump_json, one
// span a line).
func WriteTrace(spans []Span) []byte {
	var b bytes.Buffer
	for i := range spans {
		writeSpan(&b, &spans[i])
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeSpan(b *bytes.Buffer, s *Span) {
	str := func(p *string) pyvalue.Value {
		if p == nil {
			return pyvalue.Value{}
		}
		return pyvalue.NewStr(*p)
	}
	dict := func(p *pyvalue.Value) pyvalue.Value {
		if p == nil {
			return pyvalue.Value{}
		}
		return *p
	}
	keys := []string{"trace_id", "span_id", "parent_span_id", "name", "kind", "start_time", "end_time", "status",
		"model", "provider", "input", "output", "tokens", "cost", "tools", "metadata"}
	vals := []pyvalue.Value{pyvalue.NewStr(s.TraceID), pyvalue.NewStr(s.SpanID), str(s.ParentSpanID), pyvalue.NewStr(s.Name),
		pyvalue.NewStr(s.Kind), pyvalue.NewStr(FormatTime(s.Start)), pyvalue.NewStr(FormatTime(s.End)), pyvalue.NewStr(s.Status),
		str(s.Model), str(s.Provider), dict(s.Input), dict(s.Output), tokensValue(s.Tokens), costValue(s.Cost), toolsValue(s.Tools), s.Metadata}
	b.WriteString(pyvalue.DumpsCompact(pyvalue.NewDict(keys, vals)))
}

func tokensValue(t *Tokens) pyvalue.Value {
	if t == nil {
		return pyvalue.Value{}
	}
	return pyvalue.NewDict([]string{"prompt", "completion", "total", "cache_read"},
		[]pyvalue.Value{pyvalue.NewInt(t.Prompt), pyvalue.NewInt(t.Completion), pyvalue.NewInt(t.Total), pyvalue.NewInt(t.CacheRead)})
}

func costValue(c *Cost) pyvalue.Value {
	if c == nil {
		return pyvalue.Value{}
	}
	return pyvalue.NewDict([]string{"prompt", "completion", "total"},
		[]pyvalue.Value{pyvalue.NewFloat(c.Prompt), pyvalue.NewFloat(c.Completion), pyvalue.NewFloat(c.Total)})
}

func toolsValue(tools []Tool) pyvalue.Value {
	items := make([]pyvalue.Value, len(tools))
	for i, t := range tools {
		result := pyvalue.Value{}
		if t.Result != nil {
			result = *t.Result
		}
		items[i] = pyvalue.NewDict([]string{"name", "args", "result"}, []pyvalue.Value{pyvalue.NewStr(t.Name), t.Args, result})
	}
	return pyvalue.NewList(items)
}
