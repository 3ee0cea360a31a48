package report

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

// reader walks a report's tree, keeps the first type error, and records the fields no shape
// defines.
type reader struct {
	claim *Claim
	err   error
}

func (r *reader) fail(n *node, path, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: line %d: %s: want %s, got %s", ErrMalformed, n.line, describePath(path), want, n.kind)
	}
}

// obj is an object of the report being read. n is nil when the object is absent.
type obj struct {
	r    *reader
	n    *node
	path string
	used map[string]bool
}

func (r *reader) object(n *node, path string) *obj {
	o := &obj{r: r, path: path, used: map[string]bool{}}
	switch {
	case n == nil || n.kind == kindNull:
	case n.kind == kindObject:
		o.n = n
	default:
		r.fail(n, path, "an object")
	}
	return o
}

// value returns a member and marks it read; absent and null members are nil.
func (o *obj) value(key string) (*node, string) {
	o.used[key] = true
	path := keyPath(o.path, key)
	v, ok := o.n.get(key)
	if !ok || v.kind == kindNull {
		return nil, path
	}
	return v, path
}

// known marks members read without interpreting them: fields the shape defines that the
// comparison does not use.
func (o *obj) known(keys ...string) {
	for _, k := range keys {
		o.used[k] = true
	}
}

// finish records every member that was not read as an unknown field.
func (o *obj) finish() {
	if o.n == nil {
		return
	}
	for _, m := range o.n.members {
		if !o.used[m.key] {
			o.r.claim.Unknown = append(o.r.claim.Unknown, Claimed[string]{Value: m.key, Present: true, Path: keyPath(o.path, m.key), Line: m.value.line})
		}
	}
}

func (o *obj) child(key string) *obj {
	v, path := o.value(key)
	return o.r.object(v, path)
}

func (o *obj) str(key string) Claimed[string] {
	v, path := o.value(key)
	c := Claimed[string]{Path: path}
	if v == nil {
		return c
	}
	c.Line = v.line
	if v.kind != kindString {
		o.r.fail(v, path, "a string")
		return c
	}
	c.Value, c.Present = v.text, true
	return c
}

func (o *obj) boolean(key string) Claimed[bool] {
	v, path := o.value(key)
	c := Claimed[bool]{Path: path}
	if v == nil {
		return c
	}
	c.Line = v.line
	if v.kind != kindBool {
		o.r.fail(v, path, "a boolean")
		return c
	}
	c.Value, c.Present = v.text == "true", true
	return c
}

func (o *obj) integer(key string) Claimed[int] {
	v, path := o.value(key)
	return o.r.integer(v, path)
}

func (r *reader) integer(v *node, path string) Claimed[int] {
	c := Claimed[int]{Path: path}
	if v == nil {
		return c
	}
	c.Line = v.line
	n, err := strconv.Atoi(v.text)
	if v.kind != kindNumber || err != nil {
		r.fail(v, path, "an integer")
		return c
	}
	c.Value, c.Present = n, true
	return c
}

// score reads a score: a JSON or YAML number, or a decimal string (oasis-replay verdicts write
// scores as strings), rounded half away from zero to decimal.Places.
func (o *obj) score(key string) Claimed[decimal.Decimal] {
	v, path := o.value(key)
	return o.r.score(v, path)
}

func (r *reader) score(v *node, path string) Claimed[decimal.Decimal] {
	c := Claimed[decimal.Decimal]{Path: path}
	if v == nil {
		return c
	}
	c.Line = v.line
	if v.kind != kindNumber && v.kind != kindString {
		r.fail(v, path, "a number")
		return c
	}
	d, err := parseDecimal(v.text)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("%w: line %d: %s: %q is not a decimal number: %v", ErrMalformed, v.line, path, v.text, err)
		}
		return c
	}
	c.Value, c.Present = d, true
	return c
}

// strs reads a list of strings.
func (o *obj) strs(key string) Claimed[[]string] {
	v, path := o.value(key)
	c := Claimed[[]string]{Path: path, Value: []string{}}
	if v == nil {
		return c
	}
	c.Line = v.line
	if v.kind != kindArray {
		o.r.fail(v, path, "a list")
		return c
	}
	for i, item := range v.items {
		if item.kind != kindString {
			o.r.fail(item, indexPath(path, i), "a string")
			return c
		}
		c.Value = append(c.Value, item.text)
	}
	c.Present = true
	return c
}

