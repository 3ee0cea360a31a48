package auditlog

import (
	"bytes"
	"io"
)

// A JSON-lines log's lines are read independently of each other, so a caller that must check a
// large log (a recorder, before it stores it) may check its blocks of whole lines on several
// goroutines: LineBlocks cuts the log, LineBlock.Check reads one block, and the error of the
// first bad block is the one ScanWith would return. This package itself runs on one goroutine.

// LineBlocks cuts a JSON-lines audit log into blocks of whole lines.
type LineBlocks struct {
	br     blockReader
	lineNo int   // of the next block's first line
	off    int64 // of the next block
}

// NewLineBlocks returns the blocks of the JSON-lines log r, each entry at most
// DefaultMaxEntryBytes.
func NewLineBlocks(r io.Reader) *LineBlocks {
	return &LineBlocks{br: blockReader{r: r, max: DefaultMaxEntryBytes}, lineNo: 1}
}

// LineBlock is a block of whole lines of a log, its first line numbered Line and beginning at
// byte Offset of the log.
type LineBlock struct {
	Data   []byte
	Line   int
	Offset int64
}

// Next reads the next block into buf, which it may grow, and reports whether it is the last,
// which ends where the log ends. An error is the one ScanWith returns at that point: a line
// longer than the cap, or a read error naming the line.
func (b *LineBlocks) Next(buf []byte) (LineBlock, bool, error) {
	data, last, err := b.br.next(buf)
	if err != nil {
		return LineBlock{}, false, b.br.fail(err, b.lineNo, b.off)
	}
	blk := LineBlock{Data: data, Line: b.lineNo, Offset: b.off}
	b.lineNo += bytes.Count(data, []byte{'\n'})
	b.off += int64(len(data))
	return blk, last, nil
}

// Check reads every entry of the block as ScanWith does with the default options, keeping
// nothing, and returns the first error such a scan meets in it.
func (blk LineBlock) Check() error {
	s := newScan(Options{}, func(*Entry) error { return nil })
	ls := lineScan{s: s, lx: lexer{in: &s.in}, lineNo: blk.Line, off: blk.Offset}
	return ls.block(blk.Data)
}
