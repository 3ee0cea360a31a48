package profiles

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits on untrusted YAML. yaml.v3 bounds nesting while parsing and never expands aliases
// into a Node tree; these limits bound what this package builds from that tree.
const (
	// maxDocumentsPerFile caps the number of YAML documents read from one file.
	maxDocumentsPerFile = 1000
	// maxNodesPerDocument caps the values built from one document after following aliases,
	// which defeats alias bombs ("billion laughs").
	maxNodesPerDocument = 100_000
	// maxNodeDepth caps nesting, again after following aliases (an alias may point at its own
	// parent).
	maxNodeDepth = 64
)

// yamlDocument is one non-empty document of a YAML stream.
type yamlDocument struct {
	Root Node
	// Index is the 0-based position of the document in its file, counting empty ones.
	Index int
}

// yamlErrLine matches the "yaml: line N: message" form of yaml.v3 errors.
var yamlErrLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the messages of yaml.v3's parser (as opposed to its scanner). yaml.v3
// v3.0.1 reports the line of parser errors 0-based (it adds 1 for scanner errors only), so
// these are shifted by one to name the line in the file.
var yamlParserProblems = []string{
	"did not find expected <", "did not find expected node content", "did not find expected key",
	"did not find expected '-' indicator", "did not find expected ',' or ", "found duplicate %",
	"found incompatible YAML document", "found undefined tag handle",
}

// decodeYAMLStream parses every document of data. Empty documents (a stream that opens with
// comments and "---", or "---" at the end) are skipped. Parse failures become error
// diagnostics with the file and line yaml.v3 reports; the stream is not read past the first
// syntax error, since the parser cannot resynchronise.
func decodeYAMLStream(file string, data []byte, d *diagnostics) []yamlDocument {
	var docs []yamlDocument
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for index := 0; ; index++ {
		if index >= maxDocumentsPerFile {
			d.errorf("yaml-limit", at{file: file}, "more than %d YAML documents", maxDocumentsPerFile)
			return docs
		}
		var raw yaml.Node
		err := safeDecode(dec, &raw)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			line, msg := splitYAMLError(err)
			d.errorf("yaml-syntax", at{file: file, line: line}, "%s", msg)
			return docs
		}
		root, err := convertYAML(&raw)
		if err != nil {
			var pe *posError
			if errors.As(err, &pe) {
				d.errorf("yaml-syntax", at{file: file, line: pe.line}, "%s", pe.msg)
			} else {
				d.errorf("yaml-syntax", at{file: file}, "%v", err)
			}
			return docs
		}
		if root.IsNull() {
			continue
		}
		docs = append(docs, yamlDocument{Root: root, Index: index})
	}
}

// decodeYAML parses a file that must hold exactly one YAML document.
func decodeYAML(file string, data []byte, d *diagnostics) (Node, bool) {
	before := len(d.list)
	docs := decodeYAMLStream(file, data, d)
	if len(d.list) > before {
		return Node{}, false
	}
	if len(docs) != 1 {
		d.errorf("yaml-syntax", at{file: file}, "want exactly one YAML document, found %d", len(docs))
		return Node{}, false
	}
	return docs[0].Root, true
}

// safeDecode runs the yaml.v3 decoder and turns a panic inside it into an error: bad input must
// give an error naming the file, never crash the program.
func safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

func splitYAMLError(err error) (int, string) {
	m := yamlErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, err.Error()
	}
	line, _ := strconv.Atoi(m[1])
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(m[2], p) {
			return line + 1, m[2]
		}
	}
	return line, m[2]
}

// posError is a conversion failure at a line of the file.
type posError struct {
	line int
	msg  string
}

func (e *posError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// convertYAML turns a yaml.v3 document into a Node, following aliases within the limits above
// and rejecting what the model cannot hold faithfully: duplicate keys, non-scalar keys and
// merge keys ("<<"), whose meaning would depend on the reader.
func convertYAML(doc *yaml.Node) (Node, error) {
	c := &converter{budget: maxNodesPerDocument}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return Node{Kind: ScalarNode, Tag: TagNull, Line: doc.Line, Column: doc.Column}, nil
		}
		doc = doc.Content[0]
	}
	return c.convert(doc, 0)
}

type converter struct {
	budget int
}

func (c *converter) convert(n *yaml.Node, depth int) (Node, error) {
	if depth > maxNodeDepth {
		return Node{}, &posError{n.Line, fmt.Sprintf("nesting deeper than %d levels", maxNodeDepth)}
	}
	if c.budget--; c.budget < 0 {
		return Node{}, &posError{n.Line, fmt.Sprintf("document expands to more than %d values", maxNodesPerDocument)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return Node{}, &posError{n.Line, "alias to an unknown anchor"}
		}
		target, err := c.convert(n.Alias, depth+1)
		target.Line, target.Column = n.Line, n.Column
		return target, err
	case yaml.ScalarNode:
		return Node{Kind: ScalarNode, Tag: n.ShortTag(), Text: n.Value, Line: n.Line, Column: n.Column}, nil
	case yaml.SequenceNode:
		out := Node{Kind: SequenceNode, Tag: TagSeq, Line: n.Line, Column: n.Column, Items: make([]Node, 0, len(n.Content))}
		for _, item := range n.Content {
			v, err := c.convert(item, depth+1)
			if err != nil {
				return Node{}, err
			}
			out.Items = append(out.Items, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.convertMapping(n, depth)
	case yaml.DocumentNode:
		return Node{}, &posError{n.Line, "nested document"}
	}
	return Node{}, &posError{n.Line, fmt.Sprintf("unknown YAML node kind %d", n.Kind)}
}

func (c *converter) convertMapping(n *yaml.Node, depth int) (Node, error) {
	out := Node{Kind: MappingNode, Tag: TagMap, Line: n.Line, Column: n.Column, Pairs: make([]Pair, 0, len(n.Content)/2)}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		keyNode, valueNode := n.Content[i], n.Content[i+1]
		for keyNode.Kind == yaml.AliasNode && keyNode.Alias != nil {
			keyNode = keyNode.Alias
		}
		if keyNode.Kind != yaml.ScalarNode {
			return Node{}, &posError{n.Content[i].Line, "mapping key is not a scalar"}
		}
		if keyNode.ShortTag() == "!!merge" {
			return Node{}, &posError{n.Content[i].Line, `merge keys ("<<") are not supported; write the entries out`}
		}
		if first, dup := seen[keyNode.Value]; dup {
			return Node{}, &posError{n.Content[i].Line, fmt.Sprintf("duplicate key %q (first at line %d)", keyNode.Value, first)}
		}
		seen[keyNode.Value] = n.Content[i].Line
		v, err := c.convert(valueNode, depth+1)
		if err != nil {
			return Node{}, err
		}
		out.Pairs = append(out.Pairs, Pair{Key: keyNode.Value, Value: v, Line: n.Content[i].Line})
	}
	return out, nil
}
