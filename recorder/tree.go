package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The recorder reads the JSON and YAML documents it interprets (reports, artifacts,
// transcripts, run configurations) into a small tree that keeps the line of every member, so
// that findings and errors can name file, line and field. Members the caller marks raw (an
// observation's data, an action's arguments) are kept as their exact JSON text instead: they
// are stored, not interpreted, and may be large.

type valueKind uint8

const (
	kindNull valueKind = iota + 1
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
	kindRaw
)

func (k valueKind) String() string {
	return [...]string{"?", "null", "boolean", "number", "string", "array", "object", "JSON value"}[k]
}

// value is one JSON or YAML value with its line.
type value struct {
	kind   valueKind
	text   string // a string's content; a number, boolean or null literal
	fields []field
	items  []*value
	raw    []byte // kindRaw: the value's exact JSON text
	line   int
}

type field struct {
	key  string
	line int
	val  *value
}

// get returns the member key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for _, f := range v.fields {
		if f.key == key {
			return f.val
		}
	}
	return nil
}

// maxTreeDepth bounds nesting: the documents the recorder interprets nest a few levels.
const maxTreeDepth = 128

// maxTreeNodes bounds the values of one document, which also bounds YAML alias expansion.
const maxTreeNodes = 4 << 20

// doc is a document being read: its name for messages and its line index.
type doc struct {
	name     string
	newlines []int // offsets of '\n'
}

func newDoc(name string, data []byte) *doc {
	d := &doc{name: name}
	for i, c := range data {
		if c == '\n' {
			d.newlines = append(d.newlines, i)
		}
	}
	return d
}

// line returns the 1-based line of byte offset off.
func (d *doc) line(off int64) int {
	return sort.SearchInts(d.newlines, int(off)) + 1
}

func (d *doc) errorf(line int, field, format string, args ...any) error {
	return &InputError{File: d.name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// parseJSON reads one JSON document. raw reports, for a member path ("actions[].arguments"),
// whether to keep the member as its exact text; it may be nil.
func parseJSON(name string, data []byte, raw func(path string) bool) (*value, error) {
	d := newDoc(name, data)
	p := &jsonParser{doc: d, dec: json.NewDecoder(bytes.NewReader(data)), raw: raw}
	p.dec.UseNumber()
	v, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, d.errorf(d.line(p.dec.InputOffset()), "", "unexpected data after the JSON document")
	}
	return v, nil
}

type jsonParser struct {
	*doc
	dec   *json.Decoder
	raw   func(string) bool
	nodes int
}

func (p *jsonParser) fail(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return p.errorf(p.line(syn.Offset), "", "malformed JSON: %v", syn)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return p.errorf(p.line(p.dec.InputOffset()), "", "truncated JSON: the document ends in the middle of a value")
	}
	return p.errorf(p.line(p.dec.InputOffset()), "", "malformed JSON: %v", err)
}

func (p *jsonParser) value(path string, depth int) (*value, error) {
	if depth > maxTreeDepth {
		return nil, p.errorf(p.line(p.dec.InputOffset()), path, "nested deeper than %d levels", maxTreeDepth)
	}
	if p.nodes++; p.nodes > maxTreeNodes {
		return nil, p.errorf(p.line(p.dec.InputOffset()), path, "more than %d values", maxTreeNodes)
	}
	if p.raw != nil && p.raw(path) {
		var m json.RawMessage
		if err := p.dec.Decode(&m); err != nil {
			return nil, p.fail(err)
		}
		end := p.dec.InputOffset()
		return &value{kind: kindRaw, raw: m, line: p.line(end - int64(len(m)))}, nil
	}
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(err)
	}
	line := p.line(p.dec.InputOffset() - 1)
	switch t := tok.(type) {
	case nil:
		return &value{kind: kindNull, text: "null", line: line}, nil
	case bool:
		return &value{kind: kindBool, text: strconv.FormatBool(t), line: line}, nil
	case json.Number:
		return &value{kind: kindNumber, text: t.String(), line: line}, nil
	case string:
		return &value{kind: kindString, text: t, line: line}, nil
	case json.Delim:
		if t == '[' {
			return p.array(path, depth, line)
		}
		return p.object(path, depth, line)
	}
	return nil, p.errorf(line, path, "unexpected token %v", tok)
}

