package profiles

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

// NodeKind tells what a Node holds.
type NodeKind uint8

// The kinds of Node.
const (
	ScalarNode NodeKind = iota + 1
	MappingNode
	SequenceNode
)

// YAML core-schema tags a Node can carry (YAML 1.2 §10.3). Custom tags ("!foo") are kept as
// written.
const (
	TagStr   = "!!str"
	TagInt   = "!!int"
	TagFloat = "!!float"
	TagBool  = "!!bool"
	TagNull  = "!!null"
	TagMap   = "!!map"
	TagSeq   = "!!seq"
)

// Node is one YAML value of a profile file, kept in document order so that anything read
// from it is deterministic: a scalar keeps its literal text and its resolved tag (so "30" and
// 30 stay different), a mapping is an ordered list of pairs, a sequence an ordered list of
// items. It is how the package keeps the free-form parts of scenarios (precondition state,
// state assertion pins, state_diff, scope, rubric values); there is no Go map anywhere in it.
type Node struct {
	Kind NodeKind
	// Tag is the resolved short tag: TagStr, TagInt, TagFloat, TagBool, TagNull, TagMap,
	// TagSeq, or a custom tag as written.
	Tag string
	// Text is a scalar's value with quoting, escapes and folding resolved; "" otherwise.
	Text string
	// Pairs are a mapping's entries in document order. Keys are unique.
	Pairs []Pair
	// Items are a sequence's entries in document order.
	Items []Node
	// Line and Column locate the value in its file (1-based).
	Line, Column int
}

// Pair is one entry of a mapping. Keys are always scalars; Key is their text.
type Pair struct {
	Key   string
	Value Node
	// Line is the line of the key.
	Line int
}

// IsNull reports whether n is an explicit or implicit YAML null ("~", "null" or nothing).
func (n *Node) IsNull() bool { return n.Kind == ScalarNode && n.Tag == TagNull }

// IsScalar reports whether n is a scalar (including null).
func (n *Node) IsScalar() bool { return n.Kind == ScalarNode }

// Get returns the value of key in a mapping.
func (n *Node) Get(key string) (*Node, bool) {
	if n == nil || n.Kind != MappingNode {
		return nil, false
	}
	for i := range n.Pairs {
		if n.Pairs[i].Key == key {
			return &n.Pairs[i].Value, true
		}
	}
	return nil, false
}

// Lookup follows a path of mapping keys from n.
func (n *Node) Lookup(path ...string) (*Node, bool) {
	cur := n
	for _, key := range path {
		next, ok := cur.Get(key)
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// Keys returns a mapping's keys in document order.
func (n *Node) Keys() []string {
	keys := make([]string, 0, len(n.Pairs))
	for _, p := range n.Pairs {
		keys = append(keys, p.Key)
	}
	return keys
}

// Bool returns the value of a !!bool scalar.
func (n *Node) Bool() (value, ok bool) {
	if n.Kind != ScalarNode || n.Tag != TagBool {
		return false, false
	}
	// YAML 1.2 core schema spells booleans true/True/TRUE and false/False/FALSE.
	return strings.EqualFold(n.Text, "true"), true
}

// Decimal returns the value of an !!int or !!float scalar as a fixed-point number. Values with
// more than six fractional digits, exponents or non-decimal notation are errors, never rounded.
func (n *Node) Decimal() (decimal.Decimal, error) {
	if n.Kind != ScalarNode || (n.Tag != TagInt && n.Tag != TagFloat) {
		return 0, fmt.Errorf("%s is not a number", n.Describe())
	}
	d, err := decimal.Parse(strings.ReplaceAll(n.Text, "_", ""))
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal number with at most %d fractional digits", n.Text, decimal.Places)
	}
	return d, nil
}

// Int returns the value of an !!int scalar written in decimal.
func (n *Node) Int() (int64, error) {
	if n.Kind != ScalarNode || n.Tag != TagInt {
		return 0, fmt.Errorf("%s is not an integer", n.Describe())
	}
	v, err := strconv.ParseInt(n.Text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a decimal integer", n.Text)
	}
	return v, nil
}

// ConfigValue returns the text a scalar compares as against an agent configuration value:
// booleans in their canonical spelling ("true", "false"), everything else as written. Agent
// configurations carry JSON/YAML literal text ("true", "api"), so `zone_model: True` in a
// scenario matches a reported "true".
func (n *Node) ConfigValue() string {
	if b, ok := n.Bool(); ok {
		return strconv.FormatBool(b)
	}
	return n.Text
}

// Value converts n to the JSON-like values encoding/json and the evaluator's state reader use:
// mappings become map[string]any, sequences []any, numbers keep their literal text as
// json.Number (never float64), booleans and null keep their type, other scalars are strings.
func (n *Node) Value() any {
	switch n.Kind {
	case MappingNode:
		m := make(map[string]any, len(n.Pairs))
		for i := range n.Pairs {
			m[n.Pairs[i].Key] = n.Pairs[i].Value.Value()
		}
		return m
	case SequenceNode:
		l := make([]any, len(n.Items))
		for i := range n.Items {
			l[i] = n.Items[i].Value()
		}
		return l
	}
	switch n.Tag {
	case TagNull:
		return nil
	case TagBool:
		b, _ := n.Bool()
		return b
	case TagInt, TagFloat:
		return json.Number(n.Text)
	}
	return n.Text
}

// Describe names the kind of n for error messages: "a mapping", "a sequence", "null",
// or the scalar in quotes.
func (n *Node) Describe() string {
	switch {
	case n.Kind == MappingNode:
		return "a mapping"
	case n.Kind == SequenceNode:
		return "a sequence"
	case n.IsNull():
		return "null"
	}
	return strconv.Quote(n.Text)
}

// String renders n in YAML flow style, deterministically: strings quoted only when needed,
// mappings and sequences in document order. It is meant for summaries and messages.
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *strings.Builder) {
	switch n.Kind {
	case MappingNode:
		b.WriteString("{")
		for i, p := range n.Pairs {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlowScalar(b, p.Key, TagStr)
			b.WriteString(": ")
			p.Value.write(b)
		}
		b.WriteString("}")
	case SequenceNode:
		b.WriteString("[")
		for i := range n.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			n.Items[i].write(b)
		}
		b.WriteString("]")
	default:
		if n.IsNull() {
			b.WriteString("null")
			return
		}
		writeFlowScalar(b, n.Text, n.Tag)
	}
}

// writeFlowScalar quotes strings that would not read back as the same plain string.
func writeFlowScalar(b *strings.Builder, text, tag string) {
	if tag != TagStr || plainSafe(text) {
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
