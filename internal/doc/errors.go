package doc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// The classes of error the package reports. Every *Error wraps one of them (Errorf may wrap
// the caller's own instead), so callers test the class with errors.Is. All are input errors
// (errclass.Input): the document, not the program, is at fault.
var (
	// ErrSyntax: the input is not a well-formed document of its format.
	ErrSyntax = errclass.New(errclass.Input, "doc: syntax")
	// ErrLimit: the input exceeds one of the Limits.
	ErrLimit = errclass.New(errclass.Input, "doc: limit exceeded")
	// ErrDuplicateKey: an object names the same member twice.
	ErrDuplicateKey = errclass.New(errclass.Input, "doc: duplicate key")
	// ErrType: a value does not have the type or range its reader wants (a string where a
	// list is wanted, 300 for an int8, a required field missing, a number no IEEE double holds
	// exactly for the canonical form, an unsupported YAML tag).
	ErrType = errclass.New(errclass.Input, "doc: type")
	// ErrUnknownField: Decode met an object member its target struct has no field for.
	ErrUnknownField = errclass.New(errclass.Input, "doc: unknown field")
)

// Error is a problem at a place in a document. Its text is
//
//	file:line:column: path: message
//
// where the line and column are left out when unknown (column alone when only the line is
// known), the path is left out for the document itself, and the path is written as a field
// path ("checks[2].params.tools", see Path.String); Path.Pointer gives its JSON Pointer.
// Example: "scenarios/x.yaml:12:5: checks[2].params.tools: want a list of strings, got a
// string". The text does not repeat the class: errors.Is(err, ErrType) tells it.
type Error struct {
	File string
	// Line and Column are 1-based; 0 when unknown. Column counts characters (Unicode code
	// points), not bytes.
	Line, Column int
	// Offset is the 0-based byte offset in the file; -1 when unknown (YAML).
	Offset int64
	// Path locates the value in the document; empty for the document itself.
	Path Path
	// Msg says what is wrong, without the location.
	Msg string
	// Err is the class (ErrSyntax, ErrLimit, …) or the cause; it may be nil.
	Err error
	// Limit names the field of Limits exceeded ("MaxNodes") when Err is ErrLimit, so that a
	// reader with limits of its own can name its own.
	Limit string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Column))
		}
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p := shortPath(e.Path); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxErrorPathSteps is the length of path an error message writes in full; a longer one (only
// hostile nesting makes one) keeps its first and last steps around "…".
const maxErrorPathSteps = 24

func shortPath(p Path) string {
	if len(p) <= maxErrorPathSteps {
		return p.String()
	}
	half := maxErrorPathSteps / 2
	tail := p[len(p)-half:].String()
	if !p[len(p)-half].IsIndex {
		tail = "." + tail
	}
	return p[:half].String() + "…" + tail
}

// Unwrap returns the class or cause.
func (e *Error) Unwrap() error { return e.Err }

// Pos returns where the error is.
func (e *Error) Pos() Pos {
	return Pos{File: e.File, Line: e.Line, Column: e.Column, Offset: e.Offset}
}

// newError builds an error at pos.
func newError(pos Pos, path Path, class error, format string, args ...any) *Error {
	return &Error{File: pos.File, Line: pos.Line, Column: pos.Column, Offset: pos.Offset, Path: path,
		Msg: fmt.Sprintf(format, args...), Err: class}
}

// limitError names the limit exceeded and its value.
func limitError(pos Pos, path Path, limit string, value int64, format string, args ...any) *Error {
	e := newError(pos, path, ErrLimit, format, args...)
	e.Msg += fmt.Sprintf(" (Limits.%s is %d)", limit, value)
	e.Limit = limit
	return e
}

// Errorf returns an error located at n: its file, line, column and path. The message is
// formatted as fmt.Errorf formats it; a %w verb makes the error wrap that operand, so callers
// can attach their own class:
//
//	return n.Errorf("%w: unknown check %q", kensa.ErrScenario, name)
func (n *Node) Errorf(format string, args ...any) error {
	wrapped := fmt.Errorf(format, args...)
	e := &Error{Msg: wrapped.Error(), Err: errors.Unwrap(wrapped), Offset: -1}
	if n != nil {
		pos := n.Pos()
		e.File, e.Line, e.Column, e.Offset, e.Path = pos.File, pos.Line, pos.Column, pos.Offset, n.Path()
	}
	return e
}

// TypeError returns an ErrType error at n saying what was wanted and what n is:
// "want a list of strings, got a string".
func (n *Node) TypeError(want string) error {
	e := n.Errorf("want %s, got %s", want, n.Kind().Article()).(*Error)
	e.Err = ErrType
	return e
}
