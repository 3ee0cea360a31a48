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
	br := blockReader{r: r, max: s.max}
	buf := make([]byte, 0, blockSize)
	for {
		blk, last, err := br.next(buf)
		if err != nil {
			return br.fail(err, lr.lineNo, lr.off)
		}
		if err := lr.block(blk); err != nil || last {
			return err
		}
		buf = blk
	}
}

// blockReader cuts a JSON-lines log into blocks of whole lines.
type blockReader struct {
	r     io.Reader
	max   int    // the longest line
	carry []byte // the start of a line the last block cut off
}

// errLineTooLong: a line longer than the cap, which no block can hold.
var errLineTooLong = errors.New("line too long")

// next reads the next block into buf (growing it when one line does not fit) and returns its
// whole lines, and whether it is the last block, which ends where the log ends. It keeps the
// start of the line the block cuts off, for the next one.
func (b *blockReader) next(buf []byte) (blk []byte, last bool, err error) {
	if cap(buf) < blockSize {
		buf = make([]byte, 0, blockSize)
	}
	buf = append(buf[:0], b.carry...)
	for {
		n, err := io.ReadFull(b.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			return nil, false, err
		}
		if eof {
			b.carry = b.carry[:0]
			return buf, true, nil
		}
		if whole := bytes.LastIndexByte(buf, '\n') + 1; whole > 0 {
			b.carry = append(b.carry[:0], buf[whole:]...)
			return buf[:whole], false, nil
		}
		if len(buf) > b.max {
			return nil, false, errLineTooLong
		}
		buf = append(buf, make([]byte, cap(buf))...)[:len(buf)] // a line longer than the block
	}
}

// fail describes an error of next for the line that begins at line lineNo, byte off.
func (b *blockReader) fail(err error, lineNo int, off int64) error {
	if errors.Is(err, errLineTooLong) {
		return &SyntaxError{Line: lineNo, Offset: off, kind: ErrTooLarge, Msg: fmt.Sprintf("line longer than %d bytes", b.max)}
	}
	return fmt.Errorf("auditlog: read line %d: %w", lineNo, err)
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
