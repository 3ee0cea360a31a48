package recorder

import (
	"errors"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Sentinel errors of the recorder. Callers test them with errors.Is; messages wrap them with
// the file, line, field or scenario concerned.
var (
	// ErrInput: an input cannot be recorded at all (malformed JSON, a truncated file, a
	// document of the wrong kind). Nothing was written to the store.
	ErrInput = errclass.New(errclass.Input, "recorder: input cannot be recorded")
	// ErrOptions: the recording was asked for with missing or conflicting options.
	ErrOptions = errclass.New(errclass.Input, "recorder: bad options")
	// ErrProfile: the profile to pin cannot be loaded, found or resolved.
	ErrProfile = errclass.New(errclass.Input, "recorder: profile")
	// ErrChanged: an input file changed between the validating pass and the writing pass.
	ErrChanged = errclass.New(errclass.InUse, "recorder: input changed while being recorded")
	// ErrClosed: a live recording (proxy, webhook) was already sealed.
	ErrClosed = errclass.New(errclass.Internal, "recorder: recording already sealed")
	// ErrJournal: a live recording's journal cannot be sealed (a damaged header, a record
	// that does not decode, a journal of another format).
	ErrJournal = errclass.New(errclass.Input, "recorder: journal")
	// ErrRedactionMismatch: a journal is sealed with other redaction settings than it was
	// recorded with.
	ErrRedactionMismatch = errclass.New(errclass.Input, "recorder: redaction differs from the recording's")
)

// InputError locates a problem in an input file. It wraps ErrInput.
type InputError struct {
	File   string // as given to the recorder
	Line   int    // 1-based; 0 when the problem concerns the whole file
	Column int    // 1-based, in characters; 0 when unknown
	Field  string // JSON path of the field concerned, "" for the document's structure
	Msg    string
	Err    error // the underlying error, if any
	// cause is wrapped but not printed: the error of a document reader whose position and
	// message the fields above already give.
	cause error
}

// docInputError makes an error of a document reader (a *doc.Error inside) an *InputError with
// its file, line, column and field; any other error names file.
func docInputError(file string, err error) error {
	var de *doc.Error
	if !errors.As(err, &de) {
		return &InputError{File: file, Msg: "cannot be read", Err: err}
	}
	return &InputError{File: de.File, Line: de.Line, Column: de.Column, Field: de.Path.String(), Msg: de.Msg, cause: err}
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteString(":")
			b.WriteString(strconv.Itoa(e.Column))
		}
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns ErrInput and the underlying error.
func (e *InputError) Unwrap() []error {
	out := []error{ErrInput}
	for _, err := range []error{e.Err, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}
