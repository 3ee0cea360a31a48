package pyvalue

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Dumps is Python's json.dumps(v): ", " and ": " separators, ASCII only, members in order.
func Dumps(v Value) string {
	var b strings.Builder
	dump(&b, v, false)
	return b.String()
}

// DumpsSorted is json.dumps(v, sort_keys=True): members sorted by name at every level.
func DumpsSorted(v Value) string {
	var b strings.Builder
	dump(&b, v, true)
	return b.String()
}

func dump(b *strings.Builder, v Value, sorted bool) {
	switch v.kind {
	case KindNull:
		b.WriteString("null")
	case KindBool:
		b.WriteString(strconv.FormatBool(v.boolean()))
	case KindInt:
		b.WriteString(strconv.FormatInt(v.integer(), 10))
	case KindFloat:
		switch {
		case math.IsNaN(v.float()):
			b.WriteString("NaN")
		case math.IsInf(v.float(), 1):
			b.WriteString("Infinity")
		case math.IsInf(v.float(), -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(FloatRepr(v.float()))
		}
	case KindStr:
		jsonString(b, v.s)
	case KindList:
		b.WriteByte('[')
		for i, item := range v.list() {
			if i > 0 {
				b.WriteString(", ")
			}
			dump(b, item, sorted)
		}
		b.WriteByte(']')
	case KindDict:
		order := memberOrder(v, sorted)
		b.WriteByte('{')
		for n, i := range order {
			if n > 0 {
				b.WriteString(", ")
			}
			jsonString(b, v.Keys()[i])
			b.WriteString(": ")
			dump(b, v.values()[i], sorted)
		}
		b.WriteByte('}')
	}
}

// memberOrder lists member indexes: document order with duplicates collapsed to the last
// value at the first position (as a Python dict built from the document holds them), sorted
// by name (code point order, as Python sorts str) when asked.
func memberOrder(v Value, sorted bool) []int {
	pos := map[string]int{}
	var order []int
	for i, k := range v.Keys() {
		if p, ok := pos[k]; ok {
			order[p] = i
			continue
		}
		pos[k] = len(order)
		order = append(order, i)
	}
	if sorted {
		slices.SortStableFunc(order, func(a, b int) int { return compareCodePoints(v.Keys()[a], v.Keys()[b]) })
	}
	return order
}

// compareCodePoints orders strings by Unicode code point, as Python compares str. Byte order
// of valid UTF-8 is code point order.
func compareCodePoints(a, b string) int { return strings.Compare(a, b) }

// jsonString writes s as Python's json.dumps does by default (ensure_ascii): ASCII as the
// project's one escaper writes it (doc.AppendStringContent: '"' and '\\' escaped, \b \t \n
// \f \r, other controls \u00xx, which are Python's escapes too), and every other character,
// DEL included, as \uxxxx in lowercase hex, above U+FFFF as a surrogate pair.
//
// The escaping of non-ASCII characters stays here rather than as a mode of doc's escaper: the
// canonical form never writes it (RFC 8785 §3.2.2.2 keeps them as they are), and only the
// reproduction of Python's text needs it.
func jsonString(b *strings.Builder, s string) {
	out := []byte{'"'}
	ascii := 0 // the start of the ASCII not yet written
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0x7f {
			i += size
			continue
		}
		out = doc.AppendStringContent(out, []byte(s[ascii:i]))
		if r >= 0x10000 {
			r -= 0x10000
			out = appendU4(appendU4(out, 0xd800+(r>>10)), 0xdc00+(r&0x3ff))
		} else {
			out = appendU4(out, r)
		}
		i += size
		ascii = i
	}
	out = doc.AppendStringContent(out, []byte(s[ascii:]))
	b.Write(append(out, '"'))
}

