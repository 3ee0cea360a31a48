package redact

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// A target occurs in a recording as a sequence of units, each spelling one or more bytes of
// the target: a literal byte; a percent escape %XX (either case) for one byte; a JSON escape
// for the bytes of one character (\uXXXX in either case, a surrogate pair for characters
// beyond the BMP, \/ \\ \" \b \f \n \r \t). An occurrence is a raw span whose units spell the
// target exactly. Whether a span is an occurrence depends only on its bytes, never on what
// precedes it, so that a stream split anywhere gives the same occurrences.
//
// Finding them has two parts. Occurrences spelled with literal bytes only are found by a
// sampled q-gram filter: every target is at least minLen bytes, so any occurrence holds a
// 4-byte gram at a position that is a multiple of step = minLen-3; the grams of every target
// at offsets 0..step-1 are indexed, and the scan probes one position in step. Occurrences
// with escapes are found from their first escape: each '%' and '\' of the input (found with
// IndexByte) is decoded, and every target position j whose bytes the escape spells is tried,
// with the target's first j bytes literal before it and any units after it.

// gramLen is the length of the sampled grams. Every target is at least MinValueLength (4)
// bytes long.
const gramLen = 4

// maxUnitLen is the longest unit that spells one byte (\u00XX).
const maxUnitLen = 6

// maxBranches bounds the backtracking of one match attempt. A target that holds '%' or '\'
// can be spelled by a literal byte or by an escape at the same place; the readings of a long
// run of such bytes could otherwise multiply.
const maxBranches = 64

// occurrence is one match of a target: the raw span [start, end) and how it was spelled.
type occurrence struct {
	start, end int
	target     int32
	escapes    uint8 // escJSON, escPercent
}

// matcher finds every occurrence of a set of targets in a buffer. It is immutable.
type matcher struct {
	targets []target
	step    int
	bits    []uint64             // 1<<16 bits: hash of a gram → some target has it
	grams   map[uint32][]gramRef // gram → where targets hold it
	byByte  [256][]escRef        // byte → target positions holding it, for escapes
	maxSpan int                  // longest raw span of an occurrence, edges included
}

type gramRef struct {
	target int32
	off    int32 // offset of the gram in the target
}

type escRef struct {
	target int32
	at     int32
}

func newMatcher(targets []target) *matcher {
	m := &matcher{targets: targets, bits: make([]uint64, 1<<16/64), grams: map[uint32][]gramRef{}}
	if len(targets) == 0 {
		return m
	}
	minLen := len(targets[0].form)
	for _, t := range targets {
		minLen = min(minLen, len(t.form))
	}
	m.step = minLen - gramLen + 1
	for i, t := range targets {
		for off := range m.step {
			g := binary.LittleEndian.Uint32(t.form[off:])
			h := gramHash(g)
			m.bits[h>>6] |= 1 << (h & 63)
			m.grams[g] = append(m.grams[g], gramRef{target: int32(i), off: int32(off)})
		}
		for j, c := range t.form {
			m.byByte[c] = append(m.byByte[c], escRef{target: int32(i), at: int32(j)})
		}
		span := maxUnitLen * len(t.form)
		if t.edgeR {
			span += maxUnitLen
		}
		m.maxSpan = max(m.maxSpan, span)
	}
	return m
}

func gramHash(g uint32) uint32 { return (g * 0x9E3779B1) >> 16 }

// lookbehind is how far before an occurrence's target its left base64 edge can start.
const lookbehind = maxUnitLen

// find appends every occurrence wholly inside buf to occ, sorted by start, then target,
// then end, without duplicates.
func (m *matcher) find(buf []byte, occ []occurrence) []occurrence {
	if len(m.targets) == 0 {
		return occ
	}
	first := len(occ)
	occ = m.findLiteral(buf, occ)
	occ = m.findEscaped(buf, occ, '\\')
	occ = m.findEscaped(buf, occ, '%')
	found := occ[first:]
	for i := range found {
		m.extendEdges(buf, &found[i])
	}
	slices.SortFunc(found, func(a, b occurrence) int {
		if a.start != b.start {
			return a.start - b.start
		}
		if a.target != b.target {
			return int(a.target - b.target)
		}
		return b.end - a.end
	})
	// A target holding '%' or '\' can be spelled two ways from one start; keep the longer.
	found = slices.CompactFunc(found, func(a, b occurrence) bool { return a.start == b.start && a.target == b.target })
	return occ[:first+len(found)]
}

