package doc

import (
	"iter"
	"math"
	"strconv"
)

// Kind is the type of a value.
type Kind uint8

// The kinds of value. The zero Kind is no value at all: what a nil *Node reports.
const (
	Null Kind = iota + 1
	Bool
	Number
	String
	Array
	Object
)

// String names the kind: "null", "boolean", "number", "string", "array", "object".
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "nothing"
}

// Article names the kind for a message: "null", "a boolean", "a number", "a string", "an
// array", "an object".
func (k Kind) Article() string {
	switch k {
	case Null:
		return "null"
	case Array, Object:
		return "an " + k.String()
	case Bool, Number, String:
		return "a " + k.String()
	}
	return "nothing"
}

// Pos is where something is written in its file.
type Pos struct {
	File string
	// Line and Column are 1-based; Column counts characters (Unicode code points). Both are 0
	// when unknown.
	Line, Column int
	// Offset is the 0-based byte offset in the file, or -1 when the format does not give it
	// (YAML: yaml.v3 reports lines and columns only).
	Offset int64
}

// String renders the position as "file:line:column", leaving out what is unknown.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		if s != "" {
			s += ":"
		}
		s += strconv.Itoa(p.Line)
		if p.Column > 0 {
			s += ":" + strconv.Itoa(p.Column)
		}
	}
	return s
}

// Node is one value of a document: null, a boolean, a number, a string, an array or an object,
// with the position where it is written. Objects keep their members in document order and
// there is no Go map to iterate anywhere, so nothing read from a tree depends on map order.
//
// A tree is immutable once parsed, and safe for concurrent reads. The accessors are nil-safe
// where that helps chaining: n.Get("a").Get("b") is nil when any step is absent.
type Node struct {
	parent *Node
	coll   *collection
	// text is a string's value, a number's literal (JSON grammar), "true", "false" or "null".
	text string
	// off is the byte offset in the file (JSON) or the packed line and column (YAML); see source.
	off   int64
	kind  Kind
	flags uint8
	// keyCol and keyLine are where the name of the member whose value this is is written, for
	// YAML (a JSON name is found from the value's offset). They fill the node's last word.
	keyCol  uint16
	keyLine uint32
}

// flags of a YAML scalar: plainScalar when it is written plain, and in the bits from
// spellingShift, the index in spellings of how a null or a boolean is written (0: as its text).
const (
	plainScalar   = 1
	spellingShift = 1
)

// spellings returns the ways YAML writes null or a boolean other than as its text.
func spellings(k Kind) []string {
	switch k {
	case Null:
		return []string{"null", "", "~", "Null", "NULL"}
	case Bool:
		return []string{"", "True", "TRUE", "False", "FALSE"}
	}
	return nil
}

// collection holds the children of an array or an object, and the source every node of the
// document shares (a node finds it through its own collection or its parent's; a root always
// has a collection). Keeping it here instead of in every node makes a node 48 bytes.
type collection struct {
	src     *source
	items   []*Node
	members []Member
	// index finds members by name in objects larger than smallObject, so that Get stays
	// constant-time on wide objects.
	index *nameIndex
}

// smallObject is the size up to which objects are searched linearly (for duplicates while
// parsing, by Get afterwards); larger ones get an index.
const smallObject = 16

// Member is one member of an object.
type Member struct {
	Key   string
	Value *Node
}

// KeyPos returns where the member's name is written.
func (m *Member) KeyPos() Pos {
	src := m.Value.source()
	if src == nil {
		return Pos{Offset: -1}
	}
	return src.pos(src.keyOffset(m.Value))
}

func (n *Node) source() *source {
	switch {
	case n == nil:
		return nil
	case n.coll != nil:
		return n.coll.src
	case n.parent != nil && n.parent.coll != nil:
		return n.parent.coll.src
	}
	return nil // a node of a tree still being built
}

// Kind returns the kind of n; the zero Kind for a nil node.
func (n *Node) Kind() Kind {
	if n == nil {
		return 0
	}
	return n.kind
}

// IsNull reports whether n is null. A nil node is not null: it is absent.
func (n *Node) IsNull() bool { return n != nil && n.kind == Null }

