package kensagen

import (
	"strings"
)

// pattern is an output_matches pattern from a small grammar of Python's re: literals taken
// from the outputs, classes, anchors, groups, alternation, quantifiers on single atoms (so
// that no pattern backtracks catastrophically), lookaround, backreferences, inline flags,
// Python's own escapes, and patterns Python refuses.
func (g *gen) pattern(dataset bool) string {
	if dataset && g.chance(0.1) {
		return pick(g, []string{"{{word}}", "^{{word}}", "(?i){{word}}"})
	}
	if !dataset && g.allow(FeatureBracesNoDataset, 0.03) {
		return "{{word}}"
	}
	g.use(FeatureRegex)
	if g.allow(FeatureRegexInvalid, 0.06) {
		return pick(g, []string{"(", "[a-", "*x", "(?<=a+)b", `\1(a)`, "(?P<1>x)", "a{2,1}", "(?i", `\p{L}`, "x(?i)y"})
	}
	var b strings.Builder
	if g.allow(FeatureRegexFlags, 0.1) {
		b.WriteString(pick(g, []string{"(?i)", "(?s)", "(?m)", "(?a)", "(?ai)", "(?x)"}))
	}
	groups := 0
	g.seq(&b, 1+g.intn(3), 2, &groups)
	return b.String()
}

func (g *gen) seq(b *strings.Builder, n, depth int, groups *int) {
	for range n {
		g.term(b, depth, groups)
	}
}

func (g *gen) term(b *strings.Builder, depth int, groups *int) {
	switch k := g.intn(14); {
	case k < 4:
		b.WriteString(g.literal())
	case k < 6:
		atom := pick(g, []string{`\d`, `\s`, `.`, `[a-z]`, `[^ ]`, `[A-Za-z0-9_-]`, `\S`})
		if g.allow(FeatureRegexUnicode, 0.4) {
			atom = pick(g, []string{`\w`, `\W`, `[İı]`, `[ßẞ]`, `\w`})
		}
		b.WriteString(atom)
		if atom == "." {
			// Only bounded repeats of ".": ".*" twice over a long output backtracks for minutes.
			b.WriteString(pick(g, []string{"", "?", "{2}"}))
		} else {
			b.WriteString(g.quantifier())
		}
	case k < 7:
		if g.allow(FeatureRegexUnicode, 0.5) {
			b.WriteString(pick(g, []string{`\b`, `\B`}))
		} else {
			b.WriteString(pick(g, []string{"^", "$", `\A`, `\Z`}))
		}
	case k < 9 && depth > 0:
		*groups++
		open := pick(g, []string{"(", "(?:", "(?P<g" + string(rune('0'+*groups)) + ">"})
		if g.allow(FeatureRegexFlags, 0.1) {
			open = "(?i:"
		}
		if open == "(?:" || open == "(?i:" {
			*groups--
		}
		b.WriteString(open)
		g.seq(b, 1+g.intn(2), depth-1, groups)
		if g.chance(0.4) {
			b.WriteString("|")
			g.seq(b, 1, depth-1, groups)
		}
		b.WriteString(")")
		if g.chance(0.3) {
			b.WriteString(pick(g, []string{"?", "{0,1}"}))
		}
	case k < 11 && depth > 0 && g.allow(FeatureRegexLookaround, 0.8):
		switch g.intn(4) {
		case 0:
			b.WriteString("(?=" + g.literal() + ")")
		case 1:
			b.WriteString("(?!" + g.literal() + ")")
		case 2:
			b.WriteString("(?<=" + g.literal() + ")")
		default:
			b.WriteString("(?<!" + g.literal() + ")")
		}
	case k < 12 && *groups > 0 && g.allow(FeatureRegexBackref, 0.8):
		if g.chance(0.5) {
			b.WriteString(`\1`)
		} else {
			b.WriteString("(?P=g1)")
		}
	case k < 13 && g.allow(FeatureRegexEscapes, 0.8):
		b.WriteString(pick(g, []string{`\u00df`, `\x41`, `\N{LATIN SMALL LETTER SHARP S}`, `\U0001F389`, `\t`, `\n`, `\.`, `\0`}))
	default:
		b.WriteString(g.literal())
	}
}

// literal is a piece of a word of an output, escaped as re.escape would (special characters
// only).
func (g *gen) literal() string {
	src := pick(g, words)
	if len(g.outputs) > 0 && g.chance(0.7) {
		if f := strings.Fields(pick(g, g.outputs)); len(f) > 0 {
			src = pick(g, f)
		}
	}
	rs := []rune(src)
	i := g.intn(len(rs))
	j := i + 1 + g.intn(len(rs)-i)
	var b strings.Builder
	for _, r := range rs[i:j] {
		if strings.ContainsRune(`.^$*+?{}[]\|()#`, r) || r == ' ' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (g *gen) quantifier() string {
	if g.chance(0.5) {
		return ""
	}
	return pick(g, []string{"*", "+", "?", "{2}", "{1,3}", "*?", "+?", "{0,2}"})
}
