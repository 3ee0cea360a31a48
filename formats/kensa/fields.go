package kensa

import (
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// fields reads the members of one object of a document tree (internal/doc) with the types
// Kensa's Python gets (scalar: PyYAML's rules for YAML files, nil for JSON's), keeping the
// first error, located at the member it is about.
type fields struct {
	obj    *doc.Node
	scalar pyvalue.ScalarFunc
	err    error
}

// newFields checks that n is an object (what names it in the error) whose member names are
// all in known (any names when known is nil).
func newFields(n *doc.Node, what string, known []string, scalar pyvalue.ScalarFunc) (*fields, error) {
	if n.Kind() != doc.Object {
		v, err := pyvalue.FromNode(n, scalar)
		if err != nil {
			return nil, err
		}
		return nil, invalid(n, "%s must be a mapping, got %s", what, v.TypeName())
	}
	if known != nil {
		for _, m := range n.Members() {
			if !slices.Contains(known, m.Key) {
				return nil, invalid(m.Value, "unknown field (known: %s)", strings.Join(known, ", "))
			}
		}
	}
	return &fields{obj: n, scalar: scalar}, nil
}

// fail keeps the first error: at n, or at the object with the path of key when n is nil.
func (f *fields) fail(n *doc.Node, key, format string, args ...any) {
	if f.err != nil {
		return
	}
	if n == nil {
		f.err = missing(f.obj, key, format, args...)
		return
	}
	f.err = invalid(n, format, args...)
}

// has reports whether the object has a member named key.
func (f *fields) has(key string) bool { return f.obj.Get(key) != nil }

// value returns the member named key as a Python value, and its node (nil when absent).
func (f *fields) value(key string) (pyvalue.Value, *doc.Node) {
	n := f.obj.Get(key)
	if n == nil || f.err != nil {
		return pyvalue.Value{}, n
	}
	v, err := pyvalue.FromNode(n, f.scalar)
	if err != nil {
		f.err = err
	}
	return v, n
}

// str reads a string member; a required one must be present and not null.
func (f *fields) str(key string, required bool) string {
	v, n := f.value(key)
	if n == nil {
		if required {
			f.fail(nil, key, "missing (required)")
		}
		return ""
	}
	s, ok := v.AsStr()
	if !ok && f.err == nil {
		f.fail(n, key, "must be a string, got %s", v.TypeName())
	}
	return s
}

// optStr reads a string member that may be absent or null.
func (f *fields) optStr(key string) *string {
	v, n := f.value(key)
	if n == nil || v.IsNull() || f.err != nil {
		return nil
	}
	s, ok := v.AsStr()
	if !ok {
		f.fail(n, key, "must be a string or null, got %s", v.TypeName())
		return nil
	}
	return &s
}

// strList reads a list of strings; absent or null gives nil.
func (f *fields) strList(key string) []string {
	v, n := f.value(key)
	if n == nil || v.IsNull() || f.err != nil {
		return nil
	}
	if v.Kind() != pyvalue.KindList {
		f.fail(n, key, "must be a list of strings, got %s", v.TypeName())
		return nil
	}
	out := make([]string, 0, v.Len())
	for i, item := range v.Items() {
		s, ok := item.AsStr()
		if !ok {
			f.fail(n.Index(i), key, "must be a string, got %s", item.TypeName())
			return nil
		}
		out = append(out, s)
	}
	return out
}

// optDict reads an object member that may be absent or null.
func (f *fields) optDict(key string) *pyvalue.Value {
	v, n := f.value(key)
	if n == nil || v.IsNull() || f.err != nil {
		return nil
	}
	if v.Kind() != pyvalue.KindDict {
		f.fail(n, key, "must be an object or null, got %s", v.TypeName())
		return nil
	}
	return &v
}

// int reads an integer member (0 when absent); pydantic accepts a float with no fraction.
func (f *fields) int(key string) int64 {
	v, n := f.value(key)
	if n == nil || f.err != nil {
		return 0
	}
	if i, ok := intValue(v); ok {
		return i
	}
	f.fail(n, key, "must be an integer, got %s", v.TypeName())
	return 0
}

// intValue reads an integer as pydantic does: an int, or a float with no fraction.
func intValue(v pyvalue.Value) (int64, bool) {
	if i, ok := v.AsInt(); ok {
		return i, true
	}
	if x, ok := v.AsNumber(); ok && x == float64(int64(x)) {
		return int64(x), true
	}
	return 0, false
}

// float reads a number member (0 when absent).
func (f *fields) float(key string) float64 {
	v, n := f.value(key)
	if n == nil || f.err != nil {
		return 0
	}
	x, ok := v.AsNumber()
	if !ok {
		f.fail(n, key, "must be a number, got %s", v.TypeName())
	}
	return x
}

// time reads a required ISO 8601 timestamp member, to microseconds since the epoch.
func (f *fields) time(key string) int64 {
	s := f.str(key, true)
	if f.err != nil {
		return 0
	}
	us, err := ParseTime(s)
	if err != nil {
		f.fail(f.obj.Get(key), key, "%v", err)
	}
	return us
}

// oneOf fails unless s is one of values (what names them in the message).
func (f *fields) oneOf(key, s string, values []string, what string) {
	if f.err == nil && !slices.Contains(values, s) {
		f.fail(f.obj.Get(key), key, "%s is not %s", pyvalue.StrRepr(s), what)
	}
}

// sub reads the object member key with its own fields reader; nil when absent or null.
func (f *fields) sub(key string, what string, known []string) *fields {
	n := f.obj.Get(key)
	if n == nil || n.IsNull() || f.err != nil {
		return nil
	}
	sub, err := newFields(n, what, known, f.scalar)
	if err != nil {
		f.err = err
		return nil
	}
	return sub
}
