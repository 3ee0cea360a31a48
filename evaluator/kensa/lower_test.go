package kensa

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// output_contains lowercases as Python's str.lower() does (checks.check_output_contains):
// full mappings and the final sigma.
func TestOutputContainsCaseMapping(t *testing.T) {
	cases := []struct {
		name, output, value string
		caseSensitive       bool
		found               bool
	}{
		{"dotted capital I is two code points", "İstanbul", "i̇stanbul", false, true},
		{"dotted capital I is not a plain i", "İstanbul", "istanbul", false, false},
		{"final sigma is not a medial one", "ΟΔΟΣ", "οδο\u03c3", false, false},
		{"final sigma matched", "ΟΔΟΣ", "οδο\u03c2", false, true},
		{"sigma inside a word", "ΟΔΟΣΟΣ", "οσο", false, true},
		{"a capital sigma alone is not final", "Σ", "σ", false, true},
		{"sigma after an apostrophe-skipped letter", "Α'Σ", "α'ς", false, true},
		{"sharp s lowercases to itself", "STRASSE straße", "ß", false, true},
		{"case sensitive leaves İ", "İ", "i̇", true, false},
		{"ascii", "Order REFUNDED", "refunded", false, true},
	}
	for _, c := range cases {
		out := pyvalue.NewDict([]string{"value"}, []pyvalue.Value{pyvalue.NewStr(c.output)})
		spans := []kensa.Span{{Kind: "llm", Output: &out}}
		params := pyvalue.NewDict([]string{"value", "case_sensitive"}, []pyvalue.Value{pyvalue.NewStr(c.value), pyvalue.NewBool(c.caseSensitive)})
		got := outputContains(spans, params)
		if got.Passed != c.found {
			t.Errorf("%s: %q in %q: found %v, Python's lower() gives %v", c.name, c.value, c.output, got.Passed, c.found)
		}
	}
}

// pyLower agrees with python3's str.lower() on every code point (its mapping, and whether it
// is cased or case-ignorable for the final sigma), and on random strings of the characters
// that matter to the final sigma.
func TestPyLowerIsPython(t *testing.T) {
	const table = `
import sys
fin = lambda s: s.lower()[-1] == '\u03c2'
for c in range(0x110000):
    if 0xD800 <= c <= 0xDFFF: continue
    ch = chr(c)
    l = ch.lower()
    ign = fin('A' + ch + '\u03a3') and not fin('1' + ch + '\u03a3')
    cased = (not ign) and fin(ch + '\u03a3')
    if l != ch or ign or cased:
        print('%x %s %d %d' % (c, '.'.join('%x' % ord(x) for x in l) if l != ch else '-', ign, cased))
`
	want := runPython(t, table, nil)
	got := pyLowerTable()
	if got != want {
		wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
		wset := map[string]bool{}
		for _, l := range wl {
			wset[l] = true
		}
		n := 0
		for _, l := range gl {
			if !wset[l] && n < 20 {
				t.Errorf("code point %s: here, not in python3's table", l)
				n++
			}
		}
		t.Fatalf("the table differs from python3's (%d lines here, %d there)", len(gl), len(wl))
	}

	alphabet := []rune("AaΣσς'.·\u0301\u00adİ1 ΑΩßẞΆ\u0345ʰ:")
	rng := rand.New(rand.NewPCG(21, 1))
	var inputs []string
	for range 3000 {
		n := 1 + rng.IntN(7)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(rs))
	}
	var stdin strings.Builder
	for _, in := range inputs {
		stdin.WriteString(pyvalue.Dumps(pyvalue.NewStr(in)) + "\n")
	}
	out := runPython(t, "import sys, json\nfor l in sys.stdin: print(json.dumps(json.loads(l).lower()))", []byte(stdin.String()))
	sc := bufio.NewScanner(strings.NewReader(out))
	for i := 0; sc.Scan(); i++ {
		want, _ := pyvalue.Loads("python", sc.Bytes())
		ws, _ := want.AsStr()
		if got := pyLower(inputs[i]); got != ws {
			t.Errorf("%+q.lower(): python3 %+q, here %+q", inputs[i], ws, got)
		}
	}
}

// pyLowerTable is the table TestPyLowerIsPython's script prints, from pyLower.
func pyLowerTable() string {
	var b strings.Builder
	final := func(s string) bool { return strings.HasSuffix(pyLower(s), "ς") }
	for c := rune(0); c < 0x110000; c++ {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		ch := string(c)
		l := pyLower(ch)
		ign := final("A"+ch+"Σ") && !final("1"+ch+"Σ")
		cs := !ign && final(ch+"Σ")
		if l == ch && !ign && !cs {
			continue
		}
		m := "-"
		if l != ch {
			var parts []string
			for _, x := range l {
				parts = append(parts, fmt.Sprintf("%x", x))
			}
			m = strings.Join(parts, ".")
		}
		fmt.Fprintf(&b, "%x %s %d %d\n", c, m, bit(ign), bit(cs))
	}
	return b.String()
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}
