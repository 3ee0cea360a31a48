package pyre

import "fmt"

// The compiler turns the parsed pattern into matcher nodes as re/_compiler.py turns it into
// sre code: each construct with the flags in force where it stands, and the same choices for
// case-insensitive literals and sets (sre_lower_unicode, the extra cases, the sets' lowered
// bitmap over the Basic Multilingual Plane and their untouched tail beyond it).

type foldMode uint8

const (
	foldNone foldMode = iota
	foldASCII
	foldUnicode
)

func foldOf(f flags) foldMode {
	switch {
	case f&flagIgnoreCase == 0:
		return foldNone
	case f&flagASCII != 0:
		return foldASCII
	}
	return foldUnicode
}

func (f foldMode) lower(c rune) rune {
	switch f {
	case foldASCII:
		return asciiLower(c)
	case foldUnicode:
		return lower(c)
	}
	return c
}

func (f foldMode) cased(c rune) bool {
	switch f {
	case foldASCII:
		return asciiCased(c)
	case foldUnicode:
		return isCased(c)
	}
	return false
}

// combineFlags is _compiler._combine_flags: a type flag turned on replaces the others.
func combineFlags(f, add, del flags) flags {
	if add&typeFlags != 0 {
		f &^= typeFlags
	}
	return (f | add) &^ del
}

type compiler struct {
	st *state
}

func (c *compiler) sub(p *subpattern, f flags) node {
	nodes := make([]node, 0, len(p.items))
	for _, it := range p.items {
		nodes = append(nodes, c.item(it, f))
	}
	if len(nodes) == 1 {
		return nodes[0]
	}
	return seqNode(nodes)
}

func (c *compiler) item(it *item, f flags) node {
	switch it.op {
	case opLiteral:
		return charNode{literalTest(it.c, f, false)}
	case opNotLiteral:
		return charNode{literalTest(it.c, f, true)}
	case opIn:
		return charNode{newSet(it.set, it.negate, f)}
	case opAny:
		return charNode{anyTest{dotAll: f&flagDotAll != 0}}
	case opAt:
		return atNode{kind: it.at, multiline: f&flagMultiline != 0, ascii: f&flagASCII != 0}
	case opBranch:
		alts := make(branchNode, len(it.alts))
		for i, a := range it.alts {
			alts[i] = c.sub(a, f)
		}
		return alts
	case opSubpattern:
		body := c.sub(it.body, combineFlags(f, it.add, it.del))
		if it.group == 0 {
			return body
		}
		return groupNode{mark: 2 * (it.group - 1), body: body}
	case opAtomic:
		return atomicNode{body: c.sub(it.body, f)}
	case opRepeat:
		return c.repeat(it, f)
	case opAssert, opAssertNot:
		return c.assert(it, f)
	case opGroupref:
		return backrefNode{mark: 2 * (int(it.c) - 1), fold: foldOf(f)}
	case opGrouprefExists:
		n := condNode{mark: 2 * (it.group - 1), yes: c.sub(it.yes, f)}
		if it.no != nil {
			n.no = c.sub(it.no, f)
		}
		return n
	}
	panic(fmt.Sprintf("pyre: unknown op %d", it.op))
}

func (c *compiler) repeat(it *item, f flags) node {
	if f&flagTemplate != 0 {
		name := map[repKind]string{greedy: "MAX_REPEAT", lazy: "MIN_REPEAT", possessive: "POSSESSIVE_REPEAT"}[it.rep]
		panic(&Error{Msg: "internal: unsupported template operator " + name, Pos: -1})
	}
	body := c.sub(it.body, f)
	if one, ok := body.(charNode); ok {
		return charRepeatNode{test: one.test, min: it.min, max: it.max, rep: it.rep}
	}
	return &repeatNode{body: body, min: it.min, max: it.max, rep: it.rep}
}

func (c *compiler) assert(it *item, f flags) node {
	n := assertNode{negate: it.op == opAssertNot, body: c.sub(it.body, f)}
	if it.behind {
		lo, hi := it.body.width(c.st)
		if lo > maxRepeat {
			panic(&Error{Msg: "looks too much behind", Pos: -1})
		}
		if lo != hi {
			panic(&Error{Msg: "look-behind requires fixed-width pattern", Pos: -1})
		}
		n.behind = int(lo)
	}
	return n
}

// literalTest is a literal (or, negated, a one-character negated set) as _compile emits it.
func literalTest(c rune, f flags, negate bool) charTest {
	fold := foldOf(f)
	if fold == foldNone || !fold.cased(c) {
		return litTest{c: c, negate: negate}
	}
	lo := fold.lower(c)
	if fold == foldUnicode {
		if extra := extraCases()[lo]; extra != nil {
			return foldSetTest{any: append([]rune{lo}, extra...), negate: negate}
		}
	}
	return foldLitTest{lo: lo, fold: fold, negate: negate}
}

// newSet is an IN set as _optimize_charset and _compile_charset make it.
func newSet(items []setItem, negate bool, f flags) charTest {
	s := &setTest{negate: negate, ascii: f&flagASCII != 0}
	fold := foldOf(f)
	if fold == foldNone {
		s.tail = items
		return s
	}
	s.bmp = make([]uint64, 0x10000/64)
	mark := func(c rune) bool {
		if c >= 0x10000 {
			return false
		}
		s.bmp[c/64] |= 1 << (c % 64)
		return true
	}
	addFolded := func(c rune) bool {
		lo := fold.lower(c)
		if !mark(lo) {
			return false
		}
		if fold == foldUnicode {
			for _, k := range extraCases()[lo] {
				mark(k)
			}
		}
		return true
	}
	for _, it := range items {
		switch it.kind {
		case setLiteral:
			if !addFolded(it.lo) {
				s.folded = true
				s.tail = append(s.tail, it)
				continue
			}
			s.folded = s.folded || fold.cased(it.lo)
		case setRange:
			complete := true
			for c := it.lo; c <= it.hi; c++ {
				if !addFolded(c) {
					complete = false
					break
				}
			}
			if !complete {
				s.folded = true
				s.tail = append(s.tail, setItem{kind: setRange, lo: it.lo, hi: it.hi, cat: rangeUniIgnore})
				continue
			}
			for c := it.lo; c <= it.hi && !s.folded; c++ {
				s.folded = fold.cased(c)
			}
		case setCategory:
			s.tail = append(s.tail, it)
		}
	}
	if s.folded {
		s.fold = fold
	}
	return s
}

// rangeUniIgnore marks, in a set's tail, a range beyond the BMP under IGNORECASE:
// RANGE_UNI_IGNORE, which also takes a character whose uppercase is in the range.
const rangeUniIgnore category = 255
