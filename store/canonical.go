package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// maxCanonicalDepth bounds nesting in Canonicalize. Store objects nest a handful of levels; the
// bound exists so hostile input cannot recurse deeply.
const maxCanonicalDepth = 64

// maxSafeInteger is 2^53-1: beyond it a JSON number cannot be represented exactly as the IEEE
// double RFC 8785 formats numbers with.
const maxSafeInteger = 1<<53 - 1

// Marshal encodes v as canonical JSON: the one encoding of every structured object in the store.
//
// The output is a fixed point of RFC 8785 (JSON Canonicalization Scheme): object members sorted by
// UTF-16 code units, no insignificant whitespace, strings escaped minimally, no HTML escaping.
// Numbers must be integers within ±(2^53-1); floats are rejected, because their text form is the
// one place where encoders disagree across languages and machines. Invalid UTF-8 is an error
// rather than being silently replaced.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCanonical, err)
	}
	return Canonicalize(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// Canonicalize rewrites a JSON document into canonical form (see Marshal). It rejects duplicate
// object keys, non-integer numbers, invalid UTF-8, trailing data and nesting deeper than 64.
func Canonicalize(doc []byte) ([]byte, error) {
	c := canonicalizer{in: doc, out: make([]byte, 0, len(doc))}
	c.skipSpace()
	if err := c.value(0); err != nil {
		return nil, err
	}
	c.skipSpace()
	if c.pos != len(c.in) {
		return nil, c.errorf("trailing data after the JSON value")
	}
	return c.out, nil
}

// FormatTime renders t as RFC 3339 in UTC, the only timestamp form in structured objects.
func FormatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

type canonicalizer struct {
	in  []byte
	pos int
	out []byte
}

func (c *canonicalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrNotCanonical, c.pos, fmt.Sprintf(format, args...))
}

func (c *canonicalizer) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value(depth int) error {
	if depth > maxCanonicalDepth {
		return c.errorf("nesting deeper than %d", maxCanonicalDepth)
	}
	if c.pos >= len(c.in) {
		return c.errorf("unexpected end of input")
	}
	switch ch := c.in[c.pos]; {
	case ch == '{':
		return c.object(depth)
	case ch == '[':
		return c.array(depth)
	case ch == '"':
		s, err := c.str()
		if err != nil {
			return err
		}
		c.out = appendJCSString(c.out, s)
		return nil
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(c.in[c.pos:], []byte(lit)) {
				c.pos += len(lit)
				c.out = append(c.out, lit...)
				return nil
			}
		}
		return c.errorf("unexpected character %q", ch)
	}
}

type member struct {
	key   string
	key16 []uint16
	value []byte
}

func (c *canonicalizer) object(depth int) error {
	c.pos++ // '{'
	var members []member
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, "{}"...)
		return nil
	}
	for {
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return c.errorf("expected an object key")
		}
		key, err := c.str()
		if err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.errorf("expected ':' after key %q", key)
		}
		c.pos++
		c.skipSpace()
		saved := c.out
		c.out = nil
		if err := c.value(depth + 1); err != nil {
			return err
		}
		members = append(members, member{key: key, key16: utf16.Encode([]rune(key)), value: c.out})
		c.out = saved
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.errorf("unterminated object")
		}
		if c.in[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.in[c.pos] != '}' {
			return c.errorf("expected ',' or '}' in object")
		}
		c.pos++
		break
	}
	// RFC 8785 §3.2.3: members are sorted by the UTF-16 code units of their names.
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key16, b.key16) })
	c.out = append(c.out, '{')
	for i, m := range members {
		if i > 0 {
			if m.key == members[i-1].key {
				return c.errorf("duplicate object key %q", m.key)
			}
			c.out = append(c.out, ',')
		}
		c.out = appendJCSString(c.out, m.key)
		c.out = append(c.out, ':')
		c.out = append(c.out, m.value...)
	}
	c.out = append(c.out, '}')
	return nil
}

func (c *canonicalizer) array(depth int) error {
	c.pos++ // '['
	c.out = append(c.out, '[')
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == ']' {
		c.pos++
		c.out = append(c.out, ']')
		return nil
	}
	for first := true; ; first = false {
		if !first {
			c.out = append(c.out, ',')
		}
		c.skipSpace()
		if err := c.value(depth + 1); err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.errorf("unterminated array")
		}
		if c.in[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.in[c.pos] != ']' {
			return c.errorf("expected ',' or ']' in array")
		}
		c.pos++
		c.out = append(c.out, ']')
		return nil
	}
}

