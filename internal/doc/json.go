package doc

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseJSON parses data as exactly one JSON value (RFC 8259): leading and trailing whitespace
// is allowed, anything else after the value is an ErrSyntax error, and so is invalid UTF-8 or
// an unpaired UTF-16 surrogate escape (RFC 8259 §8.2, RFC 7493 §2.1). A leading UTF-8 byte order
// mark is skipped (RFC 8259 §8.1). name is the file name errors and positions carry.
//
// The tree keeps a reference to data, from which Compact copies values as written: do not
// modify data while the tree is in use.
func ParseJSON(name string, data []byte, lim Limits) (*Node, error) {
	l := lim.resolve()
	if int64(len(data)) > l.MaxBytes {
		return nil, limitError(Pos{File: name, Offset: -1}, nil, "MaxBytes", l.MaxBytes, "the document has %d bytes", len(data))
	}
	src := &source{name: name, data: data, line0: 1, bom: bytes.HasPrefix(data, []byte("\xEF\xBB\xBF"))}
	p := &jsonParser{}
	p.reset(src, l, nil, sizes{})
	if src.bom {
		p.pos = 3
	}
	return p.document()
}

// jsonParser is a recursive-descent parser over a byte slice. It records byte offsets only;
// lines and columns are computed from them when asked (see source).
type jsonParser struct {
	b    builder
	data []byte
	pos  int
	base int64

	path Path // the steps to the value being parsed, for errors
}

// reset prepares p for the document src, keeping the capacity of its stacks.
func (p *jsonParser) reset(src *source, lim Limits, names *interner, hint sizes) {
	items, members := p.b.itemStack, p.b.memberStack
	clear(items) // what a failed parse left
	clear(members)
	items, members = items[:0], members[:0]
	p.b = newBuilder(src, lim, names, hint)
	p.b.itemStack, p.b.memberStack = items, members
	p.data, p.pos, p.base, p.path = src.data, 0, src.base, p.path[:0]
}

func (p *jsonParser) document() (*Node, error) {
	p.skipSpace()
	root, err := p.value(nil, 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.syntaxf("unexpected %s after the JSON value", p.describe())
	}
	return p.b.root(root), nil
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) && isSpace[p.data[p.pos]] {
		p.pos++
	}
}

// isSpace marks JSON whitespace (RFC 8259 §2).
var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// value parses the value at p.pos, which is not whitespace.
func (p *jsonParser) value(parent *Node, depth int) (*Node, error) {
	if p.pos >= len(p.data) {
		return nil, p.eof("a value")
	}
	if p.b.count++; p.b.count > p.b.lim.MaxNodes {
		return nil, limitError(p.posNow(), p.pathCopy(), "MaxNodes", int64(p.b.lim.MaxNodes), "the document has more values than the limit")
	}
	n := p.b.node(parent)
	n.off = p.base + int64(p.pos)
	switch c := p.data[p.pos]; {
	case c == '"':
		s, err := p.str(false)
		n.kind, n.text = String, s
		return n, err
	case c == '{':
		return n, p.object(n, depth+1)
	case c == '[':
		return n, p.array(n, depth+1)
	case c == '-' || c >= '0' && c <= '9':
		return n, p.number(n)
	case c == 't':
		return n, p.literal(n, "true", Bool)
	case c == 'f':
		return n, p.literal(n, "false", Bool)
	case c == 'n':
		return n, p.literal(n, "null", Null)
	}
	return nil, p.syntaxf("unexpected %s, want a value", p.describe())
}

func (p *jsonParser) checkDepth(depth int) error {
	if depth > p.b.lim.MaxDepth {
		return limitError(p.posNow(), p.pathCopy(), "MaxDepth", int64(p.b.lim.MaxDepth), "arrays and objects nest deeper than the limit")
	}
	return nil
}

func (p *jsonParser) array(n *Node, depth int) error {
	n.kind = Array
	if err := p.checkDepth(depth); err != nil {
		return err
	}
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	mark := len(p.b.itemStack)
	for {
		p.path = append(p.path, Step{Index: len(p.b.itemStack) - mark, IsIndex: true})
		p.skipSpace()
		item, err := p.value(n, depth)
		if err != nil {
			return err
		}
		p.path = p.path[:len(p.path)-1]
		p.b.itemStack = push(p.b.itemStack, item)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.eof("',' or ']'")
		}
		c := p.data[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			p.pos--
			return p.syntaxf("unexpected %s after an array item, want ',' or ']'", p.describe())
		}
	}
	p.b.closeArray(n, mark)
	return nil
}

