package otlp

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// ReadJSONL reads a JSON-lines span file as Kensa's JSONLSpanExporter writes it (one span a
// line; blank lines are skipped). A line that is not a span object is an error naming it: a
// file cut short mid-line is reported, never half-read silently. name is used in errors.
func ReadJSONL(name string, data []byte) ([]Span, error) {
	var spans []Span
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := jsonlSpan(line)
		if err != nil {
			return nil, fmt.Errorf("%w: %s:%d: %v", ErrMalformed, name, n+1, err)
		}
		spans = append(spans, s)
	}
	return spans, nil
}

func jsonlSpan(line []byte) (Span, error) {
	v, err := pyvalue.Parse(line)
	if err != nil {
		return Span{}, err
	}
	if v.Kind() != pyvalue.KindDict {
		return Span{}, fmt.Errorf("a span is a JSON object, got %s", v.TypeName())
	}
	var s Span
	str := func(key string) string {
		m, _ := v.Get(key)
		x, _ := m.AsStr()
		return x
	}
	s.TraceID, s.SpanID, s.ParentSpanID, s.Name = str("trace_id"), str("span_id"), str("parent_span_id"), str("name")
	if s.Start, err = nanos(v, "start_time"); err != nil {
		return Span{}, err
	}
	if s.End, err = nanos(v, "end_time"); err != nil {
		return Span{}, err
	}
	s.Status = Status{Code: StatusUnset}
	if st, ok := v.Get("status"); ok {
		code := st
		if st.Kind() == pyvalue.KindDict {
			code, _ = st.Get("status_code")
		}
		if c, ok := code.AsStr(); ok {
			s.Status.Code = strings.ToLower(c)
		}
	}
	if attrs, ok := v.Get("attributes"); ok && attrs.Kind() == pyvalue.KindDict {
		attrs.Members(func(k string, m pyvalue.Value) { s.Attributes = append(s.Attributes, Attr{Key: k, Value: m}) })
	}
	return s, nil
}

func nanos(v pyvalue.Value, key string) (int64, error) {
	m, ok := v.Get(key)
	if !ok || m.IsNull() {
		return 0, nil
	}
	if i, ok := m.AsInt(); ok {
		return i, nil
	}
	return 0, fmt.Errorf("%s: want integer nanoseconds, got %s", key, m.TypeName())
}
