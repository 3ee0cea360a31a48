package kensa

import (
	"bytes"
	"encoding/hex"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// This file is ReadTrace's fast path. Re-checking ten thousand recorded runs read their traces
// through the document model (a tree per line, then Python values and fields from the tree)
// in a quarter of the time; most of it went to building trees that were thrown away. The fast
// path scans each line once and builds the spans and their Python values directly. It reads
// only what it knows to be well formed and within every limit of the document model, and
// gives up on anything else — a syntax error, a surrogate escape, a name given twice, a field
// of the wrong type, a number Python's int would hold and int64 would not, a long line, deep
// nesting — leaving the whole trace to the document model, which reads it the same way or
// gives the error, located (docs/decisions.md, "Reading Kensa traces fast"). So what the fast
// path accepts, the document model accepts with the same spans: FuzzReadTrace holds the two
// equal.

// Bounds of the fast path, within the document model's limits (doc.DefaultLimits): a line of
// scanMaxLine bytes holds fewer values than MaxNodes and no string longer than MaxStringBytes;
// names are held to MaxKeyBytes, numbers to MaxNumberBytes, nesting to far less than MaxDepth.
// An object of more than scanMaxMembers members is left to the document model's name index.
const (
	scanMaxLine    = 256 << 10
	scanMaxKey     = 64 << 10
	scanMaxNumber  = 256
	scanMaxDepth   = 64
	scanMaxMembers = 64
)

// scanTrace reads a trace file as ReadTrace does, or returns false when it leaves the file to
// the document model.
func scanTrace(data []byte) ([]Span, bool) {
	var spans []Span
	var s traceScanner
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > scanMaxLine {
			return nil, false
		}
		s.b, s.i = line, 0
		if s.skipSpace(); s.i == len(line) {
			continue // a blank line
		}
		sp, ok := s.span()
		if s.skipSpace(); !ok || s.i != len(line) {
			return nil, false
		}
		spans = append(spans, sp)
	}
	return spans, true
}

// traceScanner scans one line. Members and items of the values being built wait on stacks
// shared by every line, so that a value costs only its own exact-size slices. Every string is
// a copy of its own: one that outlives the spans (an agent's output kept for statistics) does
// not keep the whole trace in memory.
type traceScanner struct {
	b     []byte
	i     int
	keys  []string
	items []pyvalue.Value
}

// span reads a span as spanOf reads it from a tree.
func (s *traceScanner) span() (Span, bool) {
	sp := Span{Status: "ok", Metadata: pyvalue.NewDict(nil, nil)}
	const required = 1<<0 | 1<<1 | 1<<3 | 1<<4 | 1<<5 | 1<<6 // trace_id, span_id, name, kind, start_time, end_time
	var seen uint32
	ok := s.members(func(key []byte) bool {
		field := fieldIndex(key)
		if field < 0 || seen&(1<<field) != 0 {
			return false
		}
		seen |= 1 << field
		return s.spanField(&sp, field)
	})
	return sp, ok && seen&required == required && isSpanKind(sp.Kind)
}

// fieldIndex is the index of a span field in spanFields, -1 for another name.
func fieldIndex(key []byte) int {
	for i, f := range spanFields {
		if string(key) == f {
			return i
		}
	}
	return -1
}

func isSpanKind(kind string) bool {
	for _, k := range spanKinds {
		if kind == k {
			return true
		}
	}
	return false
}

// spanField reads the value of spanFields[field] into sp.
func (s *traceScanner) spanField(sp *Span, field int) bool {
	ok := true
	switch spanFields[field] {
	case "trace_id":
		sp.TraceID, ok = s.str()
	case "span_id":
		sp.SpanID, ok = s.str()
	case "parent_span_id":
		sp.ParentSpanID, ok = s.optStr()
	case "name":
		sp.Name, ok = s.str()
	case "kind":
		sp.Kind, ok = s.str()
	case "start_time":
		sp.Start, ok = s.time()
	case "end_time":
		sp.End, ok = s.time()
	case "status":
		var st *string
		if st, ok = s.optStr(); st != nil {
			sp.Status = *st
		}
	case "model":
		sp.Model, ok = s.optStr()
	case "provider":
		sp.Provider, ok = s.optStr()
	case "input":
		sp.Input, ok = s.optDict()
	case "output":
		sp.Output, ok = s.optDict()
	case "tokens":
		sp.Tokens, ok = s.tokens()
	case "cost":
		sp.Cost, ok = s.cost()
	case "tools":
		sp.Tools, ok = s.tools()
	case "metadata":
		var md *pyvalue.Value
		if md, ok = s.optDict(); md != nil {
			sp.Metadata = *md
		}
	}
	return ok
}

