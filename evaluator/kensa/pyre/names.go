package pyre

import (
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/unicode/runenames"
)

// lookupName is unicodedata.lookup for \N{name}, as Python 3.11 (Unicode 14.0) answers it:
// a character's name in any case, the algorithmic names of CJK unified ideographs and Hangul
// syllables. ok is false for a name not found here; Python also knows the aliases of
// NameAliases.txt, which are not carried, so a name not found cannot be called invalid.
func lookupName(name string) (rune, bool) {
	name = strings.ToUpper(name)
	if hex, ok := strings.CutPrefix(name, "CJK UNIFIED IDEOGRAPH-"); ok {
		v, err := strconv.ParseUint(hex, 16, 32)
		if err == nil && (len(hex) == 4 || len(hex) == 5) && isUnifiedIdeograph(rune(v)) {
			return rune(v), true
		}
		return 0, false
	}
	if syllable, ok := strings.CutPrefix(name, "HANGUL SYLLABLE "); ok {
		return hangulSyllable(syllable)
	}
	r, ok := names()[name]
	return r, ok && !isUnicode15(r)
}

// isUnifiedIdeograph is the ranges of CJK unified ideographs in Unicode 14.0
// (Modules/unicodedata.c, is_unified_ideograph, in Python 3.11).
func isUnifiedIdeograph(r rune) bool {
	for _, rg := range [][2]rune{{0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0x20000, 0x2A6DF}, {0x2A700, 0x2B738},
		{0x2B740, 0x2B81D}, {0x2B820, 0x2CEA1}, {0x2CEB0, 0x2EBE0}, {0x30000, 0x3134A}} {
		if rg[0] <= r && r <= rg[1] {
			return true
		}
	}
	return false
}

// The Hangul syllable names (Unicode §3.12): a leading consonant, a vowel and an optional
// trailing consonant, by their short jamo names.
var (
	jamoL = strings.Split("G GG N D DD R M B BB S SS  J JJ C K T P H", " ")
	jamoV = strings.Split("A AE YA YAE EO E YEO YE O WA WAE OE YO U WEO WE WI YU EU YI I", " ")
	jamoT = strings.Split(" G GG GS N NJ NH D L LG LM LB LS LT LP LH M B BS S SS NG J C K T P H", " ")
)

// hangulSyllable reads a syllable's name as unicodedata does (findsyllable): the longest
// leading consonant, then the longest vowel, then the longest trailing consonant, which must
// end the name.
func hangulSyllable(s string) (rune, bool) {
	l, n := longest(s, jamoL)
	s = s[n:]
	v, n := longest(s, jamoV)
	if v < 0 {
		return 0, false
	}
	s = s[n:]
	t, n := longest(s, jamoT)
	if n != len(s) {
		return 0, false
	}
	return rune(0xAC00 + (l*21+v)*28 + t), true
}

// longest is the index and length of the longest name that begins s, or -1.
func longest(s string, names []string) (index, n int) {
	index, n = -1, -1
	for i, name := range names {
		if len(name) > n && strings.HasPrefix(s, name) {
			index, n = i, len(name)
		}
	}
	return index, max(n, 0)
}

// names maps each name of the Unicode character database (x/text's runenames, Unicode 15.0)
// to its character; ranges named by a placeholder ("<CJK Ideograph>", "<control>") are
// left out.
var names = sync.OnceValue(func() map[string]rune {
	m := make(map[string]rune, 300_000)
	for r := rune(0); r <= 0x10FFFF; r++ {
		if n := runenames.Name(r); n != "" && !strings.HasPrefix(n, "<") {
			m[n] = r
		}
	}
	return m
})
