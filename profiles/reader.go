package profiles

import (
	"fmt"
	"strconv"
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
	node     *Node
	used     map[string]bool
	// broken is set when the value is not a mapping; the reader then answers "absent" quietly,
	// since the one error already says what is wrong.
	broken bool
}

// newObjectReader wraps node, which must be a mapping.
func newObjectReader(d *diagnostics, file, scenario, path string, node *Node) *objectReader {
	r := &objectReader{d: d, file: file, scenario: scenario, path: path, node: node, used: map[string]bool{}}
	if node.Kind != MappingNode {
		d.errorf("type", r.atNode(node, ""), "must be a mapping, found %s", node.Describe())
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

func (r *objectReader) atNode(n *Node, key string) at {
	return at{file: r.file, line: n.Line, scenario: r.scenario, field: r.fieldPath(key)}
}

// atKey points at a field of the mapping: the line of its key if present, else the mapping
// itself (a missing field is reported where the mapping starts).
func (r *objectReader) atKey(key string) at {
	for _, p := range r.node.Pairs {
		if p.Key == key {
			return r.atLine(p.Line, key)
		}
	}
	return r.atNode(r.node, key)
}

// atLine points at a line, with the field path of key.
func (r *objectReader) atLine(line int, key string) at {
	return at{file: r.file, line: line, scenario: r.scenario, field: r.fieldPath(key)}
}

func (r *objectReader) position() Position { return Position{File: r.file, Line: r.node.Line} }

// value returns a field's value, treating an explicit null like an absent field.
func (r *objectReader) value(key string) (*Node, bool) {
	if r.broken {
		return nil, false
	}
	r.used[key] = true
	v, ok := r.node.Get(key)
	if !ok || v.IsNull() {
		return nil, false
	}
	return v, true
}

// has reports whether the field is present, even with a null value, without reading it.
func (r *objectReader) has(key string) bool {
	_, ok := r.node.Get(key)
	return ok && !r.broken
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
	if v.Kind != ScalarNode {
		r.d.errorf("type", r.atKey(key), "must be a string, found %s", v.Describe())
		return ""
	}
	if v.Text == "" && required {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	return v.Text
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
	if v.Kind != SequenceNode {
		r.d.errorf("type", r.atKey(key), "must be a sequence of strings, found %s", v.Describe())
		return nil
	}
	if required && len(v.Items) == 0 {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	out := make([]string, 0, len(v.Items))
	for i := range v.Items {
		item := &v.Items[i]
		if item.Kind != ScalarNode || item.IsNull() || item.Text == "" {
			r.d.errorf("type", r.atNode(item, key+"["+strconv.Itoa(i)+"]"), "must be a non-empty string, found %s", item.Describe())
			continue
		}
		out = append(out, item.Text)
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
	if v.Kind != SequenceNode {
		r.d.errorf("type", r.atKey(key), "must be a sequence, found %s", v.Describe())
		return
	}
	if required && len(v.Items) == 0 {
		r.d.errorf("required", r.atKey(key), "must not be empty")
	}
	for i := range v.Items {
		item := r.child(&v.Items[i], fmt.Sprintf("%s[%d]", key, i))
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

func (r *objectReader) child(n *Node, key string) *objectReader {
	return newObjectReader(r.d, r.file, r.scenario, r.fieldPath(key), n)
}

// finish reports the keys nobody read.
func (r *objectReader) finish() {
	if r.broken {
		return
	}
	for _, p := range r.node.Pairs {
		if !r.used[p.Key] {
			r.d.errorf("unknown-field", at{file: r.file, line: p.Line, scenario: r.scenario, field: r.fieldPath(p.Key)},
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
