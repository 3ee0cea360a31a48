package kensa

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrInvalid: a Kensa file is malformed or breaks a rule of the format.
var ErrInvalid = errclass.New(errclass.Input, "kensa: invalid")

// invalid is an ErrInvalid error at n: "file:line:column: path: message" (a *doc.Error).
func invalid(n *doc.Node, format string, args ...any) error {
	e := n.Errorf(format, args...).(*doc.Error)
	e.Err = ErrInvalid
	return e
}

// missing is the error for a required member key absent from the object n.
func missing(n *doc.Node, key, format string, args ...any) error {
	e := invalid(n, format, args...).(*doc.Error)
	e.Path = e.Path.Key(key)
	return e
}

// errorf is a message without a place yet, which invalid places.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
