package kensagen

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
)

// obj is a JSON object whose members keep their order: Kensa reads attributes in file order
// (the embedded tool calls of a span, its metadata), so the generator decides it.
type obj []member

type member struct {
	k string
	v any
}

// raw is JSON text written as it is (a number in a chosen form).
type raw string

// pyFloat is a float written as Python's json.dumps writes it (repr, with a dot or an
// exponent), which PyYAML's YAML 1.1 float also reads when it has a dot.
type pyFloat float64

func (o obj) with(k string, v any) obj { return append(o, member{k, v}) }

// encode writes v as JSON: obj, []any, string, bool, int, int64, uint64, pyFloat, float64
// (shortest form), raw, nil.
func encode(b *strings.Builder, v any) {
	switch x := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			encode(b, m.k)
			b.WriteString(": ")
			encode(b, m.v)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			encode(b, e)
		}
		b.WriteByte(']')
	case []string:
		items := make([]any, len(x))
		for i, s := range x {
			items[i] = s
		}
		encode(b, items)
	case string:
		s, _ := json.Marshal(x)
		b.Write(s)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case pyFloat:
		b.WriteString(pyRepr(float64(x)))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case raw:
		b.WriteString(string(x))
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("kensagen: cannot encode %T", v))
	}
}

func jsonText(v any) string {
	var b strings.Builder
	encode(&b, v)
	return b.String()
}

// pyRepr is Python's repr of a finite float: the shortest digits, positional between 1e-4 and
// 1e16, with ".0" for integral values.
func pyRepr(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		panic("kensagen: non-finite float")
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	abs := math.Abs(f)
	if abs >= 1e16 || abs < 1e-4 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + string(sign) + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// pyDumps is Python's json.dumps of a string (ensure_ascii: everything outside ' '..'~' is
// escaped, non-BMP characters as surrogate pairs).
func pyDumps(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// pyDumpsObj is json.dumps of a dict of string keys and string or int values, in order.
func pyDumpsObj(o obj) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyDumps(m.k))
		b.WriteString(": ")
		switch x := m.v.(type) {
		case string:
			b.WriteString(pyDumps(x))
		case int:
			b.WriteString(strconv.Itoa(x))
		default:
			panic(fmt.Sprintf("kensagen: pyDumpsObj of %T", m.v))
		}
	}
	b.WriteByte('}')
	return b.String()
}
