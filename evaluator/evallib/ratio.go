package evallib

import (
	"fmt"
	"math/big"
	"strings"
)

// Ratio is an exact non-negative rational number: a match rate, a distance, a mean of
// distances. Metrics are computed exactly and rounded only when they are shown (Places).
type Ratio struct{ r big.Rat }

// Places is the number of fractional digits metrics are shown with (the description prints
// shift magnitudes as 0.12, 0.05…; the issue asks for three places).
const Places = 3

// NewRatio returns num/den; den must not be zero.
func NewRatio(num, den int64) Ratio {
	var q Ratio
	q.r.SetFrac64(num, den)
	return q
}

// Rat returns the value as a *big.Rat (a copy).
func (q Ratio) Rat() *big.Rat { return new(big.Rat).Set(&q.r) }

// Cmp compares q and p: -1, 0 or +1.
func (q Ratio) Cmp(p Ratio) int { return q.r.Cmp(&p.r) }

// Fraction is the exact value in lowest terms, "1/3", "0/1": what verdicts keep beside the
// rounded value, so an auditor can check the rounding.
func (q Ratio) Fraction() string { return q.r.String() }

// Rounded is the value rounded half away from zero to Places fractional digits, always written
// with Places digits: "0.333", "1.000".
func (q Ratio) Rounded() string { return roundRat(&q.r, Places) }

// RoundedRatio is the value rounded to Places digits, as a Ratio: what flags compare.
func (q Ratio) RoundedRatio() Ratio {
	var out Ratio
	if _, ok := out.r.SetString(q.Rounded()); !ok {
		panic("evallib: rounded value does not parse: " + q.Rounded()) // impossible: Rounded writes a decimal
	}
	return out
}

// roundRat writes r rounded half away from zero to places fractional digits.
func roundRat(r *big.Rat, places int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	num := new(big.Int).Mul(r.Num(), scale)
	num.Abs(num)
	den := r.Denom()
	// q = floor((2·|num| + den) / (2·den)) rounds half away from zero.
	twice := new(big.Int).Lsh(num, 1)
	twice.Add(twice, den)
	q := twice.Quo(twice, new(big.Int).Lsh(den, 1))
	digits := q.String()
	if len(digits) <= places {
		digits = strings.Repeat("0", places-len(digits)+1) + digits
	}
	sign := ""
	if r.Sign() < 0 && strings.Trim(digits, "0") != "" {
		sign = "-"
	}
	cut := len(digits) - places
	if places == 0 {
		return sign + digits
	}
	return sign + digits[:cut] + "." + digits[cut:]
}

// ParseThreshold reads a threshold: a decimal number in [0, 1] with at most Places fractional
// digits ("0.5", "0.35", "1").
func ParseThreshold(s string) (Ratio, error) {
	var q Ratio
	text := strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(text, ".")
	if text == "" || whole == "" || len(frac) > Places || strings.ContainsAny(text, "eE+-/") {
		return q, fmt.Errorf("%w: threshold %q: want a decimal number between 0 and 1 with at most %d places", ErrThreshold, s, Places)
	}
	if _, ok := q.r.SetString(text); !ok {
		return q, fmt.Errorf("%w: threshold %q is not a number", ErrThreshold, s)
	}
	if q.r.Sign() < 0 || q.r.Cmp(big.NewRat(1, 1)) > 0 {
		return q, fmt.Errorf("%w: threshold %q is not between 0 and 1", ErrThreshold, s)
	}
	return q, nil
}

// mean returns sum/n, or false when n is zero.
func mean(sum *big.Rat, n int) (Ratio, bool) {
	if n == 0 {
		return Ratio{}, false
	}
	var q Ratio
	q.r.Quo(sum, new(big.Rat).SetInt64(int64(n)))
	return q, true
}
