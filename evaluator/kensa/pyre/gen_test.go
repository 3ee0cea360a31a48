package pyre

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// gen writes Python regular expressions from a grammar (alternation, sequences, quantifiers
// greedy, lazy and possessive, sets with ranges and class escapes, groups plain, named,
// non-capturing, atomic and with scoped flags, lookahead, fixed-width lookbehind,
// backreferences by number and name, conditionals, anchors, \b and \B, global flags, Python's
// escapes), and subjects that exercise them: ASCII, letters with special casings, digits of
// other scripts, whitespace and newlines, and pieces of the pattern's own literals. A few
// patterns are damaged on purpose, so that Python's refusals are compared too.
type gen struct {
	r *rand.Rand
	// groups are the numbers of the groups closed so far, names their names; open counts the
	// groups begun.
	groups []int
	names  []string
	open   int
	lits   []rune
	// maxDepth is how deeply this pattern's groups may nest (1 to 3).
	maxDepth int
}

// alphabet is what literals and subjects are drawn from: ASCII, and characters whose case
// mappings or classes differ between engines (İ ı ß ẞ ς σ Σ ſ K µ μ ǅ ﬅ ﬆ ΐ), letters and
// digits of other scripts, Unicode whitespace.
var alphabet = []rune("가각aAbBcCxyzZ019_-. \n\tİiIıßẞςσΣſsSkKKµμΜǅǆǄﬅﬆΐéÉŉǰ٣٤१日本語Ωω\u00a0\u2028\u3000\x1c!@{}#\U00010400\U00010428ⅰⅠ\u0345ι\u1fbe")

func newGen(seed uint64) *gen {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
	g.maxDepth = 1 + g.r.IntN(3)
	return g
}

