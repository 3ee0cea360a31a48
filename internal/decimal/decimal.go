package decimal

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrSyntax: a string is not a decimal number with at most six fractional digits.
var ErrSyntax = errclass.New(errclass.Input, "decimal: invalid number")

// Places is the number of fractional digits a Decimal keeps.
const Places = 6

// scale is 10^Places.
const scale = 1_000_000

// Decimal is a fixed-point number with six fractional digits.
type Decimal int64

// Common values.
const (
	Zero Decimal = 0
	One  Decimal = scale
)

// FromInt returns n as a Decimal.
func FromInt(n int64) Decimal { return Decimal(n * scale) }

// Parse reads "12", "-0.35", "1.500000", "+2". More than six fractional digits, exponents and
// anything else are ErrSyntax: no value is ever rounded on input.
func Parse(s string) (Decimal, error) {
	text := strings.TrimSpace(s)
	neg := false
	switch {
	case strings.HasPrefix(text, "-"):
		neg, text = true, text[1:]
	case strings.HasPrefix(text, "+"):
		text = text[1:]
	}
	intPart, frac, hasDot := strings.Cut(text, ".")
	if intPart == "" && (!hasDot || frac == "") || len(frac) > Places || (hasDot && frac == "" && intPart == "") {
		return 0, fmt.Errorf("%w: %q", ErrSyntax, s)
	}
	if intPart == "" {
		intPart = "0"
	}
	for _, part := range []string{intPart, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("%w: %q", ErrSyntax, s)
			}
		}
	}
	whole, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil || whole > (1<<63-1)/scale-1 {
		return 0, fmt.Errorf("%w: %q out of range", ErrSyntax, s)
	}
	frac += strings.Repeat("0", Places-len(frac))
	f, _ := strconv.ParseInt(frac, 10, 64)
	v := Decimal(whole*scale + f)
	if neg {
		v = -v
	}
	return v, nil
}

// MustParse is Parse for constants in rule tables; it panics on a malformed constant and must
// never see user input.
func MustParse(s string) Decimal {
	d, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// String renders the value with the fewest fractional digits that represent it exactly, and at
// least one: "0.35", "1.0", "-2.5".
func (d Decimal) String() string {
	sign := ""
	v := int64(d)
	if v < 0 {
		sign, v = "-", -v
	}
	frac := strings.TrimRight(fmt.Sprintf("%06d", v%scale), "0")
	if frac == "" {
		frac = "0"
	}
	return fmt.Sprintf("%s%d.%s", sign, v/scale, frac)
}

// Fixed renders the value with exactly n fractional digits (0 ≤ n ≤ 6), rounding half away from
// zero: the form reports use so that columns line up.
func (d Decimal) Fixed(n int) string {
	if n < 0 || n > Places {
		n = Places
	}
	unit := int64(1)
	for range Places - n {
		unit *= 10
	}
	r := divRound(big.NewInt(int64(d)), big.NewInt(unit)).Int64()
	sign := ""
	if r < 0 {
		sign, r = "-", -r
	}
	if n == 0 {
		return sign + strconv.FormatInt(r, 10)
	}
	pow := int64(1)
	for range n {
		pow *= 10
	}
	return fmt.Sprintf("%s%d.%0*d", sign, r/pow, n, r%pow)
}

// MarshalText renders String, so a Decimal is a JSON string and never a JSON float.
func (d Decimal) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses what MarshalText wrote.
func (d *Decimal) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Mul returns d×e rounded half away from zero to six places.
func (d Decimal) Mul(e Decimal) Decimal {
	p := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(int64(e)))
	return Decimal(divRound(p, big.NewInt(scale)).Int64())
}

// Div returns d÷e rounded half away from zero to six places. Division by zero returns Zero and
// false.
func (d Decimal) Div(e Decimal) (Decimal, bool) {
	if e == 0 {
		return Zero, false
	}
	n := new(big.Int).Mul(big.NewInt(int64(d)), big.NewInt(scale))
	return Decimal(divRound(n, big.NewInt(int64(e))).Int64()), true
}

// Min returns the smaller of d and e.
func (d Decimal) Min(e Decimal) Decimal { return min(d, e) }

// Clamp limits d to [lo, hi].
func (d Decimal) Clamp(lo, hi Decimal) Decimal { return max(lo, min(d, hi)) }

// divRound divides n by m (m ≠ 0), rounding half away from zero.
func divRound(n, m *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(n, m, new(big.Int))
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	if twice.Cmp(new(big.Int).Abs(m)) >= 0 {
		if (n.Sign() < 0) != (m.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