func (p *jsonParser) array(path string, depth, line int) (*value, error) {
	v := &value{kind: kindArray, line: line}
	for p.dec.More() {
		item, err := p.value(path+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		v.items = append(v.items, item)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(err)
	}
	return v, nil
}

func (p *jsonParser) object(path string, depth, line int) (*value, error) {
	v := &value{kind: kindObject, line: line}
	seen := map[string]struct{}{} // membership only: a linear search would make wide objects quadratic
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(err)
		}
		key, _ := tok.(string) // Token guarantees a string key inside an object
		keyLine := p.line(p.dec.InputOffset() - 1)
		child := joinPath(path, key)
		if _, dup := seen[key]; dup {
			return nil, p.errorf(keyLine, child, "duplicate member %q", key)
		}
		seen[key] = struct{}{}
		val, err := p.value(child, depth+1)
		if err != nil {
			return nil, err
		}
		v.fields = append(v.fields, field{key: key, line: keyLine, val: val})
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(err)
	}
	return v, nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// indexPath renders an element path with its index, for messages ("actions[2].tool").
func indexPath(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// parseYAML reads the first document of a YAML file into a tree. Scalars keep their literal
// text and become strings, numbers, booleans or nulls by their resolved tag; timestamps stay
// strings. Aliases are expanded, within maxTreeNodes.
func parseYAML(name string, data []byte) (*value, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return nil, &InputError{File: name, Line: yamlErrorLine(err), Msg: "malformed YAML", Err: err}
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		return nil, &InputError{File: name, Msg: "empty YAML document"}
	}
	c := yamlConverter{name: name}
	return c.convert(n.Content[0], "", 0)
}