// Pos returns where n is written.
func (n *Node) Pos() Pos {
	if n == nil {
		return Pos{Offset: -1}
	}
	return n.source().pos(n.off)
}

// Parent returns the array or object that holds n; nil for a root.
func (n *Node) Parent() *Node {
	if n == nil {
		return nil
	}
	return n.parent
}

// Path returns where n sits in its document. It walks up the tree; in an object of m members
// it searches n's name in O(m), which is fine for the error messages it is meant for.
func (n *Node) Path() Path {
	depth := 0
	for c := n; c != nil && c.parent != nil; c = c.parent {
		depth++
	}
	if depth == 0 {
		return nil
	}
	p := make(Path, depth)
	for c := n; c != nil && c.parent != nil; c = c.parent {
		depth--
		p[depth] = c.parent.stepTo(c)
	}
	return p
}

// stepTo returns the step from n to its child c.
func (n *Node) stepTo(c *Node) Step {
	if n.kind == Array {
		for i, item := range n.Items() {
			if item == c {
				return Step{Index: i, IsIndex: true}
			}
		}
	}
	for _, m := range n.Members() {
		if m.Value == c {
			return Step{Key: m.Key}
		}
	}
	return Step{}
}

// Text returns a scalar as text: a string's value, a number's literal (in JSON grammar, see
// the package documentation for YAML numbers), "true", "false" or "null". It is "" for arrays,
// objects and a nil node.
func (n *Node) Text() string {
	if n == nil {
		return ""
	}
	return n.text
}

// Len returns the number of items of an array or members of an object; 0 otherwise.
func (n *Node) Len() int {
	if n == nil || n.coll == nil {
		return 0
	}
	if n.kind == Array {
		return len(n.coll.items)
	}
	return len(n.coll.members)
}

// Items returns the items of an array, nil for anything else. The slice belongs to the tree:
// do not modify it.
func (n *Node) Items() []*Node {
	if n == nil || n.kind != Array || n.coll == nil {
		return nil
	}
	return n.coll.items
}

// Members returns the members of an object in document order, nil for anything else. The slice
// belongs to the tree: do not modify it.
func (n *Node) Members() []Member {
	if n == nil || n.kind != Object || n.coll == nil {
		return nil
	}
	return n.coll.members
}

// Get returns the member named key of an object, or nil when n is not an object or has no
// such member. It takes constant time on large objects.
func (n *Node) Get(key string) *Node {
	if m := n.Member(key); m != nil {
		return m.Value
	}
	return nil
}

// Member returns the member named key of an object, with its key position; nil when n is not
// an object or has no such member.
func (n *Node) Member(key string) *Member {
	ms := n.Members()
	if ms == nil {
		return nil
	}
	if i, ok := findMember(n.coll.index, ms, key); ok {
		return &ms[i]
	}
	return nil
}

// Index returns the item i of an array, or nil when n is not an array or i is out of range.
func (n *Node) Index(i int) *Node {
	items := n.Items()
	if i < 0 || i >= len(items) {
		return nil
	}
	return items[i]
}

// Lookup follows a JSON Pointer (RFC 6901) from n: "" is n itself, "/spec/containers/0/name"
// a value inside it. A step that does not exist is an ErrType error at the last value reached,
// naming the step.
func (n *Node) Lookup(pointer string) (*Node, error) {
	tokens, ok := pointerTokens(pointer)
	if !ok {
		return nil, &Error{Offset: -1, Msg: "invalid JSON Pointer " + strconv.Quote(pointer), Err: ErrSyntax}
	}
	cur := n
	for _, tok := range tokens {
		var next *Node
		switch cur.Kind() {
		case Object:
			next = cur.Get(tok)
		case Array:
			if i, ok := arrayIndex(tok); ok {
				next = cur.Index(i)
			}
		}
		if next == nil {
			return nil, typeErrorf(cur, "no value at %q (in %s)", tok, cur.Kind().Article())
		}
		cur = next
	}
	return cur, nil
}

// typeErrorf is an ErrType error at n.
func typeErrorf(n *Node, format string, args ...any) error {
	e := n.Errorf(format, args...).(*Error)
	e.Err = ErrType
	return e
}

