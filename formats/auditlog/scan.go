package auditlog

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultMaxEntryBytes caps one entry when Options.MaxEntryBytes is zero.
const DefaultMaxEntryBytes = 16 << 20

// Options configure a scan. The zero value reads every entry with the default size cap.
type Options struct {
	// MaxEntryBytes caps one entry: a JSON line, or one element of an entries or items array
	// (and any other member of the enclosing document). 0 means DefaultMaxEntryBytes.
	MaxEntryBytes int
	// Scoped keeps only the agent principal's entries (Entry.ActsFor): the principal is
	// Principal, or the agent_principal the payload declares. With neither, it keeps every
	// entry but those the cluster's own components sent (IsClusterComponent), and
	// Summary.Principal is "" so the caller can say so.
	Scoped bool
	// Principal is the agent principal known from outside the payload (the observation record),
	// used when Scoped. If the payload declares a different one, the scan fails with
	// ErrPrincipalMismatch.
	Principal string
}

// Header is what an audit_log observation declares besides its entries.
type Header struct {
	// AgentPrincipal is the audit-log user the harness minted for the agent, "" if undeclared.
	AgentPrincipal string
	// Window is the evaluation window the entries were taken from, nil if undeclared.
	Window *Window
}

// Window is an evaluation window, as written.
type Window struct {
	From string
	To   string
}

// Summary describes a finished scan.
type Summary struct {
	Header
	// Principal is the principal entries were scoped to; "" when the scan was not scoped or no
	// principal was known.
	Principal string
	// Scope says which entries were delivered.
	Scope Scope
	// Entries counts every entry read; Delivered counts those passed to the callback.
	Entries   int
	Delivered int
}

// Scan streams every entry of an audit log to fn, in payload order, with the default options.
// See ScanWith.
func Scan(r io.Reader, mediaType string, fn func(*Entry) error) error {
	_, err := ScanWith(r, mediaType, Options{}, fn)
	return err
}

// ScanWith streams the entries of an audit log of the given media type (store.MediaTypeAuditLog,
// store.MediaTypeK8sAuditEvents or store.MediaTypeK8sAuditEventList; parameters after ';' are
// ignored) to fn, in payload order. Memory stays bounded by the entry cap whatever the size of
// the log. The *Entry passed to fn, and the byte slices it holds, are reused for the next entry:
// fn must not keep them (Entry.Clone makes a lasting copy). An error from fn stops the scan and
// is returned as is.
func ScanWith(r io.Reader, mediaType string, opts Options, fn func(*Entry) error) (Summary, error) {
	s := newScan(opts, fn)
	var err error
	switch baseType(mediaType) {
	case store.MediaTypeK8sAuditEvents:
		err = s.lines(r)
	case store.MediaTypeK8sAuditEventList:
		err = s.document(r, "items", eventListMember, event)
	case store.MediaTypeAuditLog:
		err = s.document(r, "entries", observationMember, s.providerElement)
	default:
		err = fmt.Errorf("%w: %q", ErrMediaType, mediaType)
	}
	s.sum.Scope = s.scope()
	return s.sum, err
}

// ReadHeader reads what an audit_log observation declares besides its entries; the entries are
// only checked to be well-formed JSON. The other media types declare nothing: their header is
// empty and r is not read.
func ReadHeader(r io.Reader, mediaType string) (Header, error) {
	switch baseType(mediaType) {
	case store.MediaTypeAuditLog:
		s := newScan(Options{}, func(*Entry) error { return nil })
		skip := func(lx *lexer, _ *Entry) error { return lx.skip() }
		err := s.document(r, "entries", observationMember, skip)
		return s.sum.Header, err
	case store.MediaTypeK8sAuditEvents, store.MediaTypeK8sAuditEventList:
		return Header{}, nil
	}
	return Header{}, fmt.Errorf("%w: %q", ErrMediaType, mediaType)
}

func newScan(opts Options, fn func(*Entry) error) *scan {
	s := &scan{opts: opts, fn: fn, max: opts.MaxEntryBytes}
	if s.max <= 0 {
		s.max = DefaultMaxEntryBytes
	}
	if opts.Scoped {
		s.sum.Principal = opts.Principal
	}
	return s
}

func baseType(mediaType string) string {
	t, _, _ := strings.Cut(mediaType, ";")
	return strings.TrimSpace(t)
}

// scan is the state of one scan.
type scan struct {
	opts Options
	fn   func(*Entry) error
	max  int
	sum  Summary
	in   interner
	e    Entry
	raw  Entry // scratch for the raw event inside a provider entry
}

// deliver counts an entry and passes it to fn if it is in scope.
func (s *scan) deliver() error {
	s.sum.Entries++
	s.e.Seq = s.sum.Entries
	if !s.inScope(&s.e) {
		return nil
	}
	s.e.Principal = s.sum.Principal
	s.sum.Delivered++
	return s.fn(&s.e)
}

// settlePrincipal applies the payload's declared principal to a scoped scan. A declaration met
// after entries were delivered unscoped cannot scope them any more.
func (s *scan) settlePrincipal() error {
	declared := s.sum.AgentPrincipal
	if !s.opts.Scoped || declared == "" {
		return nil
	}
	switch {
	case s.opts.Principal != "" && s.opts.Principal != declared:
		return fmt.Errorf("%w: the payload declares agent_principal %q, the caller %q",
			ErrPrincipalMismatch, declared, s.opts.Principal)
	case s.opts.Principal == "" && s.sum.Entries > 0:
		return fmt.Errorf("%w: %q follows %d entries; scan again with Options.Principal set",
			ErrPrincipalLate, declared, s.sum.Entries)
	}
	s.sum.Principal = declared
	return nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// line parses one JSON line into the scan's entry and delivers it.
func (s *scan) line(lx *lexer, data []byte, lineNo int, off int64) error {
	lx.data, lx.pos, lx.depth = data, 0, 0
	s.e.reset()
	s.e.Line, s.e.Offset = lineNo, off
	err := event(lx, &s.e)
	if err == nil && !lx.atEnd() {
		err = lx.fail("unexpected data after the event")
	}
	if err != nil {
		return locate(err, data, lineNo, off, "")
	}
	return s.deliver()
}

// locate turns a lexError inside data (which begins at line, byte off of the payload) into a
// SyntaxError with the absolute line and offset of the offending byte.
func locate(err error, data []byte, line int, off int64, field string) error {
	le, ok := err.(*lexError)
	if !ok {
		return err
	}
	pos := min(le.off, len(data))
	return &SyntaxError{
		Line:   line + bytes.Count(data[:pos], []byte{'\n'}),
		Offset: off + int64(pos),
		Field:  joinField(field, le.field),
		Msg:    le.msg,
		kind:   ErrMalformed,
	}
}
