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
type Value struct {
	kind Kind
	b    bool
	i    int64
	f    float64
	s    string
	list []Value
	keys []string // Dict: member names in document order
	vals []Value
}

// Constructors.
func NewStr(s string) Value       { return Value{kind: KindStr, s: s} }
func NewInt(i int64) Value        { return Value{kind: KindInt, i: i} }
func NewFloat(f float64) Value    { return Value{kind: KindFloat, f: f} }
func NewBool(b bool) Value        { return Value{kind: KindBool, b: b} }
func NewList(items []Value) Value { return Value{kind: KindList, list: items} }

// NewDict builds a dict from parallel key and value slices, in that order.
func NewDict(keys []string, vals []Value) Value {
	return Value{kind: KindDict, keys: keys, vals: vals}
}

// Kind returns the value's Python type.
func (v Value) Kind() Kind { return v.kind }

// IsNull reports whether v is None.
func (v Value) IsNull() bool { return v.kind == KindNull }

// AsStr returns the string and whether v is a str.
func (v Value) AsStr() (string, bool) { return v.s, v.kind == KindStr }

// AsBool returns the bool and whether v is a bool.
func (v Value) AsBool() (bool, bool) { return v.b, v.kind == KindBool }

// AsInt returns the integer and whether v is an int (bools are not, here).
func (v Value) AsInt() (int64, bool) { return v.i, v.kind == KindInt }

// AsNumber returns v as a float64 and whether v is an int or a float (not a bool).
func (v Value) AsNumber() (float64, bool) {
	switch v.kind {
	case KindInt:
		return float64(v.i), true
	case KindFloat:
		return v.f, true
	}
	return 0, false
}

// Items returns the elements of a list (nil otherwise).
func (v Value) Items() []Value { return v.list }

// Keys returns the member names of a dict in order (nil otherwise).
func (v Value) Keys() []string { return v.keys }

// Len is the number of elements or members.
func (v Value) Len() int {
	if v.kind == KindDict {
		return len(v.keys)
	}
	return len(v.list)
}

// Get returns the member named k of a dict. Duplicate names keep the last, as Python does.
func (v Value) Get(k string) (Value, bool) {
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == k {
			return v.vals[i], true
		}
	}
	return Value{}, false
}

// Members calls fn for each member of a dict in order.
func (v Value) Members(fn func(k string, m Value)) {
	for i, k := range v.keys {
		fn(k, v.vals[i])
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
		if len(v.list) != len(w.list) {
			return false
		}
		for i := range v.list {
			if !v.list[i].Equal(w.list[i]) {
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
		if v.b {
			return number{i: 1}, true
		}
		return number{}, true
	case KindInt:
		return number{i: v.i}, true
	case KindFloat:
		return number{isFloat: true, f: v.f}, true
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
	m := make(map[string]Value, len(v.keys))
	for i, k := range v.keys {
		m[k] = v.vals[i]
	}
	return m
}
