package doc

import (
	"bytes"
	"sort"
	"sync"
	"unicode/utf8"
)

// source is what every node of one document shares: its file name and, for JSON, its text.
//
// A JSON node stores only its byte offset. Lines and columns are computed when asked, from an
// index of line starts and of character counts built on the first request: parsing pays nothing
// for positions, and asking for one costs a binary search and a scan of at most one block.
// YAML gives lines and columns and no offsets, so a YAML node stores those, packed.
type source struct {
	name string
	// data is the JSON text; nil for YAML. Compact copies values from it.
	data []byte
	// base is the file offset of data[0], line0 the number of its line: 0 and 1 for a
	// document, the line's own for a JSON Lines line.
	base  int64
	line0 int
	// bom is set when data starts with a byte order mark, which columns do not count.
	bom bool
	// yamlScalars holds how the YAML scalars whose text the model changed, or that have a tag,
	// are written (YAMLScalar).
	yamlScalars map[*Node]YAMLScalar

	once  sync.Once
	lines []int   // the index in data of every line start
	conts []int32 // UTF-8 continuation bytes before each block of blockSize bytes
}

const blockSize = 4096

// yamlPos packs a YAML line and column into a node's offset field.
func yamlPos(line, col int) int64 { return int64(clamp32(line))<<32 | int64(clamp32(col)) }

func clamp32(v int) int32 {
	if v > 1<<31-1 {
		return 1<<31 - 1
	}
	return int32(max(v, 0))
}

// pos converts a node's offset field into a position.
func (s *source) pos(off int64) Pos {
	if s == nil {
		return Pos{Offset: -1}
	}
	if s.data == nil {
		return Pos{File: s.name, Line: int(off >> 32), Column: int(off & (1<<32 - 1)), Offset: -1}
	}
	s.once.Do(s.index)
	i := int(off - s.base)
	line := sort.Search(len(s.lines), func(k int) bool { return s.lines[k] > i }) - 1
	start := s.lines[line]
	if line == 0 && s.bom {
		start = min(3, i)
	}
	col := i - start - (s.contsBefore(i) - s.contsBefore(start)) + 1
	return Pos{File: s.name, Line: s.line0 + line, Column: col, Offset: off}
}

func (s *source) index() {
	s.lines = []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(s.data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		s.lines = append(s.lines, i)
	}
	s.conts = make([]int32, len(s.data)/blockSize+1)
	var total int32
	for b := range s.conts {
		s.conts[b] = total
		end := min((b+1)*blockSize, len(s.data))
		total += int32(countConts(s.data[b*blockSize : end]))
	}
}

// contsBefore counts the continuation bytes of data[:i].
func (s *source) contsBefore(i int) int {
	b := i / blockSize
	return int(s.conts[b]) + countConts(s.data[b*blockSize:i])
}

func countConts(p []byte) int {
	n := 0
	for _, c := range p {
		if c >= utf8.RuneSelf && !utf8.RuneStart(c) {
			n++
		}
	}
	return n
}

// keyOffset returns the position field of the name of the member whose value is v: for YAML,
// the key's line and column, which the value node keeps; for JSON,
// the offset of the opening quote, found by reading back from the value over ':' and the name
// (whose opening quote is the first '"' not escaped by a backslash).
func (s *source) keyOffset(v *Node) int64 {
	if s.data == nil {
		return yamlPos(int(v.keyLine), int(v.keyCol))
	}
	i := int(v.off-s.base) - 1
	back := func(skip func(c byte) bool) {
		for i > 0 && skip(s.data[i]) {
			i--
		}
	}
	back(func(c byte) bool { return isSpace[c] })
	i-- // ':'
	back(func(c byte) bool { return isSpace[c] })
	for i--; i > 0; i-- { // from the closing quote to the opening one
		if s.data[i] != '"' {
			continue
		}
		slashes := 0
		for i-1-slashes >= 0 && s.data[i-1-slashes] == '\\' {
			slashes++
		}
		if slashes%2 == 0 {
			break
		}
	}
	return s.base + int64(max(i, 0))
}