func (s *traceScanner) time() (int64, bool) {
	text, ok := s.str()
	if !ok {
		return 0, false
	}
	us, err := ParseTime(text)
	return us, err == nil
}

// tokens reads Kensa's TokenCounts: an object whose four counts are integers (or floats of
// integer value), other members ignored, or null.
func (s *traceScanner) tokens() (*Tokens, bool) {
	if s.null() {
		return nil, true
	}
	t := &Tokens{}
	return t, numbers(s, intValue, map[string]*int64{"prompt": &t.Prompt, "completion": &t.Completion, "total": &t.Total, "cache_read": &t.CacheRead})
}

// cost reads Kensa's CostInfo: an object whose three amounts are numbers, or null.
func (s *traceScanner) cost() (*Cost, bool) {
	if s.null() {
		return nil, true
	}
	c := &Cost{}
	return c, numbers(s, pyvalue.Value.AsNumber, map[string]*float64{"prompt": &c.Prompt, "completion": &c.Completion, "total": &c.Total})
}

// numbers reads an object into the fields its members name (other members are ignored), each
// value read by read.
func numbers[T any](s *traceScanner, read func(pyvalue.Value) (T, bool), fields map[string]*T) bool {
	return s.objectValues(func(key string, v pyvalue.Value) bool {
		dst := fields[key]
		if dst == nil {
			return true
		}
		var ok bool
		*dst, ok = read(v)
		return ok
	})
}

// tools reads the tools list: objects with a string name and optional args and result
// objects, other members ignored; null, or an empty list, is no tools.
func (s *traceScanner) tools() ([]Tool, bool) {
	if s.null() {
		return nil, true
	}
	if !s.peek('[') {
		return nil, false
	}
	list, ok := s.value(2)
	if !ok {
		return nil, false
	}
	var out []Tool
	for _, item := range list.Items() {
		if item.Kind() != pyvalue.KindDict {
			return nil, false
		}
		name, _ := item.Get("name")
		t := Tool{Args: pyvalue.NewDict(nil, nil)}
		if t.Name, ok = name.AsStr(); !ok {
			return nil, false
		}
		if args, given := item.Get("args"); given && !args.IsNull() {
			if args.Kind() != pyvalue.KindDict {
				return nil, false
			}
			t.Args = args
		}
		if result, given := item.Get("result"); given && !result.IsNull() {
			if result.Kind() != pyvalue.KindDict {
				return nil, false
			}
			t.Result = &result
		}
		out = append(out, t)
	}
	return out, true
}

// optStr reads a string or null.
func (s *traceScanner) optStr() (*string, bool) {
	if s.null() {
		return nil, true
	}
	v, ok := s.str()
	return &v, ok
}

// optDict reads an object or null.
func (s *traceScanner) optDict() (*pyvalue.Value, bool) {
	if s.null() {
		return nil, true
	}
	if !s.peek('{') {
		return nil, false
	}
	v, ok := s.value(2)
	return &v, ok
}

// objectValues reads an object, calling fn with each member as a Python value.
func (s *traceScanner) objectValues(fn func(key string, v pyvalue.Value) bool) bool {
	if !s.peek('{') {
		return false
	}
	v, ok := s.value(2)
	v.Members(func(key string, m pyvalue.Value) { ok = ok && fn(key, m) })
	return ok
}

// value reads any JSON value as pyvalue.FromNode builds it from a tree: objects keep their
// members in order, numbers are Python's (pyvalue.Number). depth is its nesting when it is an
// array or an object.
func (s *traceScanner) value(depth int) (pyvalue.Value, bool) {
	if s.skipSpace(); s.i >= len(s.b) {
		return pyvalue.Value{}, false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		str, ok := s.str()
		return pyvalue.NewStr(str), ok
	case c == '{' || c == '[':
		if depth > scanMaxDepth {
			return pyvalue.Value{}, false
		}
		return s.container(depth)
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case s.literal("true"):
		return pyvalue.NewBool(true), true
	case s.literal("false"):
		return pyvalue.NewBool(false), true
	case s.literal("null"):
		return pyvalue.Value{}, true
	}
	return pyvalue.Value{}, false
}