func (p *jsonParser) object(n *Node, depth int) error {
	n.kind = Object
	if err := p.checkDepth(depth); err != nil {
		return err
	}
	p.pos++ // '{'
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	mark := len(p.b.memberStack)
	var index *nameIndex
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.eof("a member name")
		}
		if p.data[p.pos] != '"' {
			return p.syntaxf("unexpected %s, want a member name (a string)", p.describe())
		}
		keyOff := p.base + int64(p.pos)
		m := Member{}
		key, err := p.str(true)
		if err != nil {
			return err
		}
		m.Key = key
		if first, dup := findMember(index, p.b.memberStack[mark:], key); dup {
			return p.duplicate(&p.b.memberStack[mark+first], key, keyOff)
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.eof("':'")
		}
		if p.data[p.pos] != ':' {
			return p.syntaxf("unexpected %s after a member name, want ':'", p.describe())
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, Step{Key: key})
		if m.Value, err = p.value(n, depth); err != nil {
			return err
		}
		p.path = p.path[:len(p.path)-1]
		p.b.memberStack = push(p.b.memberStack, m)
		index = indexAppended(index, p.b.memberStack[mark:])
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.eof("',' or '}'")
		}
		c := p.data[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			p.pos--
			return p.syntaxf("unexpected %s after an object member, want ',' or '}'", p.describe())
		}
	}
	p.b.closeObject(n, mark, index)
	return nil
}

func (p *jsonParser) duplicate(first *Member, key string, keyOff int64) error {
	src := p.b.src
	return duplicateError(src.pos(keyOff), p.path.Key(key), key, src.pos(src.keyOffset(first.Value)))
}

func duplicateError(pos Pos, path Path, key string, first Pos) error {
	return newError(pos, path, ErrDuplicateKey, "duplicate key %q (first at line %d, column %d)", key, first.Line, first.Column)
}

// strSafe marks the bytes a string holds as they are: printable ASCII but '"' and '\\'.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str parses the string at p.pos (on its opening quote). A first pass validates it, finds its
// end and measures it, stopping as soon as it is longer than its limit; a string without
// escapes is then one copy of its bytes (a name is interned), one with escapes is decoded into
// exactly its size. Nothing larger than the limit is ever allocated.
func (p *jsonParser) str(isKey bool) (string, error) {
	start := p.pos
	limit := p.b.lim.MaxStringBytes
	if isKey {
		limit = p.b.lim.MaxKeyBytes
	}
	data := p.data
	first := start + 1
	size, escapes := 0, false // size: decoded bytes so far
	i := first
	for {
		// Plain bytes decode to themselves, so a run is scanned one byte past the limit at most.
		stop := min(len(data), i+limit-size+1)
		run := i
		for i < stop && strSafe[data[i]] {
			i++
		}
		if size += i - run; size > limit {
			return "", p.tooLong(start, limit, isKey)
		}
		if i >= len(data) {
			p.pos = len(data)
			return "", p.eof("the end of the string")
		}
		c := data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			switch {
			case escapes:
				return p.unescape(first, i, size), nil
			case isKey:
				return p.b.names.name(data[first:i]), nil
			}
			return string(data[first:i]), nil
		case c == '\\':
			r, n, err := p.escape(i)
			if err != nil {
				return "", err
			}
			escapes = true
			size += utf8.RuneLen(r)
			i += n
		case c < 0x20:
			p.pos = i
			return "", p.syntaxf("control character %s in a string (write it as an escape)", p.describe())
		default:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				p.pos = i
				return "", p.syntaxf("invalid UTF-8 in a string")
			}
			size += n
			i += n
		}
	}
}

// tooLong reports the string starting at data[start].
func (p *jsonParser) tooLong(start int, limit int, isKey bool) error {
	what, name := "a string", "MaxStringBytes"
	if isKey {
		what, name = "a member name", "MaxKeyBytes"
	}
	pos := p.b.src.pos(p.base + int64(start))
	return limitError(pos, p.pathCopy(), name, int64(limit), "%s is longer than the limit", what)
}

