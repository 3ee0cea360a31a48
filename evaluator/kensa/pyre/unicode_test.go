package pyre

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// pythonTables prints, for every code point Python's Unicode database assigns, the properties
// sre uses: its lowercase (sre_lower_unicode), whether it is cased, a word character, a
// decimal digit, whitespace; then _EXTRA_CASES.
const pythonTables = `
import _sre, unicodedata
from re._casefix import _EXTRA_CASES
out = []
for c in range(0x110000):
    ch = chr(c)
    if unicodedata.category(ch) == "Cn" or 0xD800 <= c <= 0xDFFF:
        continue
    out.append("%x %x %d %d %d %d" % (c, _sre.unicode_tolower(c), _sre.unicode_iscased(c),
        ch.isalnum() or ch == "_", ch.isdecimal(), ch.isspace()))
print("\n".join(out))
print("extra")
for k in sorted(_EXTRA_CASES):
    print("%x %s" % (k, " ".join("%x" % v for v in _EXTRA_CASES[k])))
`

// The case mappings and classes here are sre's for every character Python's Unicode database
// (14.0 in Python 3.11) assigns and Go's (15.0) does not treat differently because it is
// newer; characters Go assigns and Python does not are not compared.
func TestCaseTablesAgainstPython(t *testing.T) {
	out := runPython(t, pythonTables, nil)
	props, extra, _ := strings.Cut(out, "extra\n")
	bad := 0
	assigned := make([]bool, unicode.MaxRune+1)
	for line := range strings.Lines(props) {
		f := strings.Fields(line)
		c64, _ := strconv.ParseInt(f[0], 16, 32)
		lo64, _ := strconv.ParseInt(f[1], 16, 32)
		c := rune(c64)
		assigned[c] = true
		got := [5]int{int(lower(c)), b2i(isCased(c)), b2i(isWord(c, false)), b2i(isDigit(c, false)), b2i(isSpace(c, false))}
		want := [5]int{int(lo64), atoi(f[2]), atoi(f[3]), atoi(f[4]), atoi(f[5])}
		if got != want {
			bad++
			if bad <= 20 {
				t.Errorf("U+%04X: lower, cased, word, digit, space: %v, Python %v", c, got, want)
			}
		}
	}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if !assigned[c] && (c < 0xD800 || c > 0xDFFF) && (isWord(c, false) || isDigit(c, false) || isSpace(c, false) || isCased(c)) {
			bad++
			if bad <= 20 {
				t.Errorf("U+%04X, unassigned in Python's Unicode, is a word character, digit, space or cased here", c)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ", bad)
	}
	table := extraCases()
	n := 0
	for line := range strings.Lines(extra) {
		f := strings.Fields(line)
		k, _ := strconv.ParseInt(f[0], 16, 32)
		var want []rune
		for _, v := range f[1:] {
			x, _ := strconv.ParseInt(v, 16, 32)
			want = append(want, rune(x))
		}
		n++
		if got := table[rune(k)]; !slices.Equal(got, want) {
			t.Errorf("extra cases of U+%04X: %U, Python %U", k, got, want)
		}
	}
	if n != len(table) {
		t.Errorf("%d extra cases, Python has %d", len(table), n)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pythonNames prints every character's name in Python's database (Hangul syllables and CJK
// unified ideographs included).
const pythonNames = `
import unicodedata
for c in range(0x110000):
    n = unicodedata.name(chr(c), "")
    if n:
        print("%x %s" % (c, n))
`

// \N{name} finds, for every name of Python's database, its character, and finds no name
// Python does not know (Unicode 15.0's additions).
func TestNamesAgainstPython(t *testing.T) {
	known := map[string]bool{}
	missing := 0
	for line := range strings.Lines(runPython(t, pythonNames, nil)) {
		hex, name, _ := strings.Cut(strings.TrimSpace(line), " ")
		c, _ := strconv.ParseInt(hex, 16, 32)
		known[name] = true
		r, ok := lookupName(strings.ToLower(name))
		switch {
		case !ok:
			missing++
		case r != rune(c):
			t.Errorf("\\N{%s}: U+%04X, Python U+%04X", name, r, c)
		}
	}
	for name, r := range names() {
		if _, ok := lookupName(name); ok && !known[name] {
			t.Errorf("\\N{%s} is U+%04X here; Python does not know the name", name, r)
		}
	}
	if missing > 0 {
		t.Errorf("%d names of Python's database are not found here", missing)
	}
}
