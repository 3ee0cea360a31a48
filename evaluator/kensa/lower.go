package kensa

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyLower is Python's str.lower() (Objects/unicodeobject.c, do_lower): each character's full
// lowercase mapping, which differs from the simple one Go's unicode.ToLower gives for one
// character only (U+0130 İ, two code points: i and U+0307), and capital sigma lowercased to
// final sigma (ς) where it ends a word, Unicode's Final_Sigma condition as Python tests it
// (handle_capital_sigma). Python 3.11 has Unicode 14, Go's tables 15: characters new in 15 are
// not cased or case-ignorable in Python's data, and pyCaseData says so (docs/decisions.md,
// "Kensa's case mapping").
func pyLower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == 'İ':
			b.WriteString("i\u0307")
		case r == 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		case newInUnicode15(r):
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at byte i of s is in the Final_Sigma context:
// a cased letter before it and none after it, case-ignorable characters skipped both ways.
func finalSigma(s string, i int) bool {
	j := i
	var before rune = -1
	for j > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:j])
		j -= n
		if !caseIgnorable(r) {
			before = r
			break
		}
	}
	if before < 0 || !cased(before) {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// cased is Unicode's Cased property (Lu, Ll, Lt, Other_Lowercase, Other_Uppercase).
func cased(r rune) bool {
	if newInUnicode15(r) {
		return false
	}
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk, and the characters
// whose Word_Break is MidLetter, MidNumLet or Single_Quote (Go's unicode package has no
// Word_Break table; they are listed).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', '\u0387', '\u055F', '\u05F4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A':
		return true
	}
	if newInUnicode15(r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// newInUnicode15 reports whether r is one of the characters assigned in Unicode 15.0 that are
// cased or case-ignorable there: Go's tables have them, Python 3.11's (Unicode 14.0) do not,
// so for Python they are neither. The list is what TestPyLowerIsPython found comparing every
// code point with python3 3.11; none of them has a lowercase mapping.
func newInUnicode15(r rune) bool {
	return r >= 0xECE && unicode.Is(unicode15CaseProps, r)
}

var unicode15CaseProps = &unicode.RangeTable{
	R16: []unicode.Range16{{0xECE, 0xECE, 1}},
	R32: []unicode.Range32{{0x10EFD, 0x10EFF, 1}, {0x11241, 0x11241, 1}, {0x11F00, 0x11F01, 1}, {0x11F36, 0x11F3A, 1},
		{0x11F40, 0x11F40, 1}, {0x11F42, 0x11F42, 1}, {0x13439, 0x13440, 1}, {0x13447, 0x13455, 1}, {0x1DF25, 0x1DF2A, 1},
		{0x1E030, 0x1E06D, 1}, {0x1E08F, 0x1E08F, 1}, {0x1E4EB, 0x1E4EF, 1}},
}
