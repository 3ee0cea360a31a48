package kensa

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Outcomes of re.search(pattern, subject) in Python, and here.
const (
	rxMatch       = "match"
	rxNoMatch     = "nomatch"
	rxInvalid     = "invalid"     // Python's re refuses the pattern; so does package pyre
	rxUnsupported = "unsupported" // cannot be re-derived here (a step budget spent, \N{name}): the run is an error
)

// regexCases are Python re patterns over subjects: what matches as Python matches, what is
// invalid in both, and what cannot be re-derived. The Python outcomes are checked against
// python3 by TestPyRegexAgainstPython; package pyre compares far more, generated, patterns.
var regexCases = []struct {
	pattern, subject, want string
}{
	// Python 3 str semantics.
	{`refunded\.$`, "Order refunded.", rxMatch},
	{`end$`, "end\n", rxMatch},               // $ also matches before a final newline
	{`end$`, "end\n\n", rxNoMatch},           // but only the final one
	{`a$|b`, "xb", rxMatch},                  // $ ending a branch
	{`(end$)`, "end\n", rxMatch},             // $ ending a group
	{`a\Z`, "a\n", rxNoMatch},                // \Z is the very end
	{`\Aab`, "ab", rxMatch},                  //
	{`^a`, "ba\na", rxNoMatch},               // ^ is the start of the text
	{`(?m)^a$`, "b\na\nc", rxMatch},          // multiline
	{`a.c`, "a\nc", rxNoMatch},               // . stops at a newline
	{`(?s)a.c`, "a\nc", rxMatch},             // unless DOTALL
	{`(?i)ORDER`, "order", rxMatch},          //
	{`(?i:A)b`, "ab", rxMatch},               // scoped flags
	{`(?-i:a)B`, "aB", rxMatch},              //
	{`\d+`, "٣٤", rxMatch},                   // \d is Unicode Nd
	{`(?a)\d`, "٣", rxNoMatch},               // ASCII mode
	{`\w+$`, "héllo", rxMatch},               // \w is Unicode
	{`(?a)\w`, "é", rxNoMatch},               //
	{`\s`, "\x1c", rxMatch},                  // str.isspace
	{`\S`, " ", rxNoMatch},                   //
	{`[\d]`, "5", rxMatch},                   // classes inside a set
	{`[\s\w]+`, "a b", rxMatch},              //
	{`\D`, "٣", rxNoMatch},                   //
	{`\bcat\b`, "a cat.", rxMatch},           // \b on ASCII text
	{`\Bat`, "cat", rxMatch},                 //
	{`A-2{,2}00`, "A-200", rxMatch},          // {,n} is {0,n}
	{`a{,}b`, "aaab", rxMatch},               // {,} is {0,}
	{`a{}`, "a{}", rxMatch},                  // not a repeat: literal braces
	{`a{1`, "a{1", rxMatch},                  //
	{`a{2,3}?`, "aa", rxMatch},               // lazy
	{`x{1000}`, "x", rxNoMatch},              // RE2's largest count
	{`\x41\u00e9\U0001F600`, "Aé😀", rxMatch}, //
	{`\0`, "\x00", rxMatch},                  // octal
	{`\101`, "A", rxMatch},                   // three octal digits
	{`\0101`, "\x081", rxMatch},              // \0 and two more, then a 1
	{`[\1]`, "\x01", rxMatch},                // in a set, octal
	{`[]a]`, "]", rxMatch},                   // ] first in a set is literal
	{`[^]a]`, "b", rxMatch},                  //
	{`(?#comment)a`, "a", rxMatch},           // comments are dropped
	{`(?P<n>a)b`, "ab", rxMatch},             // named groups
	{`\.`, ".", rxMatch},                     //
	{`\é`, "é", rxMatch},                     // a non-ASCII escape is the character

	// Invalid in Python, and here: the check fails (Kensa: "Invalid regex …").
	{`(shipped`, "x", rxInvalid},
	{`abc)`, "x", rxInvalid},
	{`[abc`, "x", rxInvalid},
	{`a**`, "x", rxInvalid},
	{`*a`, "x", rxInvalid},
	{`x{2}{3}`, "x", rxInvalid},
	{`A-10{2,1}`, "x", rxInvalid},
	{`\q`, "q", rxInvalid},
	{`\z`, "z", rxInvalid},
	{`\p{L}`, "a", rxInvalid},
	{`\`, "x", rxInvalid},
	{`a(?i)b`, "ab", rxInvalid},
	{`(?L)a`, "a", rxInvalid},
	{`(?`, "a", rxInvalid},
	{`(?Q)`, "a", rxInvalid},
	{`\x4`, "a", rxInvalid},
	{`[\B]`, "a", rxInvalid},
	{`[\8]`, "a", rxInvalid},
	{`\400`, "a", rxInvalid},
	{`a\1`, "a", rxInvalid}, // no such group
	{`(a)\10`, "a", rxInvalid},
	{`(a\1)`, "a", rxInvalid}, // an open group

	// Python's re beyond RE2, matched as Python matches (package pyre).
	{`(a)\1`, "aa", rxMatch},
	{`(?P<n>a)(?P=n)`, "aa", rxMatch},
	{`(?=a)a`, "a", rxMatch},
	{`(?!b)a`, "a", rxMatch},
	{`(?<=a)b`, "ab", rxMatch},
	{`(?<!a)b`, "b", rxMatch},
	{`(?>a)`, "a", rxMatch},
	{`a++`, "aa", rxMatch},
	{`a{2}+`, "aa", rxMatch},
	{`(a)?(?(1)b|c)`, "c", rxMatch},
	{`(?x) a b`, "ab", rxMatch},
	{`(?x:a b)`, "ab", rxMatch},
	{`x{1001}`, "x", rxNoMatch},
	{`x{,1001}`, "x", rxMatch},
	{`end$x`, "endx", rxNoMatch},
	{`[\W]`, "!", rxMatch},
	{`\bcat\b`, "é cat é", rxMatch}, // Unicode word boundaries
	{`\bcat\b`, "écaté", rxNoMatch},
	{`(?i)STRASSE`, "straße", rxNoMatch}, // simple case mapping: ß is not ss
	{`(?i)ß`, "ẞ", rxMatch},

	// What Python would take hours over is not guessed: the step budget is spent.
	{`(a+)+$`, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", rxUnsupported},
	{`\N{LATIN SMALL LETTER E WITH ACUTE}`, "é", rxMatch}, // Unicode's names
	// Python also knows the aliases of NameAliases.txt, not carried here.
	{`\N{LINE FEED}`, "\n", rxUnsupported},
}

func regexOutcome(pattern, subject string) (string, error) {
	matched, err := searchPython(pattern, subject)
	switch {
	case err != nil && isUnsupported(err):
		return rxUnsupported, err
	case err != nil:
		return rxInvalid, err
	case matched:
		return rxMatch, nil
	}
	return rxNoMatch, nil
}

// Each pattern translates and matches as Python's re.search does, is invalid as in Python, or
// is refused as beyond RE2.
func TestPyRegex(t *testing.T) {
	defer func(b int) { regexBudget = b }(regexBudget)
	regexBudget = 1_000_000 // the catastrophic case spends it sooner; the outcome is the same
	for _, c := range regexCases {
		if got, err := regexOutcome(c.pattern, c.subject); got != c.want {
			t.Errorf("re.search(%q, %q): %s (%v), want %s", c.pattern, c.subject, got, err, c.want)
		}
	}
}

// pythonSearch prints, for each [pattern, subject], match, nomatch or invalid.
const pythonSearch = `
import json, re, sys
print(sys.version_info[0] * 100 + sys.version_info[1])
for p, s in json.load(sys.stdin):
    try:
        print("match" if re.compile(p).search(s) else "nomatch")
    except re.error:
        print("invalid")
`

// The Python outcomes of regexCases are Python's (python3 ≥ 3.11, whose re has possessive
// quantifiers and atomic groups): matches and invalid patterns agree. The cases that cannot be
// re-derived are not asked (Python would take hours over the first). Skipped without python3.
func TestPyRegexAgainstPython(t *testing.T) {
	var in [][2]string
	var asked []int
	for i, c := range regexCases {
		if c.want != rxUnsupported {
			in = append(in, [2]string{c.pattern, c.subject})
			asked = append(asked, i)
		}
	}
	stdin, _ := json.Marshal(in)
	got := strings.Fields(runPython(t, pythonSearch, stdin))
	if len(got) == 0 {
		t.Fatal("python3 printed nothing")
	}
	if version, _ := strconv.Atoi(got[0]); version < 311 {
		t.Skipf("python3 is older than 3.11 (%s), whose re the table describes", got[0])
	}
	got = got[1:]
	if len(got) != len(asked) {
		t.Fatalf("python3 gave %d outcomes for %d cases", len(got), len(asked))
	}
	for j, i := range asked {
		if c := regexCases[i]; got[j] != c.want {
			t.Errorf("re.search(%q, %q): Python gives %s, the table says %s", c.pattern, c.subject, got[j], c.want)
		}
	}
}

// output_matches over a trace: what Python's re decides is the check's result, Kensa's detail
// included; what cannot be re-derived makes the check unsupported, saying why.
func TestOutputMatchesOutcomes(t *testing.T) {
	defer func(b int) { regexBudget = b }(regexBudget)
	regexBudget = 1_000_000
	catastrophic := trace(llmSpan("a", 0, 20, 10, strings.Repeat("a", 40)+"!"))
	tests := []struct {
		name, trace, pattern string
		passed, unsupported  bool
		detail               string
	}{
		{"lookbehind", refundTrace, `(?<=A-)200`, true, false, `Matched: /(?<=A-)200/`},
		{"backreference", refundTrace, `(\d)0\1`, false, false, `No match: /(\d)0\1/`},
		{"invalid", refundTrace, `(refunded`, false, false, `Invalid regex '(refunded': missing ), unterminated subpattern at position 0`},
		{"budget", catastrophic, `(a+)+$`, false, true, `Unsupported regex '(a+)+$': pyre: step budget exceeded (more than 1000000 matcher steps)`},
		{"alias", refundTrace, `\N{LINE FEED}`, false, true, `Unsupported regex '\\N{LINE FEED}': pyre: unsupported: \N{LINE FEED}: a name not in the Unicode character database here, perhaps an alias`},
	}
	for _, tt := range tests {
		params, _ := json.Marshal(map[string]string{"pattern": tt.pattern})
		r := evalCheck(t, checkCase{name: tt.name, trace: tt.trace, check: "output_matches", params: string(params)})
		if r.Passed != tt.passed || r.Unsupported != tt.unsupported || r.Detail != tt.detail {
			t.Errorf("%s: passed %v, unsupported %v, %q; want %v, %v, %q", tt.name, r.Passed, r.Unsupported, r.Detail, tt.passed, tt.unsupported, tt.detail)
		}
	}
}