func (g *gen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// pattern writes one pattern.
func (g *gen) pattern() string {
	var b strings.Builder
	if g.chance(0.2) {
		b.WriteString("(?" + g.flagLetters("imsax", 1+g.r.IntN(2)) + ")")
	}
	b.WriteString(g.alt(0))
	p := b.String()
	if g.chance(0.08) {
		p = g.damage(p)
	}
	return p
}

func (g *gen) flagLetters(from string, n int) string {
	seen := map[byte]bool{}
	var out []byte
	for range n {
		c := from[g.r.IntN(len(from))]
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return string(out)
}

// damage deletes, doubles or inserts a character, which usually makes the pattern invalid.
func (g *gen) damage(p string) string {
	rs := []rune(p)
	i := g.r.IntN(len(rs) + 1)
	switch g.r.IntN(3) {
	case 0:
		if i < len(rs) {
			return string(rs[:i]) + string(rs[i+1:])
		}
	case 1:
		if i < len(rs) {
			return string(rs[:i+1]) + string(rs[i:])
		}
	}
	ins := g.pick("(", ")", "[", "]", "{", "}", "*", "+", "?", `\`, "|", "(?", `\1`, "{2,1}", "(?<", "-")
	return string(rs[:i]) + ins + string(rs[i:])
}

func (g *gen) alt(depth int) string {
	n := 1
	if g.chance(0.3) {
		n += 1 + g.r.IntN(2)
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.seq(depth)
	}
	return strings.Join(parts, "|")
}

func (g *gen) seq(depth int) string {
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		atom, repeatable := g.atom(depth)
		b.WriteString(atom)
		if repeatable && g.chance(0.3) {
			b.WriteString(g.quantifier())
		}
	}
	return b.String()
}

func (g *gen) quantifier() string {
	q := g.pick("*", "+", "?", "{2}", "{1,3}", "{,2}", "{2,}", "{0}", "{0,1}")
	switch g.r.IntN(4) {
	case 0:
		q += "?"
	case 1:
		q += "+"
	}
	return q
}

func (g *gen) literal() string {
	c := alphabet[g.r.IntN(len(alphabet))]
	g.lits = append(g.lits, c)
	if strings.ContainsRune(specialChars, c) {
		return `\` + string(c)
	}
	return string(c)
}

// atom writes one atom; repeatable is false for what Python refuses to repeat (anchors).
func (g *gen) atom(depth int) (string, bool) {
	if depth >= g.maxDepth || g.chance(0.35) {
		return g.literal(), true
	}
	switch g.r.IntN(20) {
	case 0, 1, 2:
		return g.literal(), true
	case 6:
		return ".", true
	case 7:
		return g.set(), true
	case 8:
		return g.pick(`\d`, `\w`, `\s`, `\D`, `\W`, `\S`), true
	case 9:
		return g.pick("^", "$", `\A`, `\Z`, `\b`, `\B`), false
	case 10:
		return g.escape(), true
	case 11, 12:
		return g.group(depth), true
	case 13:
		return "(?" + g.pick("=", "!") + g.alt(depth+1) + ")", true
	case 14:
		return "(?" + g.pick("<=", "<!") + g.fixedWidth() + ")", true
	case 15:
		return g.backref(), true
	case 16:
		return g.conditional(depth), true
	case 17:
		if g.chance(0.5) {
			return g.edge(), true
		}
		return "(?>" + g.alt(depth+1) + ")", true
	case 18:
		on := g.flagLetters("imsx", 1)
		if g.chance(0.3) {
			return "(?-" + on + ":" + g.alt(depth+1) + ")", true
		}
		if g.chance(0.2) {
			on += g.pick("a", "u")
		}
		return "(?" + on + ":" + g.alt(depth+1) + ")", true
	}
	return g.literal() + g.literal(), true
}

func (g *gen) group(depth int) string {
	g.open++
	n := g.open
	var head string
	switch g.r.IntN(4) {
	case 0:
		head = "(?:"
		g.open--
		n = 0
	case 1:
		name := fmt.Sprintf("g%d", n)
		head = "(?P<" + name + ">"
		defer func() { g.names = append(g.names, name) }()
	default:
		head = "("
	}
	body := g.alt(depth + 1)
	if n > 0 {
		g.groups = append(g.groups, n)
	}
	return head + body + ")"
}

func (g *gen) backref() string {
	if len(g.groups) == 0 {
		if g.chance(0.8) {
			return g.literal()
		}
		return `\` + fmt.Sprint(1+g.r.IntN(3)) // an invalid reference, or an octal escape
	}
	if len(g.names) > 0 && g.chance(0.3) {
		return "(?P=" + g.names[g.r.IntN(len(g.names))] + ")"
	}
	return `\` + fmt.Sprint(g.groups[g.r.IntN(len(g.groups))])
}

func (g *gen) conditional(depth int) string {
	ref := "1"
	switch {
	case len(g.groups) > 0:
		ref = fmt.Sprint(g.groups[g.r.IntN(len(g.groups))])
	case g.open > 0 && g.chance(0.7):
		ref = fmt.Sprint(g.open) // a group still open: valid in a conditional
	case g.chance(0.8):
		return g.literal()
	}
	if g.chance(0.5) {
		return "(?(" + ref + ")" + g.seq(depth+1) + "|" + g.seq(depth+1) + ")"
	}
	return "(?(" + ref + ")" + g.seq(depth+1) + ")"
}

// fixedWidth writes a body for a lookbehind, usually of one width (sometimes not, which Python
// refuses).
func (g *gen) fixedWidth() string {
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(5) {
		case 0:
			b.WriteString(g.set())
		case 1:
			b.WriteString(g.pick(`\w`, `\d`, `\s`, ".", `\b`))
		case 2:
			b.WriteString(g.literal() + "{2}")
		case 3:
			b.WriteString("(?:" + g.literal() + "|" + g.literal() + ")")
		default:
			b.WriteString(g.literal())
		}
	}
	if g.chance(0.1) {
		b.WriteString(g.pick("*", "?", "+"))
	}
	return b.String()
}

func (g *gen) set() string {
	var b strings.Builder
	b.WriteString("[")
	if g.chance(0.3) {
		b.WriteString("^")
	}
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(5) {
		case 0:
			b.WriteString(g.pick("a-z", "A-Z", "0-9", "a-f", "à-ÿ", "α-ω", "Α-Ω", "\u0100-\u017f", "\\x00-\\x1f", "K-k"))
		case 1:
			b.WriteString(g.pick(`\d`, `\w`, `\s`, `\W`, `\S`, `\D`))
		case 2:
			b.WriteString(g.pick(`\n`, `\t`, `\x41`, `\u00e9`, `\U0001F600`, `\101`, `\b`, `\]`, `\-`, `\\`))
		default:
			c := alphabet[g.r.IntN(len(alphabet))]
			g.lits = append(g.lits, c)
			if strings.ContainsRune(`]\^-[`, c) {
				b.WriteString(`\`)
			}
			b.WriteRune(c)
		}
	}
	b.WriteString("]")
	return b.String()
}

// edge writes one of the constructs where engines tend to differ: empty iterations, repeated
// groups with backreferences, braces that are not quantifiers, octal and group escapes,
// verbose comments, unusual sets and flags, case-insensitive sets beyond the BMP.
func (g *gen) edge() string {
	return g.pick(`(a|)*`, `(?:a?)*?b`, `(a*)+`, `(a|b)*\1`, `(?i)(s)\1`, `(?:(a)|b)*(?(1)x|y)`,
		`(?:x|(y))+\1?`, `a{`, `{,}`, `x{1`, `a{,}b`, `{}`, `\12`, `\08`, `\777`, `\1234`,
		`(?x: a # c\n b)`, `[]a]`, `[^]]`, `[a-]`, `[\d-z]`, `[z-a]`, `(?-a:x)`, `(?au:x)`, `(?i-i:x)`,
		`(?L)`, `(?P<1a>x)`, `(?P<>x)`, `(?P=zz)`, `(?i:[\U00010400-\U00010410x])`,
		`(?i:[\U00010400y])`, `(?<=(a))\1`, `(a)(?<=\1)`, `(?(1)`, `(?<a>b)`, `(?'a'b)`,
		`\B`, `$\n`, `\Z\n?`, `(?s:.)*?$`, `(?m:^$)`, `(?a:\w+)`, `(?a)(?u)x`, `a{4294967295}`,
		`(?#a comment)`, `(?#unterminated`, `[[:alpha:]]`, `\N{LATIN SMALL LETTER A}`, `(?i)ß`,
		`\N{latin small letter sharp s}`, `[\N{GREEK SMALL LETTER FINAL SIGMA}x]`, `\N{HANGUL SYLLABLE GAG}`,
		`\N{CJK UNIFIED IDEOGRAPH-65E5}`, `\N{NO SUCH NAME}`, `\N{LINE FEED}`, `\N`, `\N{`, `\N{}`,
		`(?i)[ß-ß]`, `(?i)\u1e9e`, `(?i:[^k])`, `(?i)[^s]`, `(?>a+)b`, `(a+)++b`, `(?:a|ab)(?:c|bcd)`,
		`(?=(a+))a*b\1`, `((a)|b)+`, `(?(2)x)`, `\b\B`, `^*`, `(?i)[a-z]+`, `(?i)İ`, `(?i)ı`,
		`(?(2)x|y)(a)(b)`, `(?(1)a|b)+(c)`, `(?=a)*`, `(?<=a)+b`, `\b*`, `(?:)*`, `()*`, `(|a)+`, `(a?)+?b`,
		`(a|b|)+?c`, `(?>(a|)*)b`, `(a|)++b`, `(?:(a)|(b))+\1\2`, `(?i)(?:(K)|k)\1`, `(a)|\1`, `(?x)a#\n|b`)
}

func (g *gen) escape() string {
	return g.pick(`\x41`, `\x61`, `\u0130`, `\u00df`, `\U0001F600`, `\0`, `\101`, `\n`, `\t`,
		`\.`, `\-`, `\é`, `\\`, `\a`, `\f`, `\v`, `\r`, `\u03c2`, `\u212a`)
}

// subject writes a text to search: random characters of the alphabet, and pieces of the
// pattern's literals so that matches are frequent.
func (g *gen) subject() string {
	var b strings.Builder
	n := g.r.IntN(13) // longer subjects would let Python backtrack for hours on nested repeats
	for range n {
		if len(g.lits) > 0 && g.chance(0.6) {
			b.WriteRune(g.lits[g.r.IntN(len(g.lits))])
			continue
		}
		b.WriteRune(alphabet[g.r.IntN(len(alphabet))])
	}
	return b.String()
}

// genCase is one generated pattern and its subjects.
type genCase struct {
	Seed     uint64   `json:"seed"`
	Pattern  string   `json:"pattern"`
	Subjects []string `json:"subjects"`
}

func generate(seed uint64, subjects int) genCase {
	g := newGen(seed)
	c := genCase{Seed: seed, Pattern: g.pattern()}
	for range subjects {
		c.Subjects = append(c.Subjects, g.subject())
	}
	return c
}