// findLiteral finds the occurrences spelled with literal bytes only.
func (m *matcher) findLiteral(buf []byte, occ []occurrence) []occurrence {
	for p := 0; p+gramLen <= len(buf); p += m.step {
		g := binary.LittleEndian.Uint32(buf[p:])
		if h := gramHash(g); m.bits[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, ref := range m.grams[g] {
			form := m.targets[ref.target].form
			start := p - int(ref.off)
			if start >= 0 && start+len(form) <= len(buf) && bytes.Equal(buf[start:start+len(form)], form) {
				occ = append(occ, occurrence{start: start, end: start + len(form), target: ref.target})
			}
		}
	}
	return occ
}

// findEscaped finds the occurrences whose first escape starts with the byte esc.
func (m *matcher) findEscaped(buf []byte, occ []occurrence, esc byte) []occurrence {
	for e := 0; ; e++ {
		i := bytes.IndexByte(buf[e:], esc)
		if i < 0 {
			return occ
		}
		e += i
		spelled, n, kind := decodeUnit(buf[e:])
		if n == 0 {
			continue
		}
		for _, ref := range m.byByte[spelled[0]] {
			form := m.targets[ref.target].form
			j := int(ref.at)
			if j > e || !bytes.HasPrefix(form[j:], spelled) || !bytes.Equal(buf[e-j:e], form[:j]) {
				continue
			}
			budget := maxBranches
			if end, kinds, ok := matchUnits(buf, e+n, form[j+len(spelled):], &budget); ok {
				occ = append(occ, occurrence{start: e - j, end: end, target: ref.target, escapes: kind | kinds})
			}
		}
	}
}

// matchUnits matches rest against the units of buf from p, and returns where the match ends
// and the escapes it read. Where a byte of rest is '%' or '\' and buf holds an escape that
// spells it too, both readings are tried, the literal one first, within budget.
func matchUnits(buf []byte, p int, rest []byte, budget *int) (int, uint8, bool) {
	var kinds uint8
	for len(rest) > 0 {
		if p >= len(buf) {
			return 0, 0, false
		}
		c := buf[p]
		if c == '%' || c == '\\' {
			if spelled, n, kind := decodeUnit(buf[p:]); n > 0 && bytes.HasPrefix(rest, spelled) {
				if c == rest[0] && *budget > 0 {
					*budget--
					if end, k, ok := matchUnits(buf, p+1, rest[1:], budget); ok {
						return end, kinds | k, true
					}
				}
				p, rest, kinds = p+n, rest[len(spelled):], kinds|kind
				continue
			}
		}
		if c != rest[0] {
			return 0, 0, false
		}
		p, rest = p+1, rest[1:]
	}
	return p, kinds, true
}

// decodeUnit decodes the escape at the start of b: the bytes it spells, its length and its
// kind; n is 0 when b does not start with a complete escape.
func decodeUnit(b []byte) (spelled []byte, n int, kind uint8) {
	if len(b) < 2 {
		return nil, 0, 0
	}
	if b[0] == '%' {
		if len(b) >= 3 {
			if v, ok := hexByte(b[1], b[2]); ok {
				return []byte{v}, 3, escPercent
			}
		}
		return nil, 0, 0
	}
	if b[0] != '\\' {
		return nil, 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return b[1:2], 2, escJSON
	case 'b':
		return []byte{'\b'}, 2, escJSON
	case 'f':
		return []byte{'\f'}, 2, escJSON
	case 'n':
		return []byte{'\n'}, 2, escJSON
	case 'r':
		return []byte{'\r'}, 2, escJSON
	case 't':
		return []byte{'\t'}, 2, escJSON
	case 'u':
		return decodeU(b)
	}
	return nil, 0, 0
}

// decodeU decodes \uXXXX, or a surrogate pair \uD8XX\uDCXX, into UTF-8. A lone surrogate is
// not a character and spells nothing.
func decodeU(b []byte) ([]byte, int, uint8) {
	r, ok := hex4(b)
	if !ok {
		return nil, 0, 0
	}
	n := 6
	if utf16.IsSurrogate(r) {
		r2, ok := hex4(b[6:])
		if !ok || r >= 0xdc00 {
			return nil, 0, 0
		}
		if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
			return nil, 0, 0
		}
		n = 12
	}
	return utf8.AppendRune(nil, r), n, escJSON
}

// hex4 reads the four hex digits of \uXXXX at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	hi, ok1 := hexByte(b[2], b[3])
	lo, ok2 := hexByte(b[4], b[5])
	return rune(hi)<<8 | rune(lo), ok1 && ok2
}

func hexByte(a, b byte) (byte, bool) {
	x, ok1 := hexDigit(a)
	y, ok2 := hexDigit(b)
	return x<<4 | y, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// extendEdges widens an occurrence of the middle of a base64 text by the unit before and
// after it when they are characters of the alphabet: they carry bits of the value.
func (m *matcher) extendEdges(buf []byte, o *occurrence) {
	t := &m.targets[o.target]
	alpha := t.alphabet()
	if alpha == nil {
		return
	}
	if t.edgeR && o.end < len(buf) {
		if spelled, n, kind := decodeUnit(buf[o.end:]); n > 0 && len(spelled) == 1 && alpha[spelled[0]] {
			o.end, o.escapes = o.end+n, o.escapes|kind
		} else if alpha[buf[o.end]] {
			o.end++
		}
	}
	if t.edgeL {
		for _, n := range []int{6, 3, 2} { // \u00XX, %XX, \/
			if o.start >= n {
				if spelled, got, kind := decodeUnit(buf[o.start-n : o.start]); got == n && len(spelled) == 1 && alpha[spelled[0]] {
					o.start, o.escapes = o.start-n, o.escapes|kind
					return
				}
			}
		}
		if o.start > 0 && alpha[buf[o.start-1]] {
			o.start--
		}
	}
}
