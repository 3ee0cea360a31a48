package auditlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// blockSize is how much of a JSON-lines log is read at a time. A block holds whole lines (a
// partial last line is carried into the next block), so that a scoped scan can search many
// lines for the principal in one call (see skip.go).
const blockSize = 1 << 20

// lines reads JSON lines: one audit.k8s.io Event per line, blank lines ignored.
func (s *scan) lines(r io.Reader) error {
	lr := lineScan{s: s, skip: newSkipper(s.opts), lx: lexer{in: &s.in}, lineNo: 1}
	buf := make([]byte, 0, blockSize)
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return fmt.Errorf("auditlog: read line %d: %w", lr.lineNo, err)
		}
		whole := len(buf)
		if !eof {
			whole = bytes.LastIndexByte(buf, '\n') + 1
		}
		if err := lr.block(buf[:whole]); err != nil {
			return err
		}
		rest := copy(buf, buf[whole:])
		buf = buf[:rest]
		switch {
		case eof:
			return nil
		case rest == cap(buf) && rest > s.max:
			return &SyntaxError{Line: lr.lineNo, Offset: lr.off, kind: ErrTooLarge, Msg: fmt.Sprintf("line longer than %d bytes", s.max)}
		case rest == cap(buf):
			buf = append(buf, make([]byte, cap(buf))...)[:rest] // a line longer than the block
		}
	}
}

// lineScan walks the lines of a JSON-lines log, block by block.
type lineScan struct {
	s      *scan
	skip   skipper
	lx     lexer
	lineNo int
	off    int64 // offset of the next line
}

// block handles every line of blk, which ends at a line end (or at the end of the log).
func (l *lineScan) block(blk []byte) error {
	l.skip.reset(blk)
	for pos := 0; pos < len(blk); {
		end := bytes.IndexByte(blk[pos:], '\n')
		if end < 0 {
			end = len(blk)
		} else {
			end += pos + 1
		}
		if err := l.line(blk[pos:end], l.skip.foreign(pos, end)); err != nil {
			return err
		}
		pos = end
	}
	return nil
}

// line handles one line, its newline included; foreign lines are counted, not parsed.
func (l *lineScan) line(line []byte, foreign bool) error {
	start := l.off
	l.off += int64(len(line))
	lineNo := l.lineNo
	l.lineNo++
	content := bytes.TrimRight(line, "\r\n")
	if lineNo == 1 && bytes.HasPrefix(content, utf8BOM) {
		content = content[len(utf8BOM):]
		start += int64(len(utf8BOM))
	}
	if len(content) > l.s.max {
		return &SyntaxError{Line: lineNo, Offset: start, kind: ErrTooLarge, Msg: fmt.Sprintf("line longer than %d bytes", l.s.max)}
	}
	switch {
	case len(bytes.TrimSpace(content)) == 0:
	case foreign:
		l.s.sum.Entries++
	default:
		return l.s.line(&l.lx, content, lineNo, start)
	}
	return nil
}
