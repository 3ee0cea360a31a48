package pyvalue

import (
	"errors"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrRange: a number of a document has no Python value this package holds (an integer beyond
// 64 bits).
var ErrRange = errclass.New(errclass.Input, "pyvalue: number out of range")

// ScalarFunc gives the value of a scalar node by a reader's own rules (PyYAML's YAML 1.1
// resolution, say); ok false leaves the node to Python's json rules.
type ScalarFunc func(n *doc.Node) (v Value, ok bool, err error)

// FromNode builds the value Python's json.loads gives for the document tree n (internal/doc):
// null is None, numbers with a fraction or an exponent are floats and the others ints, objects
// are dicts in document order. scalar, when not nil, is asked first for every scalar, so that a
// YAML reader resolves scalars by the rules of the program it imitates. Errors are located at
// the node (file:line:column: path).
func FromNode(n *doc.Node, scalar ScalarFunc) (Value, error) {
	switch n.Kind() {
	case doc.Array:
		items := make([]Value, n.Len())
		for i, item := range n.Items() {
			v, err := FromNode(item, scalar)
			if err != nil {
				return Value{}, err
			}
			items[i] = v
		}
		return NewList(items), nil
	case doc.Object:
		keys := make([]string, n.Len())
		vals := make([]Value, n.Len())
		for i, m := range n.Members() {
			v, err := FromNode(m.Value, scalar)
			if err != nil {
				return Value{}, err
			}
			keys[i], vals[i] = m.Key, v
		}
		return NewDict(keys, vals), nil
	}
	if scalar != nil {
		if v, ok, err := scalar(n); ok || err != nil {
			return v, err
		}
	}
	switch n.Kind() {
	case doc.Bool:
		return NewBool(n.Text() == "true"), nil
	case doc.Number:
		v, err := Number(n.Text())
		if err != nil {
			e := n.Errorf("%v", err).(*doc.Error)
			e.Err = ErrRange
			return Value{}, e
		}
		return v, nil
	case doc.String:
		return NewStr(n.Text()), nil
	}
	return Value{}, nil
}

// Number is the value Python's json module gives a JSON number literal: a float when it has a
// fraction or an exponent (±inf beyond the range of a double, as float() gives), else an int
// (at most 64 bits here, where Python's int has no bound).
func Number(lit string) (Value, error) {
	if !strings.ContainsAny(lit, ".eE") {
		i, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return Value{}, errors.New("integer " + lit + " does not fit in 64 bits")
		}
		return NewInt(i), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return Value{}, errors.New("number " + lit + " is not a JSON number")
	}
	return NewFloat(f), nil
}

// Loads is json.loads(data) on a document named name: the text is parsed by internal/doc
// (its limits, and its strictness where RFC 8259 leaves room: no duplicate names, no NaN or
// Infinity, no unpaired surrogates, which Python would accept) and built with FromNode.
func Loads(name string, data []byte) (Value, error) {
	n, err := doc.ParseJSON(name, data, doc.Limits{})
	if err != nil {
		return Value{}, err
	}
	return FromNode(n, nil)
}