// container reads an object or an array; a name given twice gives up.
func (s *traceScanner) container(depth int) (pyvalue.Value, bool) {
	keyMark, itemMark := len(s.keys), len(s.items)
	defer func() { s.keys, s.items = s.keys[:keyMark], s.items[:itemMark] }()
	if s.b[s.i] == '[' {
		ok := s.elements(func() bool {
			v, ok := s.value(depth + 1)
			s.items = append(s.items, v)
			return ok
		})
		return pyvalue.NewList(append(make([]pyvalue.Value, 0, len(s.items)-itemMark), s.items[itemMark:]...)), ok
	}
	ok := s.members(func(key []byte) bool {
		name := string(key)
		if len(s.keys)-keyMark == scanMaxMembers || slices.Contains(s.keys[keyMark:], name) {
			return false
		}
		v, ok := s.value(depth + 1)
		s.keys, s.items = append(s.keys, name), append(s.items, v)
		return ok
	})
	keys := append(make([]string, 0, len(s.keys)-keyMark), s.keys[keyMark:]...)
	return pyvalue.NewDict(keys, append(make([]pyvalue.Value, 0, len(keys)), s.items[itemMark:]...)), ok
}

// members reads an object at s.i, calling fn with each member's name (its bytes, valid until
// the next read) with s.i on its value.
func (s *traceScanner) members(fn func(key []byte) bool) bool {
	if !s.peek('{') {
		return false
	}
	s.i++
	if s.skipSpace(); s.peek('}') {
		s.i++
		return true
	}
	for {
		s.skipSpace()
		key, ok := s.strBytes()
		if !ok || len(key) > scanMaxKey {
			return false
		}
		if s.skipSpace(); !s.peek(':') {
			return false
		}
		s.i++
		if s.skipSpace(); !fn(key) {
			return false
		}
		if more, ok := s.next('}'); !more {
			return ok
		}
	}
}

// elements reads an array at s.i, calling fn on each element.
func (s *traceScanner) elements(fn func() bool) bool {
	s.i++ // '['
	if s.skipSpace(); s.peek(']') {
		s.i++
		return true
	}
	for {
		if !fn() {
			return false
		}
		if more, ok := s.next(']'); !more {
			return ok
		}
	}
}

// next reads what follows a member or an element: a ',' (more), the closing bracket (ok,
// the end), or anything else (neither).
func (s *traceScanner) next(closing byte) (more, ok bool) {
	s.skipSpace()
	switch {
	case s.peek(','):
		s.i++
		return true, true
	case s.peek(closing):
		s.i++
		return false, true
	}
	return false, false
}

func (s *traceScanner) peek(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// null reads null if it is next.
func (s *traceScanner) null() bool {
	s.skipSpace()
	return s.literal("null")
}

func (s *traceScanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

func (s *traceScanner) skipSpace() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

// number reads a number literal of RFC 8259's grammar as pyvalue.Number reads it.
func (s *traceScanner) number() (pyvalue.Value, bool) {
	b, start := s.b, s.i
	i := start
	digits := func() bool {
		from := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > from
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return pyvalue.Value{}, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return pyvalue.Value{}, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return pyvalue.Value{}, false
		}
	}
	if i-start > scanMaxNumber || i < len(b) && b[i] >= '0' && b[i] <= '9' { // a leading zero
		return pyvalue.Value{}, false
	}
	s.i = i
	v, err := pyvalue.Number(string(b[start:i]))
	return v, err == nil
}

// str reads a string.
func (s *traceScanner) str() (string, bool) {
	b, ok := s.strBytes()
	return string(b), ok
}

// strBytes reads a string at s.i: its bytes, unescaped, aliasing the line when it has no
// escape. Invalid UTF-8, a control character, an invalid escape or a surrogate escape gives
// up.
func (s *traceScanner) strBytes() ([]byte, bool) {
	if !s.peek('"') {
		return nil, false
	}
	b := s.b
	start := s.i + 1
	var out []byte // the unescaped bytes, once an escape is met
	from := start  // what is not yet in out
	for i := start; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			if out == nil {
				return b[start:i], true
			}
			return append(out, b[from:i]...), true
		case c == '\\':
			r, n := unescape(b[i:])
			if n == 0 {
				return nil, false
			}
			out = utf8.AppendRune(append(out, b[from:i]...), r)
			i += n
			from = i
		case c < 0x20:
			return nil, false
		case c < 0x80:
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, false
			}
			i += n
		}
	}
	return nil, false
}

// unescape decodes the escape sequence at the start of e: its character and length, 0 for an
// invalid one or a \u escape of a UTF-16 surrogate.
func unescape(e []byte) (rune, int) {
	if len(e) < 2 {
		return 0, 0
	}
	switch e[1] {
	case '"', '\\', '/':
		return rune(e[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		var code [2]byte
		if len(e) < 6 {
			return 0, 0
		}
		if _, err := hex.Decode(code[:], e[2:6]); err != nil {
			return 0, 0
		}
		r := rune(code[0])<<8 | rune(code[1])
		if utf16.IsSurrogate(r) {
			return 0, 0
		}
		return r, 6
	}
	return 0, 0
}
