package doc

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// number is the exact decimal value of a number literal in JSON grammar, read without
// allocating: value = ±sig × 10^exp, where sig is the n significant digits of intPart+frac
// starting at lead (no leading or trailing zeros). Zero has n == 0, whatever its sign.
type number struct {
	neg     bool
	intPart string
	frac    string
	lead, n int
	exp     int64
	bigExp  *big.Int // set instead of exp when the written exponent has more than 15 digits
}

// maxSmallExponentDigits is the number of exponent digits exp holds exactly with room for the
// adjustment by the digit count.
const maxSmallExponentDigits = 15

// parseNumber decomposes a literal in JSON grammar (RFC 8259 §6). It does not validate: the
// parsers do that before a literal reaches a node.
func parseNumber(lit string) number {
	var x number
	s := lit
	if strings.HasPrefix(s, "-") {
		x.neg, s = true, s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	x.intPart, x.frac, _ = strings.Cut(mant, ".")
	total := len(x.intPart) + len(x.frac)
	for x.lead < total && x.digitAt(x.lead) == '0' {
		x.lead++
	}
	end := total
	for end > x.lead && x.digitAt(end-1) == '0' {
		end--
	}
	x.n = end - x.lead
	if x.n == 0 {
		x.neg = false
		return x
	}
	adjust := int64(total-end) - int64(len(x.frac))
	expText = strings.TrimPrefix(expText, "+")
	digits := strings.TrimLeft(strings.TrimPrefix(expText, "-"), "0")
	if len(digits) > maxSmallExponentDigits {
		e, _ := new(big.Int).SetString(expText, 10)
		x.bigExp = e.Add(e, big.NewInt(adjust))
		return x
	}
	e, _ := strconv.ParseInt(expText, 10, 64) // "" gives 0
	x.exp = e + adjust
	return x
}

// digitAt is the i-th digit of intPart+frac.
func (x *number) digitAt(i int) byte {
	if i < len(x.intPart) {
		return x.intPart[i]
	}
	return x.frac[i-len(x.intPart)]
}

// digit is the i-th significant digit.
func (x *number) digit(i int) byte { return x.digitAt(x.lead + i) }

// equal reports whether two numbers have the same value.
func (x number) equal(y number) bool {
	if x.n != y.n || x.neg != y.neg {
		return false
	}
	if x.n == 0 {
		return true
	}
	switch {
	case x.bigExp == nil && y.bigExp == nil:
		if x.exp != y.exp {
			return false
		}
	case x.bigExp != nil && y.bigExp != nil:
		if x.bigExp.Cmp(y.bigExp) != 0 {
			return false
		}
	default:
		return false // one exponent is beyond ±10^15, the other is not
	}
	for i := range x.n {
		if x.digit(i) != y.digit(i) {
			return false
		}
	}
	return true
}

// numbersEqual compares two literals by value: "1", "1.0" and "10e-1" are equal.
func numbersEqual(a, b string) bool {
	return a == b || parseNumber(a).equal(parseNumber(b))
}

// magnitude returns the value's absolute integer value when it is an integer below 2^64.
func (x number) magnitude() (uint64, bool) {
	if x.n == 0 {
		return 0, true
	}
	if x.bigExp != nil || x.exp < 0 || int64(x.n)+x.exp > 20 {
		return 0, false
	}
	var v uint64
	for i := range x.n + int(x.exp) {
		d := uint64(0)
		if i < x.n {
			d = uint64(x.digit(i) - '0')
		}
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func (x number) int64() (int64, bool) {
	m, ok := x.magnitude()
	switch {
	case !ok:
		return 0, false
	case x.neg && m <= 1<<63:
		return int64(-m), true // -m wraps to the right two's complement value for 1<<63 too
	case !x.neg && m < 1<<63:
		return int64(m), true
	}
	return 0, false
}

func (x number) uint64() (uint64, bool) {
	m, ok := x.magnitude()
	if !ok || x.neg {
		return 0, false
	}
	return m, true
}

// plain writes the value without exponent; false when that takes more than max digits.
func (x number) plain(max int) (string, bool) {
	if x.n == 0 {
		return "0", true
	}
	if x.bigExp != nil || x.exp > int64(max) || x.exp < -int64(max) || int64(x.n)+abs64(x.exp) > int64(max) {
		return "", false
	}
	var b strings.Builder
	if x.neg {
		b.WriteByte('-')
	}
	point := x.n + int(x.exp) // digits before the decimal point
	switch {
	case x.exp >= 0:
		x.writeDigits(&b, 0, x.n)
		b.WriteString(strings.Repeat("0", int(x.exp)))
	case point > 0:
		x.writeDigits(&b, 0, point)
		b.WriteByte('.')
		x.writeDigits(&b, point, x.n)
	default:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		x.writeDigits(&b, 0, x.n)
	}
	return b.String(), true
}

func (x *number) writeDigits(b *strings.Builder, from, to int) {
	for i := from; i < to; i++ {
		b.WriteByte(x.digit(i))
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// appendCanonicalNumber appends the RFC 8785 §3.2.2.3 form of a literal: the ECMAScript
// Number.prototype.toString of the nearest IEEE double. The literal must denote exactly the
// value that form denotes: a number a double cannot hold (12345678901234567891, 0.1000000000000000001,
// 1e400) would change value on the way, so it is refused rather than rounded.
func appendCanonicalNumber(dst []byte, lit string) ([]byte, bool) {
	if fastInteger(lit) {
		return append(dst, lit...), true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return dst, false
	}
	start := len(dst)
	dst = appendES6(dst, f)
	if out := dst[start:]; string(out) != lit && !parseNumber(lit).equal(parseNumber(string(out))) {
		return dst[:start], false
	}
	return dst, true
}

// fastInteger reports whether lit is an integer literal that is already in canonical form:
// at most 15 digits (so a double holds it exactly), no leading zero, not "-0".
func fastInteger(lit string) bool {
	s := strings.TrimPrefix(lit, "-")
	if s == "" || len(s) > 15 || s[0] == '0' && (len(s) > 1 || len(lit) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendES6 formats f as ECMAScript's Number::toString does (ECMA-262 §6.1.6.1.20), which
// RFC 8785 adopts: the shortest digits that round-trip, in plain notation for exponents from
// -7 to 20, in exponent notation otherwise.
func appendES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf, digitBuf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d.ddde±xx
	at := bytes.IndexByte(e, 'e')
	exp := 0
	for _, c := range e[at+2:] {
		exp = exp*10 + int(c-'0')
	}
	if e[at+1] == '-' {
		exp = -exp
	}
	digits := digitBuf[:0]
	for _, c := range e[:at] {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	k, n := len(digits), exp+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}
