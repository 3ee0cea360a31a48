package profiles

import (
	"fmt"
	"strconv"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// objectReader reads the fields of one YAML mapping of a profile file (a scenario document,
// the conformance file, an agent configuration schema). Every problem it finds becomes an
// error diagnostic naming the file, line, scenario and dotted field path; finish reports every
// key that was never read, because a field the model does not know would otherwise be silently
// ignored by the evaluator.
type objectReader struct {
	d        *diagnostics
	file     string
	scenario string
	path     string
	node     *doc.Node
	used     map[string]bool
	// broken is set when the value is not a mapping; the reader then answers "absent" quietly,
	// since the one error already says what is wrong.
	broken bool
}

// newObjectReader wraps node, which must be a mapping.
func newObjectReader(d *diagnostics, file, scenario, path string, node *doc.Node) *objectReader {
	r := &objectReader{d: d, file: file, scenario: scenario, path: path, node: node, used: map[string]bool{}}
	if node.Kind() != doc.Object {
		d.errorf("type", r.atNode(node, ""), "must be a mapping, found %s", describe(node))
		r.broken = true
	}
	return r
}

// fieldPath joins the reader's path and key ("preconditions.agent" + "mode").
func (r *objectReader) fieldPath(key string) string {
	switch {
	case r.path == "":
		return key
	case key == "":
		return r.path
	case key[0] == '[':
		return r.path + key
	}
	return r.path + "." + key
}

func (r *objectReader) atNode(n *doc.Node, key string) at {
	return at{file: r.file, line: lineOf(n), scenario: r.scenario, field: r.fieldPath(key)}
}

// atKey points at a field of the mapping: the line of its key if present, else the mapping
// itself (a missing field is reported where the mapping starts).
func (r *objectReader) atKey(key string) at {
	if m := r.node.Member(key); m != nil {
		return r.atLine(m.KeyPos().Line, key)
	}
	return r.atNode(r.node, key)
}

// atLine points at a line, with the field path of key.
func (r *objectReader) atLine(line int, key string) at {
	return at{file: r.file, line: line, scenario: r.scenario, field: r.fieldPath(key)}
}

func (r *objectReader) position() Position { return Position{File: r.file, Line: lineOf(r.node)} }

// value returns a field's value, treating an explicit null like an absent field.
func (r *objectReader) value(key string) (*doc.Node, bool) {
	if r.broken {
		return nil, false
	}
	r.used[key] = true
	v := r.node.Get(key)
	if v == nil || v.IsNull() {
		return nil, false
	}
	return v, true
}

// has reports whether the field is present, even with a null value, without reading it.
func (r *objectReader) has(key string) bool {
	return r.node.Get(key) != nil && !r.broken
}

func (r *objectReader) missing(key string) {
	if !r.broken {
		r.d.errorf("required", r.atKey(key), "missing required field")
	}
}

// str reads a string field. Any non-null scalar is accepted with its literal text.
func (r *objectReader) str(key string, required bool) string {
	v, ok := r.value(key)
	if !ok {
		if required {
			r.missing(key)
		}
		return ""
	}
	if !isScalar(v) {
		r.d.errorf("type", r.atKey(key), "must be a string, found %s", describe(v))
		return ""
	}
	text := written(v)
	if text == "" && required {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	return text
}

// enum reads a string field that must be one of allowed.
func (r *objectReader) enum(key string, required bool, allowed ...string) string {
	s := r.str(key, required)
	if s == "" {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	r.d.errorf("enum", r.atKey(key), "%q is not one of %s", s, quoteList(allowed))
	return ""
}

// strList reads a sequence of strings.
func (r *objectReader) strList(key string, required bool) []string {
	v, ok := r.value(key)
	if !ok {
		if required {
			r.missing(key)
		}
		return nil
	}
	if v.Kind() != doc.Array {
		r.d.errorf("type", r.atKey(key), "must be a sequence of strings, found %s", describe(v))
		return nil
	}
	if required && v.Len() == 0 {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	out := make([]string, 0, v.Len())
	for i, item := range v.Items() {
		if !isScalar(item) || item.IsNull() || written(item) == "" {
			r.d.errorf("type", r.atNode(item, key+"["+strconv.Itoa(i)+"]"), "must be a non-empty string, found %s", describe(item))
			continue
		}
		out = append(out, written(item))
	}
	return out
}

// list reads a sequence and calls fn with a reader for each mapping item.
func (r *objectReader) list(key string, required bool, fn func(item *objectReader)) {
	v, ok := r.value(key)
	if !ok {
		if required {
			r.missing(key)
		}
		return
	}
	if v.Kind() != doc.Array {
		r.d.errorf("type", r.atKey(key), "must be a sequence, found %s", describe(v))
		return
	}
	if required && v.Len() == 0 {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	for i, n := range v.Items() {
		item := r.child(n, fmt.Sprintf("%s[%d]", key, i))
		fn(item)
		item.finish()
	}
}

// object reads a mapping field and returns a reader over it, or nil if it is absent.
func (r *objectReader) object(key string, required bool) *objectReader {
	v, ok := r.value(key)
	if !ok {
		if required {
			r.missing(key)
		}
		return nil
	}
	return r.child(v, key)
}

func (r *objectReader) child(n *doc.Node, key string) *objectReader {
	return newObjectReader(r.d, r.file, r.scenario, r.fieldPath(key), n)
}

// finish reports the keys nobody read.
func (r *objectReader) finish() {
	if r.broken {
		return
	}
	for _, m := range r.node.Members() {
		if !r.used[m.Key] {
			r.d.errorf("unknown-field", at{file: r.file, line: m.KeyPos().Line, scenario: r.scenario, field: r.fieldPath(m.Key)},
				"unknown field")
		}
	}
}

func quoteList(items []string) string {
	out := ""
	for i, s := range items {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}
