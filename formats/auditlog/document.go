package auditlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A document payload (an audit_log observation, an EventList) is one JSON object holding an
// array of entries. It is read as a stream: the reader walks the top-level object itself and
// cuts each array element, and each other member, into a buffer no larger than the entry cap,
// which the in-memory lexer then parses and validates. Nothing else of the document is held.

// docReader reads a JSON document byte by byte, keeping track of offset and line.
type docReader struct {
	br   *bufio.Reader
	off  int64 // offset of the next byte
	line int   // line of the next byte
	max  int
	buf  []byte
}

// errEOF marks an unexpected end of input inside the document.
var errEOF = errors.New("unexpected end of input")

// readError is a failure of the underlying reader, as opposed to a problem with the bytes.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

func (d *docReader) next() (byte, error) {
	c, err := d.br.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, errEOF
		}
		return 0, &readError{err}
	}
	d.off++
	if c == '\n' {
		d.line++
	}
	return c, nil
}

func (d *docReader) unread(c byte) {
	_ = d.br.UnreadByte() // cannot fail right after a successful ReadByte
	d.off--
	if c == '\n' {
		d.line--
	}
}

// nonSpace returns the next byte that is not white space.
func (d *docReader) nonSpace() (byte, error) {
	for {
		c, err := d.next()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// value copies the JSON value that begins with c (already read) into d.buf and returns it. It
// only finds where the value ends; the lexer validates it.
func (d *docReader) value(c byte) ([]byte, error) {
	d.buf = append(d.buf[:0], c)
	switch c {
	case '{', '[':
		return d.nested()
	case '"':
		if err := d.stringRest(); err != nil {
			return nil, err
		}
		return d.buf, nil
	}
	// A scalar ends at the first delimiter, which belongs to the enclosing structure.
	for {
		c, err := d.next()
		if errors.Is(err, errEOF) {
			return d.buf, nil
		}
		if err != nil {
			return nil, err
		}
		switch c {
		case ' ', '\t', '\n', '\r', ',', '}', ']':
			d.unread(c)
			return d.buf, nil
		}
		if err := d.keep(c); err != nil {
			return nil, err
		}
	}
}

func (d *docReader) keep(c byte) error {
	if len(d.buf) >= d.max {
		return errTooLarge
	}
	d.buf = append(d.buf, c)
	return nil
}

var errTooLarge = errors.New("too large")

// nested copies an object or array up to its matching closing bracket.
func (d *docReader) nested() ([]byte, error) {
	depth := 1
	for depth > 0 {
		c, err := d.next()
		if err != nil {
			return nil, err
		}
		if err := d.keep(c); err != nil {
			return nil, err
		}
		switch c {
		case '"':
			if err := d.stringRest(); err != nil {
				return nil, err
			}
		case '{', '[':
			if depth++; depth > maxDepth {
				return nil, fmt.Errorf("nesting deeper than %d", maxDepth)
			}
		case '}', ']':
			depth--
		}
	}
	return d.buf, nil
}

// stringRest copies the rest of a string whose opening quote is already in d.buf.
func (d *docReader) stringRest() error {
	for {
		c, err := d.next()
		if err != nil {
			return err
		}
		if err := d.keep(c); err != nil {
			return err
		}
		switch c {
		case '"':
			return nil
		case '\\':
			c, err := d.next()
			if err != nil {
				return err
			}
			if err := d.keep(c); err != nil {
				return err
			}
		}
	}
}

// document walks the top-level object of a payload. Each element of the member named arrayKey
// is parsed by element and delivered; every other member goes to member, which may ignore it.
func (s *scan) document(r io.Reader, arrayKey string,
	member func(s *scan, key string, lx *lexer) error,
	element func(lx *lexer, e *Entry) error) error {

	d := &docReader{br: bufio.NewReaderSize(r, 64<<10), line: 1, max: s.max}
	if err := d.skipBOM(); err != nil {
		return s.docError(d, "", err)
	}
	c, err := d.nonSpace()
	if err == nil && c != '{' {
		d.unread(c)
		err = errors.New("want a JSON object")
	}
	if err != nil {
		return s.docError(d, "", err)
	}
	// Duplicates are refused for the members that are read; others are skipped whatever their
	// number, so that a document of a million unknown members costs no memory.
	seen := map[string]bool{}
	for first := true; ; first = false {
		c, err := d.nonSpace()
		if err != nil {
			return s.docError(d, "", err)
		}
		if c == '}' {
			break
		}
		if !first {
			if c != ',' {
				return s.docError(d, "", errors.New("want ',' or '}' after object member"))
			}
			if c, err = d.nonSpace(); err != nil {
				return s.docError(d, "", err)
			}
		}
		key, err := s.docKey(d, c)
		if err != nil {
			return err
		}
		if seen[key] {
			return s.docError(d, key, errors.New("duplicate member"))
		}
		if key == arrayKey || slices.Contains(headerMembers, key) {
			seen[key] = true
		}
		if key == arrayKey {
			err = s.array(d, key, element)
		} else {
			err = s.docMember(d, key, member)
		}
		if err != nil {
			return err
		}
	}
	if !seen[arrayKey] {
		return s.docError(d, arrayKey, errors.New("missing"))
	}
	if c, err := d.nonSpace(); !errors.Is(err, errEOF) {
		if err == nil {
			d.unread(c)
			err = errors.New("unexpected data after the document")
		}
		return s.docError(d, "", err)
	}
	return nil
}

// headerMembers are the members besides the entries that the reader interprets.
var headerMembers = []string{"agent_principal", "window", "kind"}

func (d *docReader) skipBOM() error {
	if b, err := d.br.Peek(len(utf8BOM)); err == nil && string(b) == string(utf8BOM) {
		_, err = d.br.Discard(len(utf8BOM))
		d.off += int64(len(utf8BOM))
		return err
	}
	return nil
}

func orWant(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// docKey reads a member key whose opening quote is c.
func (s *scan) docKey(d *docReader, c byte) (string, error) {
	if c != '"' {
		d.unread(c)
		return "", s.docError(d, "", errors.New("want object key"))
	}
	line, off := d.line, d.off-1
	raw, err := d.value(c)
	if err != nil {
		return "", s.docError(d, "", err)
	}
	lx := lexer{data: raw}
	key, err := lx.str()
	if err != nil {
		return "", locate(err, raw, line, off, "")
	}
	if c, err := d.nonSpace(); err != nil || c != ':' {
		return "", s.docError(d, key, orWant(err, "want ':' after object key"))
	}
	return key, nil
}

// docMember reads one member other than the entries array and hands it to member.
func (s *scan) docMember(d *docReader, key string,
	member func(s *scan, key string, lx *lexer) error) error {
	c, err := d.nonSpace()
	if err != nil {
		return s.docError(d, key, err)
	}
	line, off := d.line, d.off-1
	raw, err := d.value(c)
	if err != nil {
		return s.tooLargeOr(d, key, line, off, err)
	}
	lx := lexer{data: raw, in: &s.in}
	err = member(s, key, &lx)
	if err == nil && !lx.atEnd() {
		err = lx.fail("unexpected data after the value")
	}
	if err != nil {
		return locate(inField(key, err), raw, line, off, "")
	}
	return nil
}

// array reads the entries array, element by element.
func (s *scan) array(d *docReader, key string, element func(lx *lexer, e *Entry) error) error {
	c, err := d.nonSpace()
	if err != nil {
		return s.docError(d, key, err)
	}
	if c == 'n' { // "entries": null reads as no entries
		raw, err := d.value(c)
		if err == nil && string(raw) == "null" {
			return nil
		}
		return s.docError(d, key, errors.New("want array"))
	}
	if c != '[' {
		d.unread(c)
		return s.docError(d, key, errors.New("want array"))
	}
	lx := lexer{in: &s.in}
	for i := 0; ; i++ {
		c, err := d.nonSpace()
		if err != nil {
			return s.docError(d, key, err)
		}
		if c == ']' && i == 0 {
			return nil
		}
		if i > 0 {
			if c == ']' {
				return nil
			}
			if c != ',' {
				d.unread(c)
				return s.docError(d, key, errors.New("want ',' or ']' after array element"))
			}
			if c, err = d.nonSpace(); err != nil {
				return s.docError(d, key, err)
			}
		}
		field := key + indexField(i)
		line, off := d.line, d.off-1
		raw, err := d.value(c)
		if err != nil {
			return s.tooLargeOr(d, field, line, off, err)
		}
		lx.data, lx.pos, lx.depth = raw, 0, 0
		s.e.reset()
		s.e.Line, s.e.Offset = line, off
		err = element(&lx, &s.e)
		if err == nil && !lx.atEnd() {
			err = lx.fail("unexpected data after the entry")
		}
		if err != nil {
			return locate(err, raw, line, off, field)
		}
		if err := s.deliver(); err != nil {
			return err
		}
	}
}

// tooLargeOr reports an entry over the cap at its first byte, and any other error where the
// reader stopped.
func (s *scan) tooLargeOr(d *docReader, field string, line int, off int64, err error) error {
	if errors.Is(err, errTooLarge) {
		return &SyntaxError{Line: line, Offset: off, Field: field, kind: ErrTooLarge,
			Msg: fmt.Sprintf("value longer than %d bytes", s.max)}
	}
	return s.docError(d, field, err)
}

// docError reports a structural problem at the reader's position. Failures of the underlying
// reader are returned wrapped, not as syntax errors.
func (s *scan) docError(d *docReader, field string, err error) error {
	var re *readError
	if errors.As(err, &re) {
		return fmt.Errorf("auditlog: read at byte %d: %w", d.off, re.err)
	}
	return &SyntaxError{Line: d.line, Offset: d.off, Field: field, Msg: err.Error(), kind: ErrMalformed}
}

// observationMember reads the members of an audit_log observation besides its entries.
func observationMember(s *scan, key string, lx *lexer) error {
	switch key {
	case "agent_principal":
		p, err := lx.str()
		if err != nil {
			return err
		}
		s.sum.AgentPrincipal = p
		return s.settlePrincipal()
	case "window":
		return window(lx, &s.sum.Window)
	}
	return lx.skip()
}

func window(lx *lexer, w **Window) error {
	return lx.members(func(key []byte) (err error) {
		if *w == nil {
			*w = &Window{}
		}
		switch string(key) {
		case "from":
			(*w).From, err = lx.str()
		case "to":
			(*w).To, err = lx.str()
		default:
			err = lx.skip()
		}
		return err
	})
}

// eventListMember checks the members of an audit.k8s.io EventList besides its items.
func eventListMember(_ *scan, key string, lx *lexer) error {
	if key != "kind" {
		return lx.skip()
	}
	start := lx.pos
	kind, err := lx.str()
	if err == nil && kind != "" && kind != "EventList" {
		lx.pos = start
		err = lx.fail("kind " + quote(kind) + " is not an audit EventList")
	}
	return err
}

func (s *scan) providerElement(lx *lexer, e *Entry) error { return providerEntry(lx, e, &s.raw) }
