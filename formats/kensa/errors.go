package kensa

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrInvalid: a Kensa file is malformed or breaks a rule of the format.
var ErrInvalid = errclass.New(errclass.Input, "kensa: invalid")

// fileError is an error at a place in a file.
func fileError(file string, line int, field, format string, args ...any) error {
	where := file
	if line > 0 {
		where = fmt.Sprintf("%s:%d", file, line)
	}
	if field != "" {
		where += ": " + field
	}
	return fmt.Errorf("%w: %s: %s", ErrInvalid, where, fmt.Sprintf(format, args...))
}