// list returns a list member, nil when it is absent, null or not a list.
func (o *obj) list(key string) (*node, string) {
	v, path := o.value(key)
	if v == nil {
		return nil, path
	}
	if v.kind != kindArray {
		o.r.fail(v, path, "a list")
		return nil, path
	}
	return v, path
}

// members returns the members of an object member (a map in the report) sorted by key, and
// marks the member read.
func (o *obj) members(key string) ([]member, string) {
	v, path := o.value(key)
	return o.r.membersOf(v, path), path
}

// membersOf returns the members of an object sorted by key; nil for nil or null.
func (r *reader) membersOf(v *node, path string) []member {
	if v == nil || v.kind == kindNull {
		return nil
	}
	if v.kind != kindObject {
		r.fail(v, path, "an object")
		return nil
	}
	out := slices.Clone(v.members)
	slices.SortFunc(out, func(a, b member) int { return strings.Compare(a.key, b.key) })
	return out
}

// configuration reads an agent configuration: dimension → scalar, as literal text.
func (r *reader) configuration(o *obj, key string) {
	ms, path := o.members(key)
	for _, m := range ms {
		v := m.value
		if v.kind == kindArray || v.kind == kindObject {
			r.fail(v, keyPath(path, m.key), "a scalar")
			return
		}
		text := v.text
		if v.kind == kindNull {
			text = "null"
		}
		r.claim.Configuration = append(r.claim.Configuration, ConfigValue{Key: m.key, Value: text, Line: v.line})
	}
}

// scores reads a map of name → score (or name → {score, archetypes_evaluated}).
func (r *reader) scores(o *obj, key string) []ScoreClaim {
	ms, path := o.members(key)
	out := []ScoreClaim{}
	for _, m := range ms {
		p := keyPath(path, m.key)
		sc := ScoreClaim{Name: m.key}
		if m.value.kind == kindObject {
			entry := r.object(m.value, p)
			sc.Score = entry.score("score")
			sc.ArchetypesEvaluated = entry.integer("archetypes_evaluated")
			entry.known("maps_to_dimensions", "method", "scenarios")
			entry.finish()
		} else {
			sc.Score = r.score(nullToNil(m.value), p)
		}
		out = append(out, sc)
	}
	return out
}

func nullToNil(n *node) *node {
	if n != nil && n.kind == kindNull {
		return nil
	}
	return n
}

// maxExponent bounds the exponent of a claimed score: anything beyond it is no score.
const maxExponent = 30

// parseDecimal reads a decimal number ("0.75", "-1", "6.6666666666e-1") and rounds it half
// away from zero to decimal.Places, so that claimed floats compare with re-derived fixed-point
// scores the way a person reading both would compare them.
func parseDecimal(text string) (decimal.Decimal, error) {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.Atoi(text[i+1:])
		if err != nil || e > maxExponent || e < -maxExponent {
			return 0, fmt.Errorf("exponent out of range")
		}
		mant, exp = text[:i], e
	}
	digits := strings.TrimLeft(mant, "+-")
	intPart, frac, _ := strings.Cut(digits, ".")
	if intPart+frac == "" || strings.Trim(intPart+frac, "0123456789") != "" || len(mant)-len(digits) > 1 {
		return 0, fmt.Errorf("not a plain decimal")
	}
	if len(intPart+frac) > 40 {
		return 0, fmt.Errorf("too many digits")
	}
	r, ok := new(big.Rat).SetString(mant)
	if !ok {
		return 0, fmt.Errorf("not a plain decimal")
	}
	shift := decimal.Places + exp
	pow := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(shift, -shift))), nil))
	if shift >= 0 {
		r.Mul(r, pow)
	} else {
		r.Quo(r, pow)
	}
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Sign() != 0 && new(big.Int).Mul(new(big.Int).Abs(rem), big.NewInt(2)).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(int64(r.Sign())))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("out of range")
	}
	return decimal.Decimal(q.Int64()), nil
}