// Str returns the value of a string.
func (n *Node) Str() (string, error) {
	if n.Kind() != String {
		return "", n.TypeError("a string")
	}
	return n.text, nil
}

// Bool returns the value of a boolean.
func (n *Node) Bool() (bool, error) {
	if n.Kind() != Bool {
		return false, n.TypeError("a boolean")
	}
	return n.text == "true", nil
}

// Int64 returns the value of a number that is an integer within the range of int64. Any
// literal of an integer value is accepted ("12", "1.2e1", "12.0").
func (n *Node) Int64() (int64, error) {
	if n.Kind() != Number {
		return 0, n.TypeError("an integer")
	}
	v, ok := parseNumber(n.text).int64()
	if !ok {
		return 0, typeErrorf(n, "want an integer within ±2^63, got %s", n.text)
	}
	return v, nil
}

// Uint64 returns the value of a number that is a non-negative integer within the range of
// uint64.
func (n *Node) Uint64() (uint64, error) {
	if n.Kind() != Number {
		return 0, n.TypeError("a non-negative integer")
	}
	v, ok := parseNumber(n.text).uint64()
	if !ok {
		return 0, typeErrorf(n, "want a non-negative integer below 2^64, got %s", n.text)
	}
	return v, nil
}

// Float64 returns the nearest float64 to a number. It is for readers that need a float; no
// comparison in this package uses it.
func (n *Node) Float64() (float64, error) {
	if n.Kind() != Number {
		return 0, n.TypeError("a number")
	}
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, typeErrorf(n, "number %s is out of the range of a float64", n.text)
	}
	return f, nil
}

// Decimal returns the exact value of a number in plain decimal notation, without exponent,
// leading or trailing zeros: "1.50" and "15e-1" give "1.5", "1e3" gives "1000", "-0" gives
// "0". A value that would take more than 4096 digits that way is an ErrType error.
func (n *Node) Decimal() (string, error) {
	if n.Kind() != Number {
		return "", n.TypeError("a number")
	}
	s, ok := parseNumber(n.text).plain(maxPlainDigits)
	if !ok {
		return "", typeErrorf(n, "number %s has more than %d digits in plain notation", n.text, maxPlainDigits)
	}
	return s, nil
}

// maxPlainDigits bounds what Decimal writes.
const maxPlainDigits = 4096

// All iterates over n and every value inside it, in document order, parents before children.
func (n *Node) All() iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		n.walk(yield)
	}
}

func (n *Node) walk(yield func(*Node) bool) bool {
	if n == nil {
		return true
	}
	if !yield(n) {
		return false
	}
	for _, item := range n.Items() {
		if !item.walk(yield) {
			return false
		}
	}
	for _, m := range n.Members() {
		if !m.Value.walk(yield) {
			return false
		}
	}
	return true
}

// String renders n as compact JSON (see Compact), for messages and debugging.
func (n *Node) String() string { return string(n.Compact()) }

// YAMLScalar is how a scalar is written in a YAML file, for readers that must resolve it by
// other rules than the model's YAML 1.2 core schema: PyYAML, which Kensa uses, reads YAML 1.1,
// where a plain yes is a boolean, 1:30 is 90 and 1e3 is a string.
type YAMLScalar struct {
	// Value is the scalar's text with quotes, escapes and folding resolved ("0x1F", "yes", "~").
	Value string
	// Plain is set for a scalar written without quotes, block style or tag: the form implicit
	// resolution applies to.
	Plain bool
	// Tag is the explicit tag ("!!str", "!!float"), or "".
	Tag string
}

// YAMLScalar returns how n is written; false when n is not a scalar read from YAML.
func (n *Node) YAMLScalar() (YAMLScalar, bool) {
	src := n.source()
	if src == nil || src.data != nil || n.kind == Array || n.kind == Object {
		return YAMLScalar{}, false
	}
	s, ok := src.yamlScalars[n]
	switch spelling := int(n.flags >> spellingShift); {
	case ok:
	case spelling > 0:
		s.Value = spellings(n.kind)[spelling]
	default:
		s.Value = n.text
	}
	s.Plain = n.flags&plainScalar != 0
	return s, true
}
