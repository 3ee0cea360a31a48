package pyre

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Error is Python's re.error: a pattern Python's re refuses to compile. Its text is
// str(re.error) as Python writes it ("missing ), unterminated subpattern at position 0"),
// which Kensa quotes in an invalid pattern's detail.
type Error struct {
	Msg string
	// Pos is the position in the pattern, in code points, or -1 when Python gives none.
	Pos     int
	pattern []rune
}

// Error is str(re.error): the message, " at position N" when there is a position, and the
// line and column when the pattern has more than one line (re.error.__init__).
func (e *Error) Error() string {
	if e.Pos < 0 {
		return e.Msg
	}
	msg := fmt.Sprintf("%s at position %d", e.Msg, e.Pos)
	if !strings.ContainsRune(string(e.pattern), '\n') {
		return msg
	}
	line, col := 1, e.Pos+1
	for i, c := range e.pattern[:min(e.Pos, len(e.pattern))] {
		if c == '\n' {
			line++
			col = e.Pos - i
		}
	}
	return fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
}

var (
	// ErrStepBudget is returned when a search would take more than its step budget: sre has no
	// such bound and would go on (a catastrophic pattern can run for hours), so the outcome
	// cannot be re-derived here. The budget counts matcher steps, never time, so the same
	// pattern and text give the same outcome on every machine.
	ErrStepBudget = errclass.New(errclass.Input, "pyre: step budget exceeded")
	// ErrNotReError is a pattern on which Python's re.compile raises something other than
	// re.error (OverflowError for a repeat count of 2**32 - 1 or more, ValueError for the ASCII
	// and UNICODE flags together): a caller that catches only re.error, as Kensa does, fails
	// with it.
	ErrNotReError = errclass.New(errclass.Input, "pyre: Python raises an exception other than re.error")
	// ErrUnsupported is a pattern this package cannot read as Python would: a \N{name} whose
	// name is not in the Unicode character database (Python also knows the aliases of
	// NameAliases.txt, which are not carried here), or groups nested deeper than Python's
	// parser can recurse.
	ErrUnsupported = errclass.New(errclass.Input, "pyre: unsupported")
)

// ErrorClass implements errclass.Classifier: a pattern Python refuses is the user's input.
func (e *Error) ErrorClass() errclass.Class { return errclass.Input }
