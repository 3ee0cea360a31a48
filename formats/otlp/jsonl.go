package otlp

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// ReadJSONL reads a JSON-lines span file as Kensa's JSONLSpanExporter writes it (one span a
// line; blank lines are skipped), through the project's document model (internal/doc). A line
// that is not a span object is an error naming its line and column: a file cut short mid-line
// is reported, never half-read silently. name is used in errors.
func ReadJSONL(name string, data []byte) ([]Span, error) {
	return ReadJSONLWith(name, data, nil)
}

// TimeFunc reads a span's start_time or end_time (nil when absent) as Unix nanoseconds.
type TimeFunc func(n *doc.Node) (int64, error)

// ReadJSONLWith is ReadJSONL with the span times read by times (integer nanoseconds when nil):
// Kensa's reader takes its own forms (formats/kensa.SpanTimestamp).
func ReadJSONLWith(name string, data []byte, times TimeFunc) ([]Span, error) {
	var spans []Span
	lines := doc.NewLines(name, bytes.NewReader(data), doc.Limits{})
	for {
		n, err := lines.Next()
		if err == io.EOF {
			return spans, nil
		}
		var s Span
		if err == nil {
			s, err = jsonlSpan(n, times)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		spans = append(spans, s)
	}
}

func jsonlSpan(n *doc.Node, times TimeFunc) (Span, error) {
	if n.Kind() != doc.Object {
		return Span{}, n.Errorf("a span is a JSON object, got %s", n.Kind().Article())
	}
	var s Span
	str := func(key string) string {
		v, _ := n.Get(key).Str() // absent or not a string: ""
		return v
	}
	s.TraceID, s.SpanID, s.ParentSpanID, s.Name = str("trace_id"), str("span_id"), str("parent_span_id"), str("name")
	for _, field := range []struct {
		key string
		dst *int64
	}{{"start_time", &s.Start}, {"end_time", &s.End}} {
		if times != nil {
			ns, err := times(n.Get(field.key))
			if err != nil {
				return Span{}, err
			}
			*field.dst = ns
			continue
		}
		if v := n.Get(field.key); v != nil && !v.IsNull() {
			ns, err := v.Int64()
			if err != nil {
				return Span{}, v.Errorf("want integer nanoseconds, got %s", v.Kind().Article())
			}
			*field.dst = ns
		}
	}
	s.Status = Status{Code: StatusUnset}
	code := n.Get("status")
	if code.Kind() == doc.Object {
		code = code.Get("status_code")
	}
	if code.Kind() == doc.String {
		s.Status.Code = strings.ToLower(code.Text())
	}
	if attrs := n.Get("attributes"); attrs.Kind() == doc.Object {
		for _, m := range attrs.Members() {
			v, err := pyvalue.FromNode(m.Value, nil)
			if err != nil {
				return Span{}, err
			}
			s.Attributes = append(s.Attributes, Attr{Key: m.Key, Value: v})
		}
	}
	return s, nil
}
