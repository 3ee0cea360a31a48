package doc

import (
	"bufio"
	"errors"
	"io"
)

// Lines reads a JSON Lines file (one JSON value per line, as trace files and audit logs are
// written) one line at a time, with bounded memory: one line of at most Limits.MaxBytes.
//
//	lines := doc.NewLines(name, r, doc.Limits{})
//	for {
//		n, err := lines.Next()
//		if err == io.EOF {
//			break
//		}
//		if err != nil {
//			return err // or note it and continue: a bad line does not stop the reader
//		}
//		...
//	}
//
// Blank lines are skipped; a "\r" before the "\n" is whitespace. Positions are those of the
// file: line numbers count every line, offsets are from the start of the file. A line that is
// not one JSON value is an *Error for that line, after which Next goes on with the next line;
// only a read error stops the reader. A last line without its "\n" that ends in the middle of a
// value is reported as truncated, at the line and column where it stops.
type Lines struct {
	name  string
	r     *bufio.Reader
	lim   Limits
	line  int   // number of the line last read
	off   int64 // offset of the next line
	names *interner
	err   error // a read error, returned again by every later call
	// parser is reused line after line, sizing each tree's arenas from the previous line's.
	parser jsonParser
}

// NewLines returns a reader of the JSON Lines file r, named name in errors.
func NewLines(name string, r io.Reader, lim Limits) *Lines {
	size := bufferSize(r)
	var names *interner
	if size >= internFrom {
		names = newInterner()
	}
	return &Lines{name: name, r: bufio.NewReaderSize(r, size), lim: lim.resolve(), names: names}
}

// bufferSize is 64 KiB, or less for input in memory that is smaller: readers of many small
// files (a trace per run, replayed ten thousand times) then do not allocate and clear 64 KiB
// each, nor an interner for names they are too small to share.
func bufferSize(r io.Reader) int {
	const size = 64 << 10
	if in, ok := r.(interface{ Len() int }); ok {
		return min(size, max(in.Len()+1, 16))
	}
	return size
}

// Line returns the number of the line the last call to Next read.
func (l *Lines) Line() int { return l.line }

// Next returns the value of the next non-blank line, an *Error for a line that is not one
// valid JSON value within the limits, or io.EOF after the last line.
func (l *Lines) Next() (*Node, error) {
	for {
		if l.err != nil {
			return nil, l.err
		}
		start := l.off
		text, complete, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if text == nil {
			return nil, io.EOF
		}
		if blank(text) {
			continue
		}
		src := &source{name: l.name, data: text, base: start, line0: l.line}
		p := &l.parser
		p.reset(src, l.lim, l.names, p.b.used())
		n, err := p.document()
		if err != nil && !complete {
			err = truncated(err, start+int64(len(text)))
		}
		return n, err
	}
}

// blank reports whether a line holds JSON whitespace only.
func blank(text []byte) bool {
	for _, c := range text {
		if !isSpace[c] {
			return false
		}
	}
	return true
}

// truncated rewords an error at the end of a last line that has no newline.
func truncated(err error, end int64) error {
	var e *Error
	if errors.As(err, &e) && errors.Is(e.Err, ErrSyntax) && e.Offset == end {
		e.Msg = "the last line is truncated: it ends in the middle of a JSON value, without a newline (" + e.Msg + ")"
	}
	return err
}

// readLine reads the next line without its "\n", into a slice of its own (the tree keeps it).
// complete is false for a last line without "\n"; text is nil at the end of the input. A line
// longer than MaxBytes is skipped to its end and reported; memory stays within twice MaxBytes.
func (l *Lines) readLine() (text []byte, complete bool, err error) {
	var buf []byte
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.off += int64(len(chunk))
		if !tooLong {
			if int64(len(buf)+len(chunk)) > l.lim.MaxBytes+1 { // +1: the "\n"
				tooLong, buf = true, nil
			} else {
				buf = appendDoubling(buf, chunk)
			}
		}
		switch {
		case err == nil:
			l.line++
			if tooLong {
				return nil, false, l.lineTooLong()
			}
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong {
				l.line++
				return nil, false, l.lineTooLong()
			}
			if len(buf) == 0 {
				return nil, false, nil
			}
			l.line++
			return buf, false, nil
		default:
			l.err = &Error{File: l.name, Line: l.line + 1, Offset: l.off, Msg: "read: " + err.Error(), Err: err}
			return nil, false, l.err
		}
	}
}

// appendDoubling appends p to buf, growing it to exactly p's size at first and by doubling
// afterwards: a line in one piece costs one allocation, a long one little garbage.
func appendDoubling(buf, p []byte) []byte {
	if len(buf)+len(p) > cap(buf) {
		grown := make([]byte, len(buf), max(len(buf)+len(p), 2*cap(buf)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, p...)
}

func (l *Lines) lineTooLong() error {
	return limitError(Pos{File: l.name, Line: l.line, Column: 1, Offset: -1}, nil, "MaxBytes", l.lim.MaxBytes, "the line is longer than the limit")
}