// yamlErrorLine extracts "line N" from a yaml.v3 error message, 0 if there is none.
func yamlErrorLine(err error) int {
	msg := err.Error()
	i := strings.Index(msg, "line ")
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range msg[i+len("line "):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

type yamlConverter struct {
	name  string
	nodes int
}

func (c *yamlConverter) convert(n *yaml.Node, path string, depth int) (*value, error) {
	if depth > maxTreeDepth {
		return nil, &InputError{File: c.name, Line: n.Line, Field: path, Msg: fmt.Sprintf("nested deeper than %d levels", maxTreeDepth)}
	}
	if c.nodes++; c.nodes > maxTreeNodes {
		return nil, &InputError{File: c.name, Line: n.Line, Field: path, Msg: fmt.Sprintf("more than %d values (aliases included)", maxTreeNodes)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.convert(n.Alias, path, depth+1)
	case yaml.SequenceNode:
		v := &value{kind: kindArray, line: n.Line}
		for _, item := range n.Content {
			iv, err := c.convert(item, path+"[]", depth+1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, iv)
		}
		return v, nil
	case yaml.MappingNode:
		v := &value{kind: kindObject, line: n.Line}
		seen := map[string]struct{}{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			child := joinPath(path, k.Value)
			if k.Kind != yaml.ScalarNode {
				return nil, &InputError{File: c.name, Line: k.Line, Field: path, Msg: "mapping key is not a scalar"}
			}
			if _, dup := seen[k.Value]; dup {
				return nil, &InputError{File: c.name, Line: k.Line, Field: child, Msg: fmt.Sprintf("duplicate key %q", k.Value)}
			}
			seen[k.Value] = struct{}{}
			val, err := c.convert(n.Content[i+1], child, depth+1)
			if err != nil {
				return nil, err
			}
			v.fields = append(v.fields, field{key: k.Value, line: k.Line, val: val})
		}
		return v, nil
	case yaml.ScalarNode:
		return yamlScalar(n), nil
	}
	return nil, &InputError{File: c.name, Line: n.Line, Field: path, Msg: "unsupported YAML node"}
}

func yamlScalar(n *yaml.Node) *value {
	v := &value{kind: kindString, text: n.Value, line: n.Line}
	switch n.ShortTag() {
	case "!!null":
		v.kind, v.text = kindNull, "null"
	case "!!bool":
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			v.kind, v.text = kindBool, strconv.FormatBool(b)
		}
	case "!!int", "!!float":
		v.kind = kindNumber
	}
	return v
}

// difference is one place where two trees disagree.
type difference struct {
	path     string
	line     int // in the second tree
	got, was string
}

// compareTrees lists where b (a YAML rendering) says something else than a (the JSON
// original), at most limit differences, in document order. Numbers compare by value ("1.0"
// equals "1"), everything else by kind and text; member order does not matter.
func compareTrees(a, b *value, limit int) []difference {
	var out []difference
	var walk func(a, b *value, path string)
	walk = func(a, b *value, path string) {
		if len(out) >= limit {
			return
		}
		if a.kind != b.kind {
			out = append(out, difference{path, b.line, describe(b), describe(a)})
			return
		}
		switch a.kind {
		case kindObject:
			for _, f := range a.fields {
				if bv := b.get(f.key); bv != nil {
					walk(f.val, bv, joinPath(path, f.key))
				} else {
					out = append(out, difference{joinPath(path, f.key), b.line, "nothing", describe(f.val)})
				}
			}
			for _, f := range b.fields {
				if a.get(f.key) == nil {
					out = append(out, difference{joinPath(path, f.key), f.line, describe(f.val), "nothing"})
				}
			}
		case kindArray:
			if len(a.items) != len(b.items) {
				out = append(out, difference{path, b.line, fmt.Sprintf("%d items", len(b.items)), fmt.Sprintf("%d items", len(a.items))})
				return
			}
			for i := range a.items {
				walk(a.items[i], b.items[i], indexPath(path, i))
			}
		case kindNumber:
			if !sameNumber(a.text, b.text) {
				out = append(out, difference{path, b.line, b.text, a.text})
			}
		default:
			if a.text != b.text {
				out = append(out, difference{path, b.line, describe(b), describe(a)})
			}
		}
	}
	walk(a, b, "")
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func sameNumber(x, y string) bool {
	if x == y {
		return true
	}
	rx, okx := new(big.Rat).SetString(x)
	ry, oky := new(big.Rat).SetString(y)
	return okx && oky && rx.Cmp(ry) == 0
}

// describe renders a value briefly for a message.
func describe(v *value) string {
	switch v.kind {
	case kindString:
		s := v.text
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return strconv.Quote(s)
	case kindObject:
		return fmt.Sprintf("an object of %d members", len(v.fields))
	case kindArray:
		return fmt.Sprintf("an array of %d items", len(v.items))
	case kindRaw:
		return "a JSON value"
	}
	return v.text
}

// str reads an optional string member: "" when absent or null.
func (d *doc) str(obj *value, key, path string) (string, error) {
	v := obj.get(key)
	if v == nil || v.kind == kindNull {
		return "", nil
	}
	if v.kind != kindString {
		return "", d.errorf(v.line, joinPath(path, key), "is %s, want a string", v.kind)
	}
	return v.text, nil
}

// strList reads an optional array of strings.
func (d *doc) strList(obj *value, key, path string) ([]string, error) {
	v := obj.get(key)
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindArray {
		return nil, d.errorf(v.line, joinPath(path, key), "is %s, want an array of strings", v.kind)
	}
	out := make([]string, 0, len(v.items))
	for i, item := range v.items {
		if item.kind != kindString {
			return nil, d.errorf(item.line, indexPath(joinPath(path, key), i), "is %s, want a string", item.kind)
		}
		out = append(out, item.text)
	}
	return out, nil
}

// object reads an optional object member: nil when absent or null.
func (d *doc) object(obj *value, key, path string) (*value, error) {
	v := obj.get(key)
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindObject {
		return nil, d.errorf(v.line, joinPath(path, key), "is %s, want an object", v.kind)
	}
	return v, nil
}

// array reads an optional array member: nil when absent or null.
func (d *doc) array(obj *value, key, path string) ([]*value, error) {
	v := obj.get(key)
	if v == nil || v.kind == kindNull {
		return nil, nil
	}
	if v.kind != kindArray {
		return nil, d.errorf(v.line, joinPath(path, key), "is %s, want an array", v.kind)
	}
	return v.items, nil
}

// literal renders a scalar the way the run manifest keeps configuration values: a string's
// content, the literal text of a number, boolean or null; compact JSON for anything else.
func literal(v *value) string {
	switch v.kind {
	case kindObject, kindArray, kindRaw:
		return compactText(v)
	}
	return v.text
}

// compactText renders a value as compact JSON (objects in document order).
func compactText(v *value) string {
	var b strings.Builder
	var write func(v *value)
	write = func(v *value) {
		switch v.kind {
		case kindString:
			b.WriteString(jsonString(v.text))
		case kindRaw:
			var c bytes.Buffer
			if json.Compact(&c, v.raw) == nil {
				b.Write(c.Bytes())
			}
		case kindArray:
			b.WriteByte('[')
			for i, item := range v.items {
				if i > 0 {
					b.WriteByte(',')
				}
				write(item)
			}
			b.WriteByte(']')
		case kindObject:
			b.WriteByte('{')
			for i, f := range v.fields {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(jsonString(f.key))
				b.WriteByte(':')
				write(f.val)
			}
			b.WriteByte('}')
		default:
			b.WriteString(v.text)
		}
	}
	write(v)
	return b.String()
}

// unknownFields lists the members of obj not in known, in document order.
func unknownFields(obj *value, known ...string) []field {
	var out []field
	for _, f := range obj.fields {
		if !slices.Contains(known, f.key) {
			out = append(out, f)
		}
	}
	return out
}

// jsonString renders s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
