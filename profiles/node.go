package profiles

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// The profile's YAML is read into internal/doc's tree. Free-form parts of scenarios
// (precondition state, state assertion pins, state_diff, scope, rubric values) are kept as
// *doc.Node: members in document order, scalars with the text they are written with
// (Node.YAMLScalar), no Go map anywhere. This file holds what the package reads from such
// nodes, and the limits on untrusted YAML.

// Limits on untrusted YAML. The document model bounds aliases (expanded within its budget),
// values and nesting; a file may hold several documents (scenario files do).
const (
	// maxDocumentsPerFile caps the number of YAML documents read from one file.
	maxDocumentsPerFile = 1000
	// maxNodeDepth caps nesting, after following aliases.
	maxNodeDepth = 64
)

var yamlLimits = doc.Limits{MaxDepth: maxNodeDepth}

// yamlDocument is one non-empty document of a YAML stream.
type yamlDocument struct {
	Root *doc.Node
	// Index is the 0-based position of the document in its file, counting empty ones.
	Index int
}

// decodeYAMLStream parses every document of data; empty documents are skipped. A document
// that cannot be read becomes one error diagnostic with the file, line and field the document
// model gives (yaml-limit for a limit, yaml-syntax otherwise), and nothing of the file is read.
func decodeYAMLStream(file string, data []byte, d *diagnostics) []yamlDocument {
	nodes, err := doc.ParseYAMLStream(file, data, yamlLimits)
	if err != nil {
		code := "yaml-syntax"
		if errors.Is(err, doc.ErrLimit) {
			code = "yaml-limit"
		}
		var de *doc.Error
		if errors.As(err, &de) {
			d.errorf(code, at{file: file, line: de.Line, field: de.Path.String()}, "%s", de.Msg)
		} else {
			d.errorf(code, at{file: file}, "%v", err)
		}
		return nil
	}
	if len(nodes) > maxDocumentsPerFile {
		d.errorf("yaml-limit", at{file: file}, "more than %d YAML documents", maxDocumentsPerFile)
		nodes = nodes[:maxDocumentsPerFile]
	}
	var docs []yamlDocument
	for i, n := range nodes {
		if !n.IsNull() {
			docs = append(docs, yamlDocument{Root: n, Index: i})
		}
	}
	return docs
}

// decodeYAML parses a file that must hold exactly one YAML document.
func decodeYAML(file string, data []byte, d *diagnostics) (*doc.Node, bool) {
	before := len(d.list)
	docs := decodeYAMLStream(file, data, d)
	if len(d.list) > before {
		return nil, false
	}
	if len(docs) != 1 {
		d.errorf("yaml-syntax", at{file: file}, "want exactly one YAML document, found %d", len(docs))
		return nil, false
	}
	return docs[0].Root, true
}

// isScalar reports whether n is a scalar, null included.
func isScalar(n *doc.Node) bool {
	switch n.Kind() {
	case doc.Null, doc.Bool, doc.Number, doc.String:
		return true
	}
	return false
}

// written is a scalar's text as it is written in the file ("True", "0x1F"), or its text in
// the model for a scalar not read from YAML.
func written(n *doc.Node) string {
	if ys, ok := n.YAMLScalar(); ok {
		return ys.Value
	}
	return n.Text()
}

// lineOf is the line a value starts on.
func lineOf(n *doc.Node) int { return n.Pos().Line }

// Value converts n to the values encoding/json gives with UseNumber, which the evaluator's
// state model holds: objects become map[string]any, arrays []any, numbers json.Number with
// their literal (never float64), booleans, null and strings their Go values.
func Value(n *doc.Node) any {
	var v any
	if err := doc.Decode(n, &v); err != nil {
		return nil // a parsed tree always decodes into any
	}
	return v
}

// ConfigValue returns the text a scalar compares as against an agent configuration value:
// booleans in their canonical spelling ("true", "false"), everything else as written. Agent
// configurations carry JSON/YAML literal text ("true", "api"), so `zone_model: True` in a
// scenario matches a reported "true".
func ConfigValue(n *doc.Node) string {
	if n.Kind() == doc.Bool {
		return n.Text()
	}
	return written(n)
}

// decimalOf returns the value of a number as a fixed-point number. Values with more than six
// fractional digits or exponents are errors, never rounded.
func decimalOf(n *doc.Node) (decimal.Decimal, error) {
	if n.Kind() != doc.Number {
		return 0, fmt.Errorf("%s is not a number", describe(n))
	}
	d, err := decimal.Parse(n.Text())
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal number with at most %d fractional digits", written(n), decimal.Places)
	}
	return d, nil
}

// isInteger reports whether n is a number written as an integer (no fraction, no exponent).
func isInteger(n *doc.Node) bool {
	return n.Kind() == doc.Number && !strings.ContainsAny(n.Text(), ".eE")
}

// intOf returns the value of a number written as an integer.
func intOf(n *doc.Node) (int64, error) {
	if !isInteger(n) {
		return 0, fmt.Errorf("%s is not an integer", describe(n))
	}
	return n.Int64()
}

// describe names the kind of n for error messages: "a mapping", "a sequence", "null", or the
// scalar as written, in quotes.
func describe(n *doc.Node) string {
	switch n.Kind() {
	case doc.Object:
		return "a mapping"
	case doc.Array:
		return "a sequence"
	case doc.Null, 0:
		return "null"
	}
	return strconv.Quote(written(n))
}

// Flow renders n in YAML flow style, deterministically: strings quoted only when needed,
// mappings and sequences in document order, other scalars as written. It is meant for
// summaries and messages.
func Flow(n *doc.Node) string {
	var b strings.Builder
	writeFlow(&b, n)
	return b.String()
}

func writeFlow(b *strings.Builder, n *doc.Node) {
	switch n.Kind() {
	case doc.Object:
		b.WriteString("{")
		for i, m := range n.Members() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlowString(b, m.Key)
			b.WriteString(": ")
			writeFlow(b, m.Value)
		}
		b.WriteString("}")
	case doc.Array:
		b.WriteString("[")
		for i, item := range n.Items() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlow(b, item)
		}
		b.WriteString("]")
	case doc.String:
		writeFlowString(b, n.Text())
	case doc.Null, 0:
		b.WriteString("null")
	default:
		b.WriteString(written(n))
	}
}

// writeFlowString quotes strings that would not read back as the same plain string.
func writeFlowString(b *strings.Builder, text string) {
	if plainSafe(text) {
		b.WriteString(text)
		return
	}
	b.WriteString(strconv.Quote(text))
}

// plainSafe reports whether text can be written as a plain flow scalar and read back as the
// same string: no indicators, no leading or trailing space, and not something YAML would
// resolve to another type.
func plainSafe(text string) bool {
	if text == "" || strings.TrimSpace(text) != text {
		return false
	}
	if strings.ContainsAny(text, ":#,[]{}\"'\n\t&*!|>%@`") || strings.HasPrefix(text, "-") || strings.HasPrefix(text, "?") {
		return false
	}
	switch strings.ToLower(text) {
	case "true", "false", "null", "~", "yes", "no", "on", "off":
		return false
	}
	if _, err := strconv.ParseFloat(text, 64); err == nil {
		return false
	}
	return true
}

// lookup follows a path of mapping keys from n; nil when a step is absent.
func lookup(n *doc.Node, path ...string) *doc.Node {
	for _, key := range path {
		n = n.Get(key)
	}
	return n
}
