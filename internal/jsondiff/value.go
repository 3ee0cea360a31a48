package jsondiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// value is one decoded JSON value. Objects keep their members sorted by key, so walking them
// is deterministic without any map.
type value struct {
	kind kind
	// text is a string's value, a number's literal or "true"/"false".
	text    string
	items   []*value
	members []member
}

type member struct {
	key   string
	value *value
}

// equalScalar compares two scalars of the same kind; numbers by decimal value.
func (v *value) equalScalar(w *value) bool {
	if v.kind == kindNumber {
		return v.text == w.text || numberKey(v.text) == numberKey(w.text)
	}
	return v.text == w.text
}

// parse decodes exactly one JSON value.
func parse(doc []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	p := parser{dec: dec}
	v, err := p.value(nil, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the JSON value at offset %d", ErrSyntax, dec.InputOffset())
	}
	return v, nil
}

type parser struct {
	dec *json.Decoder
}

func (p *parser) token(path []string) (json.Token, error) {
	t, err := p.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: unexpected end of input at %q", ErrSyntax, pointer(path))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: at %q: %v", ErrSyntax, pointer(path), err)
	}
	return t, nil
}

func (p *parser) value(path []string, depth int) (*value, error) {
	t, err := p.token(path)
	if err != nil {
		return nil, err
	}
	return p.fromToken(t, path, depth)
}

func (p *parser) fromToken(t json.Token, path []string, depth int) (*value, error) {
	switch t := t.(type) {
	case nil:
		return &value{kind: kindNull}, nil
	case bool:
		return &value{kind: kindBool, text: strconv.FormatBool(t)}, nil
	case json.Number:
		return &value{kind: kindNumber, text: t.String()}, nil
	case string:
		return &value{kind: kindString, text: t}, nil
	case json.Delim:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("%w: nesting deeper than %d at %q", ErrSyntax, MaxDepth, pointer(path))
		}
		if t == '[' {
			return p.array(path, depth+1)
		}
		if t == '{' {
			return p.object(path, depth+1)
		}
	}
	return nil, fmt.Errorf("%w: unexpected %v at %q", ErrSyntax, t, pointer(path))
}

func (p *parser) array(path []string, depth int) (*value, error) {
	v := &value{kind: kindArray}
	for {
		t, err := p.token(path)
		if err != nil {
			return nil, err
		}
		if t == json.Delim(']') {
			return v, nil
		}
		item, err := p.fromToken(t, append(path, strconv.Itoa(len(v.items))), depth)
		if err != nil {
			return nil, err
		}
		v.items = append(v.items, item)
	}
}

func (p *parser) object(path []string, depth int) (*value, error) {
	v := &value{kind: kindObject}
	for {
		t, err := p.token(path)
		if err != nil {
			return nil, err
		}
		if t == json.Delim('}') {
			break
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("%w: object key expected at %q", ErrSyntax, pointer(path))
		}
		child, err := p.value(append(path, key), depth)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, member{key: key, value: child})
	}
	slices.SortStableFunc(v.members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(v.members); i++ {
		if v.members[i].key == v.members[i-1].key {
			return nil, fmt.Errorf("%w: duplicate key at %q", ErrSyntax, pointer(append(path, v.members[i].key)))
		}
	}
	return v, nil
}

// write appends the canonical JSON of v to b, stopping once b holds limit bytes.
func (v *value) write(b *strings.Builder, limit int) {
	if b.Len() >= limit {
		return
	}
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool, kindNumber:
		b.WriteString(v.text)
	case kindString:
		writeString(b, v.text)
	case kindArray:
		b.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				b.WriteByte(',')
			}
			item.write(b, limit)
		}
		b.WriteByte(']')
	case kindObject:
		b.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.key)
			b.WriteByte(':')
			m.value.write(b, limit)
		}
		b.WriteByte('}')
	}
}

// writeString writes s as a JSON string escaping only what JSON requires (RFC 8785 §3.2.2.2).
func writeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// numberKey returns a form of a JSON number literal that is the same for every literal of the
// same decimal value: sign, significant digits without leading or trailing zeros, exponent.
// A literal whose exponent does not fit an int is its own key.
func numberKey(lit string) string {
	neg := strings.HasPrefix(lit, "-")
	s := strings.TrimPrefix(lit, "-")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return lit
		}
		exp, s = e, s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0"
	}
	trimmed := strings.TrimRight(digits, "0")
	shift := len(digits) - len(trimmed) - len(frac)
	if (shift > 0 && exp > maxInt-shift) || (shift < 0 && exp < minInt-shift) {
		return lit
	}
	exp += shift
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(exp)
}

const (
	maxInt = int(^uint(0) >> 1)
	minInt = -maxInt - 1
)