// appendU4 appends the escape \uxxxx of r, in lowercase hex as Python writes it.
func appendU4(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// Repr is Python's repr(v): 'str' quoting, True/False/None, lists and dicts as Python prints
// them.
func Repr(v Value) string {
	var b strings.Builder
	repr(&b, v)
	return b.String()
}

func repr(b *strings.Builder, v Value) {
	switch v.kind {
	case KindNull:
		b.WriteString("None")
	case KindBool:
		if v.boolean() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case KindInt:
		b.WriteString(strconv.FormatInt(v.integer(), 10))
	case KindFloat:
		b.WriteString(FloatRepr(v.float()))
	case KindStr:
		b.WriteString(StrRepr(v.s))
	case KindList:
		b.WriteByte('[')
		for i, item := range v.list() {
			if i > 0 {
				b.WriteString(", ")
			}
			repr(b, item)
		}
		b.WriteByte(']')
	case KindDict:
		b.WriteByte('{')
		for n, i := range memberOrder(v, false) {
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(StrRepr(v.Keys()[i]))
			b.WriteString(": ")
			repr(b, v.values()[i])
		}
		b.WriteByte('}')
	}
}

// Truthy is Python's bool(v): None, False, zero, "" and empty containers are false.
func Truthy(v Value) bool {
	switch v.Kind() {
	case KindNull:
		return false
	case KindBool:
		b, _ := v.AsBool()
		return b
	case KindInt, KindFloat:
		f, _ := v.AsNumber()
		return f != 0
	case KindStr:
		s, _ := v.AsStr()
		return s != ""
	}
	return v.Len() > 0
}

// Str is Python's str(v): the string itself for a str, repr otherwise.
func Str(v Value) string {
	if s, ok := v.AsStr(); ok {
		return s
	}
	return Repr(v)
}

// StrList is repr of a list of strings.
func StrList(items []string) string {
	vals := make([]Value, len(items))
	for i, s := range items {
		vals[i] = NewStr(s)
	}
	return Repr(NewList(vals))
}

// StrRepr is Python's repr of a str: single quotes unless the string holds a single quote and
// no double quote; backslash escapes for the quote, backslash, \t \n \r and characters Python
// does not print (\xNN, \uNNNN, \UNNNNNNNN).
func StrRepr(s string) string {
	quote := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Python strings hold no invalid UTF-8; a surrogate escape is the nearest form.
			b.WriteString(`\udc`)
			b.WriteString(strconv.FormatUint(uint64(s[i]), 16))
			i++
			continue
		}
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			b.WriteString(`\x`)
			b.WriteString(hex2(uint64(r)))
		case r >= 0x80 && !unicode.IsPrint(r):
			switch {
			case r < 0x100:
				b.WriteString(`\x`)
				b.WriteString(hex2(uint64(r)))
			case r < 0x10000:
				b.WriteString(`\u`)
				b.WriteString(pad(strconv.FormatUint(uint64(r), 16), 4))
			default:
				b.WriteString(`\U`)
				b.WriteString(pad(strconv.FormatUint(uint64(r), 16), 8))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

func hex2(n uint64) string { return pad(strconv.FormatUint(n, 16), 2) }

func pad(s string, n int) string { return strings.Repeat("0", max(n-len(s), 0)) + s }

// FloatRepr is Python's repr of a float: the shortest digits that round-trip, in positional
// notation when the decimal exponent is in [-4, 16), scientific otherwise ("1e-05", "1e+16"),
// always with a fraction or exponent ("1.0"); "inf", "-inf", "nan".
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := strings.HasPrefix(sci, "-")
	sci = strings.TrimPrefix(sci, "-")
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1 // digits d1 d2 … with the point after decpt of them
	var out string
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			out = "0." + strings.Repeat("0", -decpt) + digits
		case decpt >= len(digits):
			out = digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		default:
			out = digits[:decpt] + "." + digits[decpt:]
		}
	} else {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out = m + "e" + sign + pad(strconv.Itoa(exp), 2)
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Fixed is Python's f"{f:.{places}f}": the exact binary value rounded half to even.
func Fixed(f float64, places int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', places, 64)
}

// Round is Python's round(f, places) for a float: the exact binary value rounded half to even
// at that many decimals, read back as the nearest float.
func Round(f float64, places int) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', places, 64), 64)
	return r
}

// Mul is a product rounded to binary64 on its own, never fused with an addition.
func Mul(a, b float64) float64 { return float64(a * b) }

// PowInt is x**k for a float x and a small non-negative integer k, as CPython computes it with
// the C library's pow: the exact power rounded once to the nearest binary64 (glibc's pow is
// correctly rounded in practice; repeated multiplication, as Go's math.Pow does, is not).
func PowInt(x float64, k int) float64 {
	if k < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Pow(x, float64(k))
	}
	exact := new(big.Float).SetPrec(uint(53*k + 64)).SetFloat64(1)
	bx := new(big.Float).SetPrec(53).SetFloat64(x)
	for range k {
		exact.Mul(exact, bx)
	}
	f, _ := exact.Float64()
	return f
}

// DumpsCompact is JSON with no spaces and non-ASCII kept as UTF-8, members in order, floats
// in Python's repr form: the form pydantic's model_dump_json writes.
func DumpsCompact(v Value) string {
	var b strings.Builder
	dumpCompact(&b, v)
	return b.String()
}

func dumpCompact(b *strings.Builder, v Value) {
	switch v.kind {
	case KindStr:
		compactString(b, v.s)
	case KindList:
		b.WriteByte('[')
		for i, item := range v.list() {
			if i > 0 {
				b.WriteByte(',')
			}
			dumpCompact(b, item)
		}
		b.WriteByte(']')
	case KindDict:
		b.WriteByte('{')
		for n, i := range memberOrder(v, false) {
			if n > 0 {
				b.WriteByte(',')
			}
			compactString(b, v.Keys()[i])
			b.WriteByte(':')
			dumpCompact(b, v.values()[i])
		}
		b.WriteByte('}')
	default:
		dump(b, v, false)
	}
}

// compactString writes s as pydantic's model_dump_json does (and Python's json.dumps with
// ensure_ascii=False): exactly the project's one escaper, doc.AppendString.
func compactString(b *strings.Builder, s string) {
	b.Write(doc.AppendString(nil, s))
}
