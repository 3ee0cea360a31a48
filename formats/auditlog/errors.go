package auditlog

import (
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Sentinel errors of the audit-log reader. Callers test them with errors.Is; every error the
// reader returns wraps one of them with the line, byte offset and field concerned.
var (
	// ErrMalformed: the payload is not valid JSON of the shape its media type names.
	ErrMalformed = errclass.New(errclass.Input, "auditlog: malformed audit log")
	// ErrTooLarge: one entry (a JSON line, or one element of an entries/items array) exceeds
	// the configured cap.
	ErrTooLarge = errclass.New(errclass.Input, "auditlog: entry too large")
	// ErrMediaType: the media type is not one of the three audit-log media types.
	ErrMediaType = errclass.New(errclass.Input, "auditlog: not an audit-log media type")
	// ErrPrincipalMismatch: the agent principal given by the caller differs from the
	// agent_principal the payload declares.
	ErrPrincipalMismatch = errclass.New(errclass.Input, "auditlog: agent principal mismatch")
	// ErrPrincipalLate: a scoped scan met the payload's agent_principal only after entries had
	// already been read without it. Scan again with Options.Principal set (ReadHeader finds it).
	ErrPrincipalLate = errclass.New(errclass.Internal, "auditlog: agent_principal declared after the entries")
)

// SyntaxError locates a problem in an audit log. It wraps ErrMalformed or ErrTooLarge.
type SyntaxError struct {
	// Line is the 1-based line of the offending byte (of the entry's first byte for ErrTooLarge).
	Line int
	// Offset is the 0-based byte offset of the offending byte in the payload.
	Offset int64
	// Field is the JSON path of the field concerned, such as "objectRef.name" or
	// "entries[3].verb"; "" when the problem is the document's structure.
	Field string
	// Msg says what is wrong.
	Msg string

	kind error
}

func (e *SyntaxError) Error() string {
	var b strings.Builder
	b.WriteString(e.kind.Error())
	b.WriteString(": line ")
	b.WriteString(strconv.Itoa(e.Line))
	b.WriteString(" (byte ")
	b.WriteString(strconv.FormatInt(e.Offset, 10))
	b.WriteString(")")
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns ErrMalformed or ErrTooLarge.
func (e *SyntaxError) Unwrap() error { return e.kind }

// joinField prefixes a JSON path with the member or element it sits in.
func joinField(parent, child string) string {
	switch {
	case child == "":
		return parent
	case parent == "":
		return child
	case child[0] == '[':
		return parent + child
	}
	return parent + "." + child
}

// indexField is the path element of array element i.
func indexField(i int) string { return "[" + strconv.Itoa(i) + "]" }
