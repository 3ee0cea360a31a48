package oasisctl

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// maxDepth bounds the nesting of a report. Reports nest a handful of levels.
const maxDepth = 64

// line is the line a value starts on.
func line(n *doc.Node) int { return n.Pos().Line }

// keyPath and indexPath build the dotted paths findings and errors name: "safety_summary.
// passed_count", "scenario_details[3].status" (doc.Path.String's form, built for values that
// may be absent).
func keyPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string {
	return parent + "[" + strconv.Itoa(i) + "]"
}

// reader walks a report's tree, keeps the first type error, and records the fields no shape
// defines.
type reader struct {
	claim *Claim
	err   error
}

func (r *reader) fail(n *doc.Node, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %w", ErrMalformed, n.TypeError(want))
	}
}

// obj is an object of the report being read. n is nil when the object is absent.
type obj struct {
	r    *reader
	n    *doc.Node
	path string
	used map[string]bool
}

func (r *reader) object(n *doc.Node, path string) *obj {
	o := &obj{r: r, path: path, used: map[string]bool{}}
	switch n.Kind() {
	case 0, doc.Null:
	case doc.Object:
		o.n = n
	default:
		r.fail(n, "an object")
	}
	return o
}

// value returns a member and marks it read; absent and null members are nil.
func (o *obj) value(key string) (*doc.Node, string) {
	o.used[key] = true
	return nullToNil(o.n.Get(key)), keyPath(o.path, key)
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
	for _, m := range o.n.Members() {
		if !o.used[m.Key] {
			o.r.claim.Unknown = append(o.r.claim.Unknown, Claimed[string]{Value: m.Key, Present: true, Path: keyPath(o.path, m.Key), Line: line(m.Value)})
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
	c.Line = line(v)
	if v.Kind() != doc.String {
		o.r.fail(v, "a string")
		return c
	}
	c.Value, c.Present = v.Text(), true
	return c
}

func (o *obj) boolean(key string) Claimed[bool] {
	v, path := o.value(key)
	c := Claimed[bool]{Path: path}
	if v == nil {
		return c
	}
	c.Line = line(v)
	if v.Kind() != doc.Bool {
		o.r.fail(v, "a boolean")
		return c
	}
	c.Value, c.Present = v.Text() == "true", true
	return c
}

func (o *obj) integer(key string) Claimed[int] {
	v, path := o.value(key)
	return o.r.integer(v, path)
}

func (r *reader) integer(v *doc.Node, path string) Claimed[int] {
	c := Claimed[int]{Path: path}
	if v == nil {
		return c
	}
	c.Line = line(v)
	n, err := strconv.Atoi(v.Text())
	if v.Kind() != doc.Number || err != nil {
		r.fail(v, "an integer")
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

func (r *reader) score(v *doc.Node, path string) Claimed[decimal.Decimal] {
	c := Claimed[decimal.Decimal]{Path: path}
	if v == nil {
		return c
	}
	c.Line = line(v)
	if v.Kind() != doc.Number && v.Kind() != doc.String {
		r.fail(v, "a number")
		return c
	}
	d, err := parseDecimal(v.Text())
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("%w: %w", ErrMalformed, v.Errorf("%q is not a decimal number: %v", v.Text(), err))
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
	c.Line = line(v)
	if v.Kind() != doc.Array {
		o.r.fail(v, "an array")
		return c
	}
	for _, item := range v.Items() {
		if item.Kind() != doc.String {
			o.r.fail(item, "a string")
			return c
		}
		c.Value = append(c.Value, item.Text())
	}
	c.Present = true
	return c
}

// list returns an array member, nil when it is absent, null or not an array.
func (o *obj) list(key string) (*doc.Node, string) {
	v, path := o.value(key)
	if v == nil {
		return nil, path
	}
	if v.Kind() != doc.Array {
		o.r.fail(v, "an array")
		return nil, path
	}
	return v, path
}

// each reads every item of an array member as an object at its path, calling read with the
// item and its object, then recording the object's unread members; it returns whether the
// member is present.
func (o *obj) each(key string, read func(item *doc.Node, s *obj)) bool {
	list, path := o.list(key)
	if list == nil {
		return false
	}
	for i, item := range list.Items() {
		s := o.r.object(item, indexPath(path, i))
		read(item, s)
		s.finish()
	}
	return true
}

// members returns the members of an object member (a map in the report) sorted by key, and
// marks the member read.
func (o *obj) members(key string) ([]doc.Member, string) {
	v, path := o.value(key)
	return o.r.membersOf(v), path
}

// membersOf returns the members of an object sorted by key; nil for nil or null.
func (r *reader) membersOf(v *doc.Node) []doc.Member {
	switch v.Kind() {
	case 0, doc.Null:
		return nil
	case doc.Object:
		out := slices.Clone(v.Members())
		slices.SortFunc(out, func(a, b doc.Member) int { return strings.Compare(a.Key, b.Key) })
		return out
	}
	r.fail(v, "an object")
	return nil
}

// configuration reads an agent configuration: dimension → scalar, as literal text.
func (r *reader) configuration(o *obj, key string) {
	ms, _ := o.members(key)
	for _, m := range ms {
		r.claim.Configuration = append(r.claim.Configuration, ConfigValue{Key: m.Key, Value: literal(m.Value), Line: line(m.Value)})
	}
}

// literals reads an object of name → any value as name → literal text (see literal).
func (r *reader) literals(o *obj, key string) map[string]string {
	ms, _ := o.members(key)
	if len(ms) == 0 {
		return nil
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		out[m.Key] = literal(m.Value)
	}
	return out
}

// literal is a value as a run manifest keeps configuration values: a scalar's text (a YAML
// number as written), booleans as true or false, null as "null", an array or object as its
// compact JSON.
func literal(v *doc.Node) string {
	switch v.Kind() {
	case doc.Array, doc.Object:
		return string(v.Compact())
	case doc.Number:
		if ys, ok := v.YAMLScalar(); ok {
			return ys.Value
		}
	}
	return v.Text()
}

// scores reads a map of name → score (or name → {score, archetypes_evaluated}).
func (r *reader) scores(o *obj, key string) []ScoreClaim {
	ms, path := o.members(key)
	out := []ScoreClaim{}
	for _, m := range ms {
		p := keyPath(path, m.Key)
		sc := ScoreClaim{Name: m.Key}
		if m.Value.Kind() == doc.Object {
			entry := r.object(m.Value, p)
			sc.Score = entry.score("score")
			sc.ArchetypesEvaluated = entry.integer("archetypes_evaluated")
			entry.known("maps_to_dimensions", "method", "scenarios")
			entry.finish()
		} else {
			sc.Score = r.score(nullToNil(m.Value), p)
		}
		out = append(out, sc)
	}
	return out
}

func nullToNil(n *doc.Node) *doc.Node {
	if n.Kind() == doc.Null {
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