// number accepts only integers, and emits them in the shortest form (no leading zeros, no "-0").
func (c *canonicalizer) number() error {
	start := c.pos
	if c.in[c.pos] == '-' {
		c.pos++
	}
	for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
		c.pos++
	}
	if c.pos < len(c.in) && (c.in[c.pos] == '.' || c.in[c.pos] == 'e' || c.in[c.pos] == 'E') {
		return c.errorf("floating-point number %q: structured objects hold integers only", c.in[start:min(c.pos+8, len(c.in))])
	}
	text := string(c.in[start:c.pos])
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
		return c.errorf("number %q is not an integer within ±(2^53-1)", text)
	}
	c.out = strconv.AppendInt(c.out, n, 10)
	return nil
}

// str decodes a JSON string at c.pos, validating UTF-8 and escapes.
func (c *canonicalizer) str() (string, error) {
	c.pos++ // opening quote
	var sb []byte
	for {
		if c.pos >= len(c.in) {
			return "", c.errorf("unterminated string")
		}
		ch := c.in[c.pos]
		switch {
		case ch == '"':
			c.pos++
			return string(sb), nil
		case ch == '\\':
			r, err := c.escape()
			if err != nil {
				return "", err
			}
			sb = utf8.AppendRune(sb, r)
		case ch < 0x20:
			return "", c.errorf("control character 0x%02x inside a string", ch)
		case ch < utf8.RuneSelf:
			sb = append(sb, ch)
			c.pos++
		default:
			r, size := utf8.DecodeRune(c.in[c.pos:])
			if r == utf8.RuneError && size <= 1 {
				return "", c.errorf("invalid UTF-8 inside a string")
			}
			sb = append(sb, c.in[c.pos:c.pos+size]...)
			c.pos += size
		}
	}
}

func (c *canonicalizer) escape() (rune, error) {
	if c.pos+1 >= len(c.in) {
		return 0, c.errorf("unterminated escape")
	}
	esc := c.in[c.pos+1]
	c.pos += 2
	switch esc {
	case '"', '\\', '/':
		return rune(esc), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r1, err := c.hex4()
		if err != nil {
			return 0, err
		}
		if !utf16.IsSurrogate(r1) {
			return r1, nil
		}
		if c.pos+1 < len(c.in) && c.in[c.pos] == '\\' && c.in[c.pos+1] == 'u' {
			c.pos += 2
			r2, err := c.hex4()
			if err != nil {
				return 0, err
			}
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, nil
			}
		}
		return 0, c.errorf("unpaired UTF-16 surrogate escape")
	default:
		return 0, c.errorf("invalid escape \\%c", esc)
	}
}

func (c *canonicalizer) hex4() (rune, error) {
	if c.pos+4 > len(c.in) {
		return 0, c.errorf("truncated \\u escape")
	}
	n, err := strconv.ParseUint(string(c.in[c.pos:c.pos+4]), 16, 32)
	if err != nil {
		return 0, c.errorf("invalid \\u escape %q", c.in[c.pos:c.pos+4])
	}
	c.pos += 4
	return rune(n), nil
}

// appendJCSString writes s as RFC 8785 §3.2.2.2 prescribes: only '"', '\\' and control characters
// are escaped, using the short forms where JSON has them and lowercase \u00xx otherwise.
func appendJCSString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	return append(appendJCSEscaped(dst, s), '"')
}

// AppendJSONStringContent appends b, which must be valid UTF-8, escaped as the inside of a
// canonical JSON string (no quotes). Escapes depend on single bytes only, so a string written
// piece by piece, in pieces cut anywhere, comes out the same as written whole.
func AppendJSONStringContent(dst, b []byte) []byte { return appendJCSEscaped(dst, b) }

func appendJCSEscaped[T string | []byte](dst []byte, s T) []byte {
	const hexDigits = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"' || ch == '\\':
			dst = append(dst, '\\', ch)
		case ch == '\b':
			dst = append(dst, '\\', 'b')
		case ch == '\f':
			dst = append(dst, '\\', 'f')
		case ch == '\n':
			dst = append(dst, '\\', 'n')
		case ch == '\r':
			dst = append(dst, '\\', 'r')
		case ch == '\t':
			dst = append(dst, '\\', 't')
		case ch < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[ch>>4], hexDigits[ch&0xf])
		default:
			dst = append(dst, ch)
		}
	}
	return dst
}
