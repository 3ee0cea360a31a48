package kensa

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/doc"
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
// Well-formed traces are read by a fast path (scanTrace), the others by the document model.
func ReadTrace(file string, data []byte) ([]Span, error) {
	if spans, ok := scanTrace(data); ok {
		return spans, nil
	}
	return readTrace(file, data)
}

// readTrace is ReadTrace through the document model: the reader of every trace the fast path
// leaves, and of every error.
func readTrace(file string, data []byte) ([]Span, error) {
	var spans []Span
	err := eachLine(file, data, func(n *doc.Node) error {
		s, err := spanOf(n)
		if err == nil {
			spans = append(spans, s)
		}
		return err
	})
	return spans, err
}

func spanOf(n *doc.Node) (Span, error) {
	f, err := newFields(n, "a span", spanFields, nil)
	if err != nil {
		return Span{}, err
	}
	s := Span{Status: "ok", Metadata: pyvalue.NewDict(nil, nil)}
	s.TraceID = f.str("trace_id", true)
	s.SpanID = f.str("span_id", true)
	s.ParentSpanID = f.optStr("parent_span_id")
	s.Name = f.str("name", true)
	s.Kind = f.str("kind", true)
	f.oneOf("kind", s.Kind, spanKinds, "one of "+strings.Join(spanKinds, ", "))
	s.Start = f.time("start_time")
	s.End = f.time("end_time")
	if st := f.optStr("status"); st != nil {
		s.Status = *st
	}
	s.Model, s.Provider = f.optStr("model"), f.optStr("provider")
	s.Input, s.Output = f.optDict("input"), f.optDict("output")
	if t := f.sub("tokens", "tokens", nil); t != nil {
		s.Tokens = &Tokens{Prompt: t.int("prompt"), Completion: t.int("completion"), Total: t.int("total"), CacheRead: t.int("cache_read")}
		f.err = t.err
	}
	if c := f.sub("cost", "cost", nil); c != nil {
		s.Cost = &Cost{Prompt: c.float("prompt"), Completion: c.float("completion"), Total: c.float("total")}
		f.err = c.err
	}
	s.Tools = tools(f)
	if md := f.optDict("metadata"); md != nil {
		s.Metadata = *md
	}
	return s, f.err
}

func tools(f *fields) []Tool {
	n := f.obj.Get("tools")
	if f.err != nil || n == nil || n.IsNull() {
		return nil
	}
	if n.Kind() != doc.Array {
		f.fail(n, "tools", "must be a list, got %s", n.Kind().Article())
		return nil
	}
	var out []Tool
	for _, item := range n.Items() {
		tf, err := newFields(item, "a tool", nil, nil)
		if err != nil {
			f.err = err
			return nil
		}
		t := Tool{Name: tf.str("name", true), Args: pyvalue.NewDict(nil, nil)}
		if a := tf.optDict("args"); a != nil {
			t.Args = *a
		}
		t.Result = tf.optDict("result")
		if tf.err != nil {
			f.err = tf.err
			return nil
		}
		out = append(out, t)
	}
	return out
}

// ParseTime reads an ISO 8601 timestamp as pydantic does for Kensa's datetimes, to
// microseconds since the epoch. A timestamp without an offset is taken as UTC.
func ParseTime(s string) (int64, error) {
	if us, ok := parseZulu(s); ok {
		return us, nil
	}
	return parseTimeLayouts(s)
}

// parseZulu reads the form pydantic writes, "2026-11-24T22:20:03.765181Z" (a fraction of one
// to nine digits, or none), as parseTimeLayouts reads it but without time.Parse, a sixth of
// reading a trace; false for any other text, and for a time it refuses.
func parseZulu(s string) (int64, bool) {
	if len(s) < 20 || len(s) > 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	year, ok1 := decimal(s[0:4])
	month, ok2 := decimal(s[5:7])
	day, ok3 := decimal(s[8:10])
	hour, ok4 := decimal(s[11:13])
	minute, ok5 := decimal(s[14:16])
	sec, ok6 := decimal(s[17:19])
	nanos, ok7 := 0, true
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 {
			return 0, false
		}
		nanos, ok7 = decimal(frac[1:])
		for range 10 - len(frac) {
			nanos *= 10
		}
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !ok7 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 || nanos%1000 != 0 {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)
	if t.Day() != day { // past the end of the month: time.Parse refuses it
		return 0, false
	}
	return t.Unix()*1_000_000 + int64(nanos/1000), true
}

// decimal reads a string of ASCII digits.
func decimal(s string) (int, bool) {
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// parseTimeLayouts is ParseTime through time.Parse, for every form pydantic reads.
func parseTimeLayouts(s string) (int64, error) {
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
