package otlp

import (
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// ErrMalformed: spans could not be decoded.
var ErrMalformed = errclass.New(errclass.Input, "otlp: malformed spans")

// Span is one span, whatever its source.
type Span struct {
	TraceID      string // 32 lowercase hex digits
	SpanID       string // 16 lowercase hex digits
	ParentSpanID string // "" for a root span
	Name         string
	// Kind is the OTel span kind: "internal", "server", "client", "producer", "consumer", or
	// "" when unspecified.
	Kind string
	// Start and End are Unix nanoseconds.
	Start, End int64
	Status     Status
	Attributes []Attr
	Events     []Event
	Resource   []Attr
	Scope      Scope
}

// Status is a span's status: Code is "unset", "ok" or "error".
type Status struct {
	Code    string
	Message string
}

// Status codes.
const (
	StatusUnset = "unset"
	StatusOK    = "ok"
	StatusError = "error"
)

// Attr is one attribute.
type Attr struct {
	Key   string
	Value pyvalue.Value
}

// Event is one span event.
type Event struct {
	Name       string
	Time       int64
	Attributes []Attr
}

// Scope is the instrumentation scope that produced a span.
type Scope struct {
	Name, Version string
}

// Attr returns the value of the attribute named key (the last one, if repeated).
func (s *Span) Attr(key string) (pyvalue.Value, bool) { return lookup(s.Attributes, key) }

func lookup(attrs []Attr, key string) (pyvalue.Value, bool) {
	for i := len(attrs) - 1; i >= 0; i-- {
		if attrs[i].Key == key {
			return attrs[i].Value, true
		}
	}
	return pyvalue.Value{}, false
}

// AttrString returns the attribute named key when it is a string.
func (s *Span) AttrString(key string) (string, bool) {
	v, ok := s.Attr(key)
	if !ok {
		return "", false
	}
	return v.AsStr()
}

// AttributesValue returns the attributes as one dict value, in order.
func AttributesValue(attrs []Attr) pyvalue.Value {
	keys := make([]string, len(attrs))
	vals := make([]pyvalue.Value, len(attrs))
	for i, a := range attrs {
		keys[i], vals[i] = a.Key, a.Value
	}
	return pyvalue.NewDict(keys, vals)
}
