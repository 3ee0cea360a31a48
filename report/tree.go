package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"gopkg.in/yaml.v3"
)

// maxDepth bounds the nesting of a report. Reports nest a handful of levels.
const maxDepth = 64

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "an object"}[k]
}

// node is one value of a report, from JSON or YAML, with the line it starts on. Objects keep
// their members in document order; there is no Go map, so nothing read from a node depends on
// map order.
type node struct {
	kind kind
	// text is a scalar as written: a string's value, a number's literal, "true" or "false".
	text    string
	members []member
	items   []*node
	line    int
}

type member struct {
	key   string
	value *node
}

// get returns the member key of an object.
func (n *node) get(key string) (*node, bool) {
	if n == nil || n.kind != kindObject {
		return nil, false
	}
	for _, m := range n.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// parseJSON decodes exactly one JSON value with the line of each node.
func parseJSON(doc []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	p := jsonParser{dec: dec, lines: lineStarts(doc)}
	n, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: line %d: data after the JSON document", ErrMalformed, p.line())
	}
	return n, nil
}

// lineStarts returns the offset of every line's first byte.
func lineStarts(doc []byte) []int64 {
	starts := []int64{0}
	for i, c := range doc {
		if c == '\n' {
			starts = append(starts, int64(i+1))
		}
	}
	return starts
}

type jsonParser struct {
	dec   *json.Decoder
	lines []int64
}

// line is the line of the last byte the decoder consumed: the end of the last token, which
// for every token but a multi-line string (JSON has none) is also the line it starts on.
func (p *jsonParser) line() int {
	off := max(p.dec.InputOffset()-1, 0)
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

func (p *jsonParser) token(path string) (json.Token, error) {
	t, err := p.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: unexpected end of the JSON document in %s", ErrMalformed, describePath(path))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: line %d: %v", ErrMalformed, p.line(), err)
	}
	return t, nil
}

func (p *jsonParser) value(path string, depth int) (*node, error) {
	t, err := p.token(path)
	if err != nil {
		return nil, err
	}
	return p.fromToken(t, path, depth)
}

func (p *jsonParser) fromToken(t json.Token, path string, depth int) (*node, error) {
	n := &node{line: p.line()}
	switch t := t.(type) {
	case nil:
		n.kind = kindNull
	case bool:
		n.kind, n.text = kindBool, strconv.FormatBool(t)
	case json.Number:
		n.kind, n.text = kindNumber, t.String()
	case string:
		n.kind, n.text = kindString, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, fmt.Errorf("%w: line %d: %s nests deeper than %d levels", ErrMalformed, n.line, describePath(path), maxDepth)
		}
		switch t {
		case '[':
			return n, p.array(n, path, depth+1)
		case '{':
			return n, p.object(n, path, depth+1)
		}
		return nil, fmt.Errorf("%w: line %d: unexpected %q", ErrMalformed, n.line, t)
	}
	return n, nil
}

func (p *jsonParser) array(n *node, path string, depth int) error {
	n.kind = kindArray
	for {
		t, err := p.token(path)
		if err != nil {
			return err
		}
		if t == json.Delim(']') {
			return nil
		}
		item, err := p.fromToken(t, indexPath(path, len(n.items)), depth)
		if err != nil {
			return err
		}
		n.items = append(n.items, item)
	}
}

func (p *jsonParser) object(n *node, path string, depth int) error {
	n.kind = kindObject
	seen := map[string]struct{}{} // membership only: a linear search would make wide objects quadratic
	for {
		t, err := p.token(path)
		if err != nil {
			return err
		}
		if t == json.Delim('}') {
			return nil
		}
		key, _ := t.(string) // the decoder only yields string keys inside an object
		child := keyPath(path, key)
		if _, dup := seen[key]; dup {
			return fmt.Errorf("%w: line %d: %s is given twice", ErrMalformed, p.line(), describePath(child))
		}
		seen[key] = struct{}{}
		v, err := p.value(child, depth)
		if err != nil {
			return err
		}
		n.members = append(n.members, member{key: key, value: v})
	}
}

// parseYAML decodes exactly one YAML document. Anchors and aliases are refused: a report has
// no use for them, and expanding them is how a small hostile document becomes a huge one.
func parseYAML(doc []byte) (*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: the YAML document is empty", ErrMalformed)
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: more than one YAML document", ErrMalformed)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, fmt.Errorf("%w: the YAML document is empty", ErrMalformed)
	}
	return fromYAML(root.Content[0], "", 0)
}

func fromYAML(y *yaml.Node, path string, depth int) (*node, error) {
	n := &node{line: y.Line}
	switch y.Kind {
	case yaml.AliasNode:
		return nil, fmt.Errorf("%w: line %d: %s is a YAML alias; anchors and aliases are not accepted in reports", ErrMalformed, y.Line, describePath(path))
	case yaml.ScalarNode:
		return n, yamlScalar(n, y, path)
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("%w: line %d: %s nests deeper than %d levels", ErrMalformed, y.Line, describePath(path), maxDepth)
	}
	switch y.Kind {
	case yaml.SequenceNode:
		n.kind = kindArray
		for i, c := range y.Content {
			item, err := fromYAML(c, indexPath(path, i), depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, item)
		}
		return n, nil
	case yaml.MappingNode:
		n.kind = kindObject
		seen := map[string]struct{}{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%w: line %d: %s has a key that is not a scalar", ErrMalformed, k.Line, describePath(path))
			}
			child := keyPath(path, k.Value)
			if _, dup := seen[k.Value]; dup {
				return nil, fmt.Errorf("%w: line %d: %s is given twice", ErrMalformed, k.Line, describePath(child))
			}
			seen[k.Value] = struct{}{}
			v, err := fromYAML(y.Content[i+1], child, depth+1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{key: k.Value, value: v})
		}
		return n, nil
	}
	return nil, fmt.Errorf("%w: line %d: %s: unsupported YAML node", ErrMalformed, y.Line, describePath(path))
}

// yamlScalar types a YAML scalar by its resolved tag (YAML 1.2 core schema). Timestamps and
// other tags keep their text as strings.
func yamlScalar(n *node, y *yaml.Node, path string) error {
	n.text = y.Value
	switch y.ShortTag() {
	case "!!null":
		n.kind, n.text = kindNull, ""
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return fmt.Errorf("%w: line %d: %s: %v", ErrMalformed, y.Line, describePath(path), err)
		}
		n.kind, n.text = kindBool, strconv.FormatBool(b)
	case "!!int", "!!float":
		n.kind = kindNumber
	default:
		n.kind = kindString
	}
	return nil
}

// keyPath and indexPath build the dotted paths findings and errors name: "safety_summary.
// passed_count", "scenario_details[3].status".
func keyPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

func describePath(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}
