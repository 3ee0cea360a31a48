package pyvalue

import (
	"math"
)

// Kind is the Python type of a Value.
type Kind uint8

// The kinds of Value: None, bool, int, float, str, list and dict.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindStr
	KindList
	KindDict
)

// Value is a JSON value with Python semantics. The zero Value is None.
//
// A Value is 40 bytes: its kind, the bits of a bool, int or float, a string, and a pointer to
// the elements or members of a list or dict. Readers build one for every value of a document,
// beside the document model's node (docs/decisions.md, "Memory of untrusted input").
type Value struct {
	kind Kind
	bits uint64 // bool: 0 or 1; int: its two's complement; float: math.Float64bits
	s    string
	c    *container
}

// container holds what a list or a dict holds.
type container struct {
	items []Value  // List: the elements; Dict: the member values
	keys  []string // Dict: member names in document order
}

// Constructors.
func NewStr(s string) Value { return Value{kind: KindStr, s: s} }
func NewInt(i int64) Value  { return Value{kind: KindInt, bits: uint64(i)} }
func NewFloat(f float64) Value {
	return Value{kind: KindFloat, bits: math.Float64bits(f)}
}
func NewBool(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.bits = 1
	}
	return v
}
func NewList(items []Value) Value { return Value{kind: KindList, c: &container{items: items}} }

// NewDict builds a dict from parallel key and value slices, in that order.
func NewDict(keys []string, vals []Value) Value {
	return Value{kind: KindDict, c: &container{items: vals, keys: keys}}
}

func (v Value) boolean() bool   { return v.kind == KindBool && v.bits != 0 }
func (v Value) integer() int64  { return int64(v.bits) }
func (v Value) float() float64  { return math.Float64frombits(v.bits) }
func (v Value) list() []Value   { return v.Items() }
func (v Value) values() []Value { return v.children(KindDict) }

// children returns the container's values of a list or a dict (kind), nil otherwise.
func (v Value) children(kind Kind) []Value {
	if v.kind != kind || v.c == nil {
		return nil
	}
	return v.c.items
}

// Kind returns the value's Python type.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is None.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsStr returns the string and whether v is a str.
func (v Value) AsStr() (string, bool) { return v.s, v.kind == KindStr }

// AsBool returns the bool and whether v is a bool.
func (v Value) AsBool() (bool, bool) { return v.boolean(), v.kind == KindBool }

// AsInt returns the integer and whether v is an int (bools are not, here).
func (v Value) AsInt() (int64, bool) {
	if v.kind != KindInt {
		return 0, false
	}
	return v.integer(), true
}

// AsNumber returns v as a float64 and whether v is an int or a float (not a bool).
func (v Value) AsNumber() (float64, bool) {
	switch v.kind {
	case KindInt:
		return float64(v.integer()), true
	case KindFloat:
		return v.float(), true
	}
	return 0, false
}

// Items returns the elements of a list (nil otherwise).
func (v Value) Items() []Value { return v.children(KindList) }

// Keys returns the member names of a dict in order (nil otherwise).
func (v Value) Keys() []string {
	if v.kind != KindDict || v.c == nil {
		return nil
	}
	return v.c.keys
}

// Len is the number of elements or members.
func (v Value) Len() int {
	if v.kind == KindDict {
		return len(v.Keys())
	}
	return len(v.list())
}

// Get returns the member named k of a dict. Duplicate names keep the last, as Python does.
func (v Value) Get(k string) (Value, bool) {
	keys := v.Keys()
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == k {
			return v.values()[i], true
		}
	}
	return Value{}, false
}

// Members calls fn for each member of a dict in order.
func (v Value) Members(fn func(k string, m Value)) {
	vals := v.values()
	for i, k := range v.Keys() {
		fn(k, vals[i])
	}
}

// TypeName is Python's type name of v, for error messages.
func (v Value) TypeName() string {
	return [...]string{"NoneType", "bool", "int", "float", "str", "list", "dict"}[v.kind]
}

// Equal is Python's ==: numbers compare by value across int, float and bool; dicts by their
// members regardless of order; NaN is not equal to itself.
func (v Value) Equal(w Value) bool {
	if vn, ok := v.numeric(); ok {
		wn, ok := w.numeric()
		if !ok {
			return false
		}
		return numEqual(vn, wn)
	}
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindNull:
		return true
	case KindStr:
		return v.s == w.s
	case KindList:
		vl, wl := v.list(), w.list()
		if len(vl) != len(wl) {
			return false
		}
		for i := range vl {
			if !vl[i].Equal(wl[i]) {
				return false
			}
		}
		return true
	case KindDict:
		vk, wk := v.dedup(), w.dedup()
		if len(vk) != len(wk) {
			return false
		}
		for k, x := range vk {
			y, ok := wk[k]
			if !ok || !x.Equal(y) {
				return false
			}
		}
		return true
	}
	return false
}

type number struct {
	isFloat bool
	i       int64
	f       float64
}

func (v Value) numeric() (number, bool) {
	switch v.kind {
	case KindBool:
		return number{i: int64(v.bits)}, true
	case KindInt:
		return number{i: v.integer()}, true
	case KindFloat:
		return number{isFloat: true, f: v.float()}, true
	}
	return number{}, false
}

// numEqual compares exactly, as Python compares int with float.
func numEqual(a, b number) bool {
	switch {
	case !a.isFloat && !b.isFloat:
		return a.i == b.i
	case a.isFloat && b.isFloat:
		return a.f == b.f
	case a.isFloat:
		return floatEqualsInt(a.f, b.i)
	default:
		return floatEqualsInt(b.f, a.i)
	}
}

func floatEqualsInt(f float64, i int64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < -9.3e18 || f > 9.3e18 {
		return false
	}
	return int64(f) == i && float64(i) == f
}

func (v Value) dedup() map[string]Value {
	keys, vals := v.Keys(), v.values()
	m := make(map[string]Value, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}
