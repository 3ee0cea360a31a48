package auditlog

import (
	"bytes"
	"strings"
)

// A scoped scan with a known principal delivers only the principal's entries. An event line
// can only be one of them if its bytes contain the principal's name, as JSON writes it: either
// literally, or with a character escaped, which needs "\u" (any character) or "\/" (a slash).
// A line with none of these is counted as an entry without being parsed, which makes a scoped
// scan of a large log nearly as fast as searching it for a string (docs/decisions.md, "Lines
// a scoped scan does not parse").
//
// Such a line is not checked against the JSON grammar either: a malformed line that cannot
// name the principal goes unnoticed here, where an unscoped scan reports it. Logs are
// checked in full when they are recorded (recorder), and the verdict does not depend on
// lines that cannot be the agent's.

// skipper finds, in a block of lines, the lines a scan may count without parsing. It searches
// the block once per needle, remembering where each needle occurs next.
type skipper struct {
	needles []finder // nil: parse every line
	blk     []byte
	next    []int // per needle: offset in blk of its next occurrence, len(blk) if none
}

func newSkipper(opts Options) skipper {
	if !opts.Scoped || !plainPrincipal(opts.Principal) {
		return skipper{}
	}
	k := skipper{needles: []finder{{needle: []byte(opts.Principal)}, {needle: []byte(`\u`)}}}
	if strings.IndexByte(opts.Principal, '/') >= 0 {
		k.needles = append(k.needles, finder{needle: []byte(`\/`)})
	}
	k.next = make([]int, len(k.needles))
	return k
}

// finder searches for one needle. bytes.Index walks the haystack from one occurrence of the
// needle's first byte to the next, and the first byte of a principal ('s' of "system:…") is
// among the commonest of a log; the finder instead walks from one occurrence of the needle's
// rarest byte (as counted in the first block) to the next, which is several times faster.
type finder struct {
	needle []byte
	anchor int // index in needle of the byte the search walks by; -1 until chosen
	chosen bool
}

// index returns the offset of the first occurrence of the needle in hay, or -1.
func (f *finder) index(hay []byte) int {
	if !f.chosen {
		f.anchor, f.chosen = rarestByte(f.needle, hay[:min(len(hay), 64<<10)]), true
	}
	if f.anchor == 0 {
		return bytes.Index(hay, f.needle)
	}
	head, tail := f.needle[:f.anchor], f.needle[f.anchor:]
	for from := f.anchor; from <= len(hay)-len(tail); {
		at := bytes.Index(hay[from:], tail)
		if at < 0 {
			return -1
		}
		start := from + at - f.anchor
		if bytes.Equal(hay[start:start+f.anchor], head) {
			return start
		}
		from += at + 1
	}
	return -1
}

// rarestByte returns the index of the byte of needle that occurs least in sample (the last
// one among equals).
func rarestByte(needle, sample []byte) int {
	var counts [256]int
	for _, c := range sample {
		counts[c]++
	}
	best := 0
	for i, c := range needle {
		if counts[c] <= counts[needle[best]] {
			best = i
		}
	}
	return best
}

// plainPrincipal reports whether p is printable ASCII that JSON writes as is (no '"' or '\'),
// so that the only other ways to write it are the escapes the skipper looks for.
func plainPrincipal(p string) bool {
	if p == "" {
		return false
	}
	for i := range len(p) {
		if c := p[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// reset starts a new block.
func (k *skipper) reset(blk []byte) {
	k.blk = blk
	for i := range k.next {
		k.next[i] = -1 // not searched yet
	}
}

// foreign reports whether the line blk[start:end] cannot be an event of the principal: no
// needle occurs in it.
func (k *skipper) foreign(start, end int) bool {
	if k.needles == nil {
		return false
	}
	for i := range k.needles {
		if k.next[i] < start {
			k.next[i] = len(k.blk)
			if at := k.needles[i].index(k.blk[start:]); at >= 0 {
				k.next[i] = start + at
			}
		}
		if k.next[i] < end {
			return false
		}
	}
	return true
}
