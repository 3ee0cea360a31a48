// Package textout writes the line-oriented text that people read (replay's summary, the demo's
// walkthrough, the golden report): one call a line, and the first write error kept for the
// end, so the code that lays out the text is not interrupted by error checks.
package textout

import (
	"fmt"
	"io"
)

// Writer writes lines to an io.Writer until the first error, which Err returns.
type Writer struct {
	w   io.Writer
	err error
}

// New returns a Writer on w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Line writes one formatted line, unless an earlier write failed.
func (p *Writer) Line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

// Fail records err as the Writer's error, unless one is already recorded; later lines are
// dropped.
func (p *Writer) Fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// Err returns the first error met, or nil.
func (p *Writer) Err() error { return p.err }
