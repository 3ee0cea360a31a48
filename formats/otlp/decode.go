package otlp

import (
	"encoding/base64"
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// DecodeProtobuf reads an OTLP/HTTP trace export request body (or a TracesData message) in the
// protobuf encoding.
func DecodeProtobuf(body []byte) ([]Span, error) {
	var u ptrace.ProtoUnmarshaler
	td, err := u.UnmarshalTraces(body)
	if err != nil {
		return nil, fmt.Errorf("%w: protobuf: %v", ErrMalformed, err)
	}
	return fromTraces(td), nil
}

// DecodeJSON reads an OTLP/HTTP trace export request body (or an OTLP JSON file line) in the
// JSON encoding.
func DecodeJSON(body []byte) ([]Span, error) {
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(body)
	if err != nil {
		return nil, fmt.Errorf("%w: json: %v", ErrMalformed, err)
	}
	return fromTraces(td), nil
}

func fromTraces(td ptrace.Traces) []Span {
	var out []Span
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		rs := rss.At(i)
		resource := attrsOf(rs.Resource().Attributes())
		sss := rs.ScopeSpans()
		for j := range sss.Len() {
			ss := sss.At(j)
			scope := Scope{Name: ss.Scope().Name(), Version: ss.Scope().Version()}
			spans := ss.Spans()
			for k := range spans.Len() {
				out = append(out, fromSpan(spans.At(k), resource, scope))
			}
		}
	}
	return out
}

func fromSpan(s ptrace.Span, resource []Attr, scope Scope) Span {
	out := Span{
		TraceID:    hexID(s.TraceID().IsEmpty(), s.TraceID().String()),
		SpanID:     hexID(s.SpanID().IsEmpty(), s.SpanID().String()),
		Name:       s.Name(),
		Kind:       spanKind(s.Kind()),
		Start:      int64(s.StartTimestamp()),
		End:        int64(s.EndTimestamp()),
		Status:     Status{Code: statusCode(s.Status().Code()), Message: s.Status().Message()},
		Attributes: attrsOf(s.Attributes()),
		Resource:   resource,
		Scope:      scope,
	}
	if !s.ParentSpanID().IsEmpty() {
		out.ParentSpanID = s.ParentSpanID().String()
	}
	events := s.Events()
	for i := range events.Len() {
		e := events.At(i)
		out.Events = append(out.Events, Event{Name: e.Name(), Time: int64(e.Timestamp()), Attributes: attrsOf(e.Attributes())})
	}
	return out
}

func hexID(empty bool, s string) string {
	if empty {
		return ""
	}
	return s
}

func spanKind(k ptrace.SpanKind) string {
	switch k {
	case ptrace.SpanKindInternal:
		return "internal"
	case ptrace.SpanKindServer:
		return "server"
	case ptrace.SpanKindClient:
		return "client"
	case ptrace.SpanKindProducer:
		return "producer"
	case ptrace.SpanKindConsumer:
		return "consumer"
	}
	return ""
}

func statusCode(c ptrace.StatusCode) string {
	switch c {
	case ptrace.StatusCodeOk:
		return StatusOK
	case ptrace.StatusCodeError:
		return StatusError
	}
	return StatusUnset
}

func attrsOf(m pcommon.Map) []Attr {
	attrs := make([]Attr, 0, m.Len())
	m.Range(func(k string, v pcommon.Value) bool {
		attrs = append(attrs, Attr{Key: k, Value: valueOf(v, 0)})
		return true
	})
	return attrs
}

// maxValueDepth bounds nested attribute values (OTLP allows maps of maps).
const maxValueDepth = 64

func valueOf(v pcommon.Value, depth int) pyvalue.Value {
	if depth > maxValueDepth {
		return pyvalue.Value{}
	}
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return pyvalue.NewStr(v.Str())
	case pcommon.ValueTypeInt:
		return pyvalue.NewInt(v.Int())
	case pcommon.ValueTypeDouble:
		return pyvalue.NewFloat(v.Double())
	case pcommon.ValueTypeBool:
		return pyvalue.NewBool(v.Bool())
	case pcommon.ValueTypeBytes:
		return pyvalue.NewStr(base64.StdEncoding.EncodeToString(v.Bytes().AsRaw()))
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		items := make([]pyvalue.Value, s.Len())
		for i := range s.Len() {
			items[i] = valueOf(s.At(i), depth+1)
		}
		return pyvalue.NewList(items)
	case pcommon.ValueTypeMap:
		m := v.Map()
		keys, vals := make([]string, 0, m.Len()), make([]pyvalue.Value, 0, m.Len())
		m.Range(func(k string, mv pcommon.Value) bool {
			keys, vals = append(keys, k), append(vals, valueOf(mv, depth+1))
			return true
		})
		return pyvalue.NewDict(keys, vals)
	}
	return pyvalue.Value{}
}