// unescape decodes data[first:end], a string str has validated, of size bytes once decoded.
func (p *jsonParser) unescape(first, end, size int) string {
	var b strings.Builder
	b.Grow(size)
	data := p.data
	for i := first; i < end; {
		j := i
		for j < end && data[j] != '\\' {
			j++
		}
		b.Write(data[i:j])
		if j == end {
			break
		}
		r, n, _ := p.escape(j)
		b.WriteRune(r)
		i = j + n
	}
	return b.String()
}

// escape decodes the escape sequence at data[i] == '\\' (RFC 8259 §7): its character and
// length. A surrogate pair of \u escapes is one character.
func (p *jsonParser) escape(i int) (rune, int, error) {
	data := p.data
	if i+1 >= len(data) {
		return 0, 0, p.eof("an escape sequence")
	}
	switch c := data[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
		r, err := p.hex4(i + 2)
		if err != nil || !utf16.IsSurrogate(r) {
			return r, 6, err
		}
		low := rune(-1)
		if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if low, err = p.hex4(i + 8); err != nil {
				return 0, 0, err
			}
		}
		if r = utf16.DecodeRune(r, low); r == utf8.RuneError {
			p.pos = i
			return 0, 0, p.syntaxf("unpaired UTF-16 surrogate in a \\u escape")
		}
		return r, 12, nil
	}
	p.pos = i
	return 0, 0, p.syntaxf("invalid escape sequence \\%c", data[i+1])
}

func (p *jsonParser) hex4(i int) (rune, error) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(p.data) {
			return 0, p.eof("a hexadecimal digit")
		}
		c := p.data[k]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			p.pos = k
			return 0, p.syntaxf("unexpected %s in a \\u escape, want a hexadecimal digit", p.describe())
		}
	}
	return r, nil
}

// number parses a number literal (RFC 8259 §6), keeping its text as written.
func (p *jsonParser) number(n *Node) error {
	n.kind = Number
	data := p.data
	start := p.pos
	i := start
	digits := func() bool {
		from := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > from
	}
	want := func(what string) error {
		p.pos = i
		if i >= len(data) {
			return p.eof(what)
		}
		return p.syntaxf("unexpected %s in a number, want %s", p.describe(), what)
	}
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
		if i < len(data) && data[i] >= '0' && data[i] <= '9' {
			p.pos = i
			return p.syntaxf("a number has a leading zero")
		}
	case !digits():
		return want("a digit")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return want("a digit after the decimal point")
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return want("a digit in the exponent")
		}
	}
	if i-start > p.b.lim.MaxNumberBytes {
		return limitError(p.b.src.pos(n.off), p.pathCopy(), "MaxNumberBytes", int64(p.b.lim.MaxNumberBytes), "a number literal is longer than the limit")
	}
	n.text = string(data[start:i])
	p.pos = i
	return nil
}

func (p *jsonParser) literal(n *Node, word string, kind Kind) error {
	rest := p.data[p.pos:]
	if !bytes.HasPrefix(rest, []byte(word)) {
		if len(rest) < len(word) && bytes.HasPrefix([]byte(word), rest) {
			p.pos = len(p.data)
			return p.eof(fmt.Sprintf("the rest of %q", word))
		}
		return p.syntaxf("unexpected %s, want a value", p.describe())
	}
	n.kind, n.text = kind, word
	p.pos += len(word)
	return nil
}

func (p *jsonParser) posNow() Pos { return p.b.src.pos(p.base + int64(p.pos)) }

func (p *jsonParser) pathCopy() Path { return slices.Clone(p.path) }

func (p *jsonParser) syntaxf(format string, args ...any) error {
	return newError(p.posNow(), p.pathCopy(), ErrSyntax, format, args...)
}

// eof reports the end of the input where more was wanted.
func (p *jsonParser) eof(want string) error {
	p.pos = len(p.data)
	return p.syntaxf("unexpected end of input, want %s", want)
}

// describe names the byte at p.pos for a message.
func (p *jsonParser) describe() string {
	c := p.data[p.pos]
	switch {
	case c >= 0x20 && c < 0x7f:
		return fmt.Sprintf("character %q", rune(c))
	case c < 0x80:
		return fmt.Sprintf("byte 0x%02x", c)
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("character %q", r)
}
