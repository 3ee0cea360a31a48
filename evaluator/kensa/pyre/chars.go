package pyre

// charTest decides one character: the single-character operators of sre (LITERAL and its
// case-insensitive forms, NOT_LITERAL, ANY, IN).
type charTest interface {
	matches(c rune) bool
}

type litTest struct {
	c      rune
	negate bool
}

func (t litTest) matches(c rune) bool { return (c == t.c) != t.negate }

// foldLitTest is LITERAL_UNI_IGNORE or LITERAL_IGNORE: the lowercase of the character is the
// literal's.
type foldLitTest struct {
	lo     rune
	fold   foldMode
	negate bool
}

func (t foldLitTest) matches(c rune) bool { return (t.fold.lower(c) == t.lo) != t.negate }

// foldSetTest is a case-insensitive literal with extra cases: IN_UNI_IGNORE of the literal's
// lowercase and the lowercase characters of the same uppercase.
type foldSetTest struct {
	any    []rune
	negate bool
}

func (t foldSetTest) matches(c rune) bool {
	lo := lower(c)
	for _, a := range t.any {
		if a == lo {
			return !t.negate
		}
	}
	return t.negate
}

type anyTest struct{ dotAll bool }

func (t anyTest) matches(c rune) bool { return t.dotAll || c != '\n' }

// setTest is IN (or, with fold, IN_UNI_IGNORE / IN_IGNORE, which test the lowercase of the
// character): a bitmap of the BMP when the set was folded, then the tail of its other items.
type setTest struct {
	bmp    []uint64
	tail   []setItem
	negate bool
	ascii  bool
	folded bool
	fold   foldMode
}

func (t *setTest) matches(c rune) bool {
	if t.folded {
		c = t.fold.lower(c)
	}
	return t.has(c) != t.negate
}

func (t *setTest) has(c rune) bool {
	if t.bmp != nil && c < 0x10000 && t.bmp[c/64]&(1<<(c%64)) != 0 {
		return true
	}
	for _, it := range t.tail {
		switch it.kind {
		case setLiteral:
			if c == it.lo {
				return true
			}
		case setRange:
			if it.lo <= c && c <= it.hi {
				return true
			}
			if it.cat == rangeUniIgnore {
				if u := upper(c); it.lo <= u && u <= it.hi {
					return true
				}
			}
		case setCategory:
			if inCategory(it.cat, c, t.ascii) {
				return true
			}
		}
	}
	return false
}

func inCategory(cat category, c rune, ascii bool) bool {
	switch cat {
	case catDigit:
		return isDigit(c, ascii)
	case catNotDigit:
		return !isDigit(c, ascii)
	case catSpace:
		return isSpace(c, ascii)
	case catNotSpace:
		return !isSpace(c, ascii)
	case catWord:
		return isWord(c, ascii)
	case catNotWord:
		return !isWord(c, ascii)
	}
	return false
}
