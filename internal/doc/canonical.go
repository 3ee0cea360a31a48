package doc

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Canonical returns the RFC 8785 (JSON Canonicalization Scheme) form of n: no insignificant
// whitespace, object members sorted by the UTF-16 code units of their names (§3.2.3), strings
// with the minimal escaping of §3.2.2.2, and numbers as ECMAScript writes the IEEE double
// nearest to them (§3.2.2.3). A number whose value that double does not hold exactly
// (12345678901234567891, 0.10000000000000000001, 1e400) is an ErrType error naming it: the
// canonical form never changes a value.
func Canonical(n *Node) ([]byte, error) { return AppendCanonical(nil, n) }

// AppendCanonical appends the canonical form of n to dst.
func AppendCanonical(dst []byte, n *Node) ([]byte, error) {
	e := encoder{sorter: memberSorter{order: utf16Order}, canonicalNumbers: true}
	out := e.value(dst, n)
	if e.err != nil {
		return dst, e.err
	}
	return out, nil
}

// Compact returns n as compact JSON in document order: for a value parsed from JSON, its text
// as written without insignificant whitespace (what encoding/json.Compact gives, string escapes
// and number literals untouched); for a value from YAML, strings escaped as AppendString
// escapes them and numbers in their JSON form. A nil node gives "null".
func (n *Node) Compact() []byte {
	if n == nil {
		return []byte("null")
	}
	if src := n.source(); src != nil && src.data != nil {
		return compactSource(nil, src.data[n.off-src.base:])
	}
	e := encoder{}
	return e.value(nil, n)
}

// compactSource copies the JSON value at the start of text, which the parser has validated,
// leaving out the whitespace between tokens.
func compactSource(dst, text []byte) []byte {
	depth := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			end := i + 1
			for text[end] != '"' {
				if text[end] == '\\' {
					end++
				}
				end++
			}
			dst = append(dst, text[i:end+1]...)
			i = end
		case ':', ',':
			dst = append(dst, c)
			continue
		case '[', '{':
			depth++
			dst = append(dst, c)
			continue
		case ']', '}':
			depth--
			dst = append(dst, c)
		default: // a number, true, false or null
			start := i
			for i+1 < len(text) && !isSpace[text[i+1]] && !isEndOfValue(text[i+1]) {
				i++
			}
			dst = append(dst, text[start:i+1]...)
		}
		if depth == 0 {
			return dst
		}
	}
	return dst
}

func isEndOfValue(c byte) bool { return c == ',' || c == ']' || c == '}' }

// AppendString appends s as a JSON string with the minimal escaping of RFC 8785 §3.2.2.2:
// '"' and '\\' escaped, control characters as \b \t \n \f \r or \u00xx (lowercase), everything
// else, non-ASCII included, as it is. s must be valid UTF-8 (every string of a parsed tree is).
// It is the one string escaper of the project's canonical forms.
func AppendString(dst []byte, s string) []byte {
	return append(appendEscaped(append(dst, '"'), s), '"')
}

// AppendStringContent appends b, which must be valid UTF-8, escaped as AppendString escapes
// the inside of a string, without the quotes. Escapes depend on single bytes only, so a string
// written piece by piece, in pieces cut anywhere, comes out as written whole.
func AppendStringContent(dst, b []byte) []byte { return appendEscaped(dst, b) }

func appendEscaped[T string | []byte](dst []byte, s T) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// CompareKeys orders member names as RFC 8785 §3.2.3 sorts them: by their UTF-16 code units.
// That is byte order, except that characters above U+FFFF (surrogate pairs in UTF-16) sort
// before U+E000–U+FFFF. It returns -1, 0 or +1.
func CompareKeys(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) { // back to the first byte of the differing characters
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	return cmp.Compare(utf16First(ra), utf16First(rb))
}

// utf16First returns the first UTF-16 code unit of r. Two different characters with the same
// first unit are both above U+FFFF, where code point order is code unit order.
func utf16First(r rune) rune {
	if r > 0xFFFF {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

type keyOrder uint8

const (
	documentOrder keyOrder = iota
	byteOrder              // the order of Diff and Leaves
	utf16Order             // RFC 8785
)

// encoder writes a tree as JSON.
type encoder struct {
	sorter           memberSorter
	canonicalNumbers bool
	// limit, when positive, stops writing once the output holds that many bytes.
	limit int
	err   error
}

func (e *encoder) value(dst []byte, n *Node) []byte {
	if e.err != nil || e.limit > 0 && len(dst) >= e.limit {
		return dst
	}
	switch n.Kind() {
	case String:
		return AppendString(dst, n.text)
	case Number:
		if !e.canonicalNumbers {
			return append(dst, n.text...)
		}
		out, ok := appendCanonicalNumber(dst, n.text)
		if !ok {
			e.err = typeErrorf(n, "number %s has no exact IEEE double form, so RFC 8785 cannot write it without changing its value", n.text)
		}
		return out
	case Bool, Null:
		return append(dst, n.text...)
	case Array:
		dst = append(dst, '[')
		for i, item := range n.Items() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = e.value(dst, item)
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		members, mark := e.sorter.sorted(n.Members())
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, m.Key)
			dst = append(dst, ':')
			dst = e.value(dst, m.Value)
		}
		e.sorter.release(mark)
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// memberSorter puts members in the order asked for without allocating per object: sorted
// copies live on a stack, as deep as the walk, that is reused. Members already in order (the
// common case for canonical input) are used in place.
type memberSorter struct {
	order keyOrder
	stack []Member
}

// sorted returns ms in order; the caller passes mark to release once done with the result.
// Results of nested calls stay valid until released, in the reverse order.
func (s *memberSorter) sorted(ms []Member) (sorted []Member, mark int) {
	mark = len(s.stack)
	var compare func(a, b string) int
	switch s.order {
	case byteOrder:
		compare = strings.Compare
	case utf16Order:
		compare = CompareKeys
	default:
		return ms, mark
	}
	byKey := func(a, b Member) int { return compare(a.Key, b.Key) }
	if slices.IsSortedFunc(ms, byKey) {
		return ms, mark
	}
	s.stack = append(s.stack, ms...)
	sorted = s.stack[mark:len(s.stack):len(s.stack)]
	slices.SortFunc(sorted, byKey)
	return sorted, mark
}

func (s *memberSorter) release(mark int) {
	clear(s.stack[mark:])
	s.stack = s.stack[:mark]
}
