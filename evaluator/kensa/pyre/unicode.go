package pyre

import (
	"slices"
	"sync"
	"unicode"
)

// The character classes of sre (Modules/_sre/sre.c): in a str pattern (Unicode, the default)
// \d is str.isdecimal (category Nd), \w is str.isalnum or '_' (a letter — Lu Ll Lt Lm Lo — or a
// number — Nd Nl No), \s is str.isspace (bidirectional class WS, B or S, or category Zs). With
// the ASCII flag each is its ASCII subset, and \s is only " \t\n\r\v\f".

func isWord(c rune, ascii bool) bool {
	if c == '_' {
		return true
	}
	if ascii || c < 0x80 {
		return c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	}
	return (unicode.IsLetter(c) || unicode.IsNumber(c)) && !isUnicode15(c)
}

func isDigit(c rune, ascii bool) bool {
	if ascii || c < 0x80 {
		return c >= '0' && c <= '9'
	}
	return unicode.Is(unicode.Nd, c) && !isUnicode15(c)
}

func isSpace(c rune, ascii bool) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	if ascii {
		return false
	}
	switch c {
	case 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return c >= 0x80 && unicode.Is(unicode.Zs, c) || c == 0x2028 || c == 0x2029
}

// lower is sre_lower_unicode (_PyUnicode_ToLowercase): the simple lowercase mapping (for 'İ',
// whose full lowercase is two code points, the first of them, 'i', which is also its simple
// mapping).
func lower(c rune) rune { return unicode.ToLower(c) }

// upper is sre_upper_unicode (_PyUnicode_ToUppercase): the first code point of the full
// uppercase mapping.
func upper(c rune) rune {
	if u, ok := fullUpper[c]; ok {
		return []rune(u)[0]
	}
	return unicode.ToUpper(c)
}

// isCased is _sre.unicode_iscased: a character that lower or upper changes.
func isCased(c rune) bool { return c != lower(c) || c != upper(c) }

func asciiLower(c rune) rune {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func asciiCased(c rune) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// extraCases is re._casefix._EXTRA_CASES: for a lowercase character, the other lowercase
// characters with the same uppercase ('i' and 'ı', 's' and 'ſ', 'µ' and 'μ', ...; the full
// uppercase: 'ß' is "SS", not "S"), which a case-insensitive literal or set also matches.
// Derived here from the case mappings, in code point order; TestCaseTablesAgainstPython
// compares it with Python's table.
var extraCases = sync.OnceValue(func() map[rune][]rune {
	byUpper := map[string][]rune{}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		lo := lower(c)
		if lo != c {
			continue
		}
		u, ok := fullUpper[lo]
		if !ok {
			u = string(unicode.ToUpper(lo))
		}
		if u == string(lo) {
			continue
		}
		byUpper[u] = append(byUpper[u], lo)
	}
	out := map[rune][]rune{}
	for _, los := range byUpper {
		if len(los) < 2 {
			continue
		}
		for _, lo := range los {
			var others []rune
			for _, o := range los {
				if o != lo {
					others = append(others, o)
				}
			}
			slices.Sort(others)
			out[lo] = others
		}
	}
	return out
})

// unicode15 holds the characters Unicode 15.0 assigned (Go's tables) that Python 3.11's
// Unicode 14.0 does not: to sre they are unassigned (not word characters, not digits, no
// name). TestCaseTablesAgainstPython and TestNamesAgainstPython derive the same list.
var unicode15 = [][2]rune{
	{0x0CF3, 0x0CF3}, {0x0ECE, 0x0ECE}, {0x10EFD, 0x10EFF}, {0x1123F, 0x11241}, {0x11B00, 0x11B09},
	{0x11F00, 0x11F10}, {0x11F12, 0x11F3A}, {0x11F3E, 0x11F59}, {0x1342F, 0x1342F}, {0x13439, 0x13455},
	{0x1B132, 0x1B132}, {0x1B155, 0x1B155}, {0x1D2C0, 0x1D2D3}, {0x1DF25, 0x1DF2A}, {0x1E030, 0x1E06D},
	{0x1E08F, 0x1E08F}, {0x1E4D0, 0x1E4F9}, {0x1F6DC, 0x1F6DC}, {0x1F774, 0x1F776}, {0x1F77B, 0x1F77F},
	{0x1F7D9, 0x1F7D9}, {0x1FA75, 0x1FA77}, {0x1FA87, 0x1FA88}, {0x1FAAD, 0x1FAAF}, {0x1FABB, 0x1FABD},
	{0x1FABF, 0x1FABF}, {0x1FACE, 0x1FACF}, {0x1FADA, 0x1FADB}, {0x1FAE8, 0x1FAE8}, {0x1FAF7, 0x1FAF8},
	{0x2B739, 0x2B739}, {0x31350, 0x323AF}, // CJK unified ideographs (named algorithmically)
}

func isUnicode15(c rune) bool {
	if c < 0x0CF3 {
		return false
	}
	for _, rg := range unicode15 {
		if rg[0] <= c && c <= rg[1] {
			return true
		}
	}
	return false
}
