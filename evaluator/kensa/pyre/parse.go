package pyre

import (
	"fmt"
	"slices"
	"strconv"
	"unicode"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// The parser reads a pattern as Python 3.11's re/_parser.py does: the same grammar, the same
// errors at the same positions, and the same intermediate form (a subpattern of items), so
// that what is refused, and what each construct means, is Python's.

type flags uint16

// Python's flags (re/_constants.py), by their inline letters.
const (
	flagTemplate   flags = 1 << iota // t
	flagIgnoreCase                   // i
	flagLocale                       // L
	flagMultiline                    // m
	flagDotAll                       // s
	flagUnicode                      // u
	flagVerbose                      // x
	flagDebug
	flagASCII // a

	typeFlags   = flagASCII | flagLocale | flagUnicode
	globalFlags = flagDebug | flagTemplate
)

var flagLetters = map[rune]flags{
	'i': flagIgnoreCase, 'L': flagLocale, 'm': flagMultiline, 's': flagDotAll,
	'x': flagVerbose, 'a': flagASCII, 't': flagTemplate, 'u': flagUnicode,
}

// maxRepeat is sre's MAXREPEAT (2**32 - 1): a count that large raises OverflowError.
const maxRepeat = 1<<32 - 1

// maxNesting is how deeply groups may nest here: Python's recursive parser raises
// RecursionError somewhere beyond 400 (near 500 with the default recursion limit of 1,000,
// fewer frames left the deeper its caller's stack), so a deeper pattern cannot be re-derived.
const maxNesting = 400

// maxGroups is _parser.MAXGROUPS on a 64-bit build.
const maxGroups = 1<<31 - 1

type opcode uint8

const (
	opLiteral opcode = iota + 1
	opNotLiteral
	opIn
	opAny
	opAt
	opBranch
	opSubpattern
	opAtomic
	opRepeat
	opAssert
	opAssertNot
	opGroupref
	opGrouprefExists
)

type repKind uint8

const (
	greedy repKind = iota
	lazy
	possessive
)

type atKind uint8

const (
	atBeginning       atKind = iota + 1 // ^
	atBeginningString                   // \A
	atBoundary                          // \b
	atNonBoundary                       // \B
	atEnd                               // $
	atEndString                         // \Z
)

type category uint8

const (
	catDigit category = iota + 1
	catNotDigit
	catSpace
	catNotSpace
	catWord
	catNotWord
)

type setKind uint8

const (
	setLiteral setKind = iota + 1
	setRange
	setCategory
)

type setItem struct {
	kind   setKind
	lo, hi rune
	cat    category
}

// item is one element of a subpattern: (op, av) in _parser.py.
type item struct {
	op     opcode
	c      rune // literal, not literal; the group of a groupref
	at     atKind
	set    []setItem // IN
	negate bool      // IN
	alts   []*subpattern
	group  int // subpattern: 0 when it does not capture; groupref exists: the group
	add    flags
	del    flags
	body   *subpattern
	min    int
	max    int
	rep    repKind
	behind bool
	yes    *subpattern
	no     *subpattern // nil when the conditional has no "no" branch
}

// equal is Python's == on two items, which the branch prefix factoring uses: items that hold a
// subpattern never compare equal (SubPattern has no __eq__).
func (a *item) equal(b *item) bool {
	if a.op != b.op {
		return false
	}
	switch a.op {
	case opLiteral, opNotLiteral, opGroupref:
		return a.c == b.c
	case opAny:
		return true
	case opAt:
		return a.at == b.at
	case opIn:
		return a.negate == b.negate && slices.Equal(a.set, b.set)
	}
	return false
}

type subpattern struct {
	items []*item
}

// width bounds are saturated at maxWidth (_parser.MAXWIDTH is 2**64; only equality of the two
// bounds matters, for a lookbehind).
const maxWidth = int64(1) << 62

func satAdd(a, b int64) int64 { return min(a+b, maxWidth) }

func satMul(a int64, n int) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	if a > maxWidth/int64(n) {
		return maxWidth
	}
	return min(a*int64(n), maxWidth)
}

// width is SubPattern.getwidth.
func (p *subpattern) width(st *state) (lo, hi int64) {
	for _, it := range p.items {
		var i, j int64
		switch it.op {
		case opBranch:
			i = maxWidth
			for _, alt := range it.alts {
				l, h := alt.width(st)
				i, j = min(i, l), max(j, h)
			}
		case opAtomic, opSubpattern:
			i, j = it.body.width(st)
		case opRepeat:
			l, h := it.body.width(st)
			lo = satAdd(lo, satMul(l, it.min))
			if it.max == maxRepeat && h > 0 {
				hi = maxWidth
			} else {
				hi = satAdd(hi, satMul(h, it.max))
			}
			continue
		case opLiteral, opNotLiteral, opIn, opAny:
			i, j = 1, 1
		case opGroupref:
			w := st.groupWidths[it.c]
			i, j = w[0], w[1]
		case opGrouprefExists:
			i, j = it.yes.width(st)
			if it.no != nil {
				l, h := it.no.width(st)
				i, j = min(i, l), max(j, h)
			} else {
				i = 0
			}
		}
		lo, hi = satAdd(lo, i), satAdd(hi, j)
	}
	return lo, hi
}

// state is _parser.State.
type state struct {
	flags            flags
	groupdict        map[string]int
	groupWidths      [][2]int64 // by group; group 0 is the whole pattern
	groupClosed      []bool
	lookbehindGroups int // -1 outside a lookbehind
	grouprefPos      map[int]int
	grouprefOrder    []int
}

func (st *state) groups() int { return len(st.groupWidths) }

func (st *state) openGroup(name string, named bool) (int, string) {
	gid := st.groups()
	st.groupWidths = append(st.groupWidths, [2]int64{})
	st.groupClosed = append(st.groupClosed, false)
	if st.groups() > maxGroups {
		return 0, "too many groups"
	}
	if named {
		if old, ok := st.groupdict[name]; ok {
			return 0, fmt.Sprintf("redefinition of group name %s as group %d; was group %d", pyvalue.StrRepr(name), gid, old)
		}
		st.groupdict[name] = gid
	}
	return gid, ""
}

func (st *state) checkGroup(gid int) bool { return gid < st.groups() && st.groupClosed[gid] }

func (st *state) checkLookbehindGroup(gid int, src *tokenizer) {
	if st.lookbehindGroups < 0 {
		return
	}
	if !st.checkGroup(gid) {
		src.fail("cannot refer to an open group", 0)
	}
	if gid >= st.lookbehindGroups {
		src.fail("cannot refer to group defined in the same lookbehind subpattern", 0)
	}
}

// tokenizer is _parser.Tokenizer over code points: next is the coming token, one character or
// a backslash and the character after it; ok is false at the end.
type tokenizer struct {
	s     []rune
	index int
	next  string
	ok    bool
}

func newTokenizer(s []rune) *tokenizer {
	t := &tokenizer{s: s}
	t.advance()
	return t
}

func (t *tokenizer) advance() {
	index := t.index
	if index >= len(t.s) {
		t.ok, t.next = false, ""
		return
	}
	c := string(t.s[index])
	if t.s[index] == '\\' {
		index++
		if index >= len(t.s) {
			panic(&Error{Msg: "bad escape (end of pattern)", Pos: len(t.s) - 1, pattern: t.s})
		}
		c += string(t.s[index])
	}
	t.index = index + 1
	t.next, t.ok = c, true
}

func (t *tokenizer) match(c string) bool {
	if t.ok && c == t.next {
		t.advance()
		return true
	}
	return false
}

// get returns the coming token and advances; ok is false at the end.
func (t *tokenizer) get() (string, bool) {
	this, ok := t.next, t.ok
	t.advance()
	return this, ok
}

func (t *tokenizer) nextIn(set string) bool {
	if !t.ok || len([]rune(t.next)) != 1 {
		return false
	}
	return containsRune(set, []rune(t.next)[0])
}

func containsRune(set string, c rune) bool {
	for _, r := range set {
		if r == c {
			return true
		}
	}
	return false
}

func (t *tokenizer) getWhile(n int, set string) string {
	out := ""
	for range n {
		if !t.nextIn(set) {
			break
		}
		out += t.next
		t.advance()
	}
	return out
}

func (t *tokenizer) getUntil(terminator rune, name string) string {
	var out []rune
	for {
		c, ok := t.next, t.ok
		t.advance()
		if !ok {
			if len(out) == 0 {
				t.fail("missing "+name, 0)
			}
			t.fail(fmt.Sprintf("missing %c, unterminated name", terminator), len(out))
		}
		if c == string(terminator) {
			if len(out) == 0 {
				t.fail("missing "+name, 1)
			}
			break
		}
		out = append(out, []rune(c)...)
	}
	return string(out)
}

func (t *tokenizer) tell() int { return t.index - len([]rune(t.next)) }

func (t *tokenizer) seek(index int) {
	t.index = index
	t.advance()
}

func (t *tokenizer) fail(msg string, offset int) {
	panic(&Error{Msg: msg, Pos: t.tell() - offset, pattern: t.s})
}

func (t *tokenizer) checkGroupName(name string, offset int) {
	if !isIdentifier(name) {
		t.fail("bad character in group name "+pyvalue.StrRepr(name), len([]rune(name))+offset)
	}
}

// isIdentifier approximates str.isidentifier: a letter or '_', then letters, digits, marks and
// connector punctuation.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []rune(s) {
		start := c == '_' || unicode.IsLetter(c) || unicode.Is(unicode.Nl, c)
		if !start && (i == 0 || !unicode.In(c, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)) {
			return false
		}
	}
	return true
}

// notReError is a panic for an exception Python raises other than re.error.
type notReError struct{ msg string }

const (
	specialChars = `.\[{()*+?^$|`
	repeatChars  = "*+?{"
	digits       = "0123456789"
	octDigits    = "01234567"
	hexDigits    = "0123456789abcdefABCDEF"
	whitespace   = " \t\n\r\v\f"
)

func isASCIILetter(c rune) bool { return c < 0x80 && (c|0x20 >= 'a' && c|0x20 <= 'z') }

func escapeCode(c rune) (rune, bool) {
	switch c {
	case 'a':
		return '\a', true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'v':
		return '\v', true
	case '\\':
		return '\\', true
	}
	return 0, false
}

var categoryCodes = map[rune]category{
	'd': catDigit, 'D': catNotDigit, 's': catSpace, 'S': catNotSpace, 'w': catWord, 'W': catNotWord,
}

// hexEscape reads \x, \u, \U (escape is the two characters read so far); ok is false for
// another escape.
func hexEscape(src *tokenizer, escape string) (rune, bool) {
	c := []rune(escape)[1]
	n := map[rune]int{'x': 2, 'u': 4, 'U': 8}[c]
	if n == 0 {
		return 0, false
	}
	escape += src.getWhile(n, hexDigits)
	if len(escape) != n+2 {
		src.fail("incomplete escape "+escape, len([]rune(escape)))
	}
	v, _ := strconv.ParseUint(escape[2:], 16, 32)
	if v > unicode.MaxRune {
		src.fail("bad escape "+escape, len(escape)) // chr() raises ValueError
	}
	return rune(v), true
}

// namedEscape reads \N{...}: the character Python's Unicode database names. A name not
// found here may be one of the aliases Python also knows: that cannot be re-derived.
func namedEscape(src *tokenizer) rune {
	if !src.match("{") {
		src.fail("missing {", 0)
	}
	name := src.getUntil('}', "character name")
	r, ok := lookupName(name)
	if !ok {
		panic(unsupported{`\N{` + name + `}: a name not in the Unicode character database here, perhaps an alias`})
	}
	return r
}

type unsupported struct{ what string }

// classEscape is _class_escape: an escape inside a set.
func classEscape(src *tokenizer, escape string) setItem {
	c := []rune(escape)[1]
	if v, ok := escapeCode(c); ok {
		return setItem{kind: setLiteral, lo: v}
	}
	if cat, ok := categoryCodes[c]; ok {
		return setItem{kind: setCategory, cat: cat}
	}
	if v, ok := hexEscape(src, escape); ok {
		return setItem{kind: setLiteral, lo: v}
	}
	switch {
	case c == 'N':
		return setItem{kind: setLiteral, lo: namedEscape(src)}
	case containsRune(octDigits, c):
		escape += src.getWhile(2, octDigits)
		v, _ := strconv.ParseUint(escape[1:], 8, 32)
		if v > 0o377 {
			src.fail(fmt.Sprintf("octal escape value %s outside of range 0-0o377", escape), len(escape))
		}
		return setItem{kind: setLiteral, lo: rune(v)}
	case containsRune(digits, c):
	case !isASCIILetter(c):
		return setItem{kind: setLiteral, lo: c}
	}
	src.fail("bad escape "+escape, len([]rune(escape)))
	return setItem{}
}

// escape is _escape: an escape outside a set.
func escape(src *tokenizer, esc string, st *state) *item {
	c := []rune(esc)[1]
	switch c {
	case 'A':
		return &item{op: opAt, at: atBeginningString}
	case 'b':
		return &item{op: opAt, at: atBoundary}
	case 'B':
		return &item{op: opAt, at: atNonBoundary}
	case 'Z':
		return &item{op: opAt, at: atEndString}
	}
	if cat, ok := categoryCodes[c]; ok {
		return &item{op: opIn, set: []setItem{{kind: setCategory, cat: cat}}}
	}
	if v, ok := escapeCode(c); ok {
		return &item{op: opLiteral, c: v}
	}
	if v, ok := hexEscape(src, esc); ok {
		return &item{op: opLiteral, c: v}
	}
	switch {
	case c == 'N':
		return &item{op: opLiteral, c: namedEscape(src)}
	case c == '0':
		esc += src.getWhile(2, octDigits)
		v, _ := strconv.ParseUint(esc[1:], 8, 32)
		return &item{op: opLiteral, c: rune(v)}
	case containsRune(digits, c):
		return groupEscape(src, esc, st)
	case !isASCIILetter(c):
		return &item{op: opLiteral, c: c}
	}
	src.fail("bad escape "+esc, len([]rune(esc)))
	return nil
}

// groupEscape reads \1 to \99, or a three-digit octal escape.
func groupEscape(src *tokenizer, esc string, st *state) *item {
	if src.nextIn(digits) {
		more, _ := src.get()
		esc += more
		if containsRune(octDigits, rune(esc[1])) && containsRune(octDigits, rune(esc[2])) && src.nextIn(octDigits) {
			more, _ := src.get()
			esc += more
			v, _ := strconv.ParseUint(esc[1:], 8, 32)
			if v > 0o377 {
				src.fail(fmt.Sprintf("octal escape value %s outside of range 0-0o377", esc), len(esc))
			}
			return &item{op: opLiteral, c: rune(v)}
		}
	}
	group, _ := strconv.Atoi(esc[1:])
	if group < st.groups() {
		if !st.checkGroup(group) {
			src.fail("cannot refer to an open group", len(esc))
		}
		st.checkLookbehindGroup(group, src)
		return &item{op: opGroupref, c: rune(group)}
	}
	src.fail(fmt.Sprintf("invalid group reference %d", group), len(esc)-1)
	return nil
}

// parseSub is _parse_sub: alternatives separated by '|'.
func parseSub(src *tokenizer, st *state, verbose bool, nested int) *subpattern {
	if nested > 2*maxNesting {
		panic(unsupported{fmt.Sprintf("groups nested deeper than %d (Python's parser reaches its recursion limit a little deeper, at a depth that depends on its caller)", maxNesting)})
	}
	var items []*subpattern
	for {
		items = append(items, parse(src, st, verbose, nested+1, nested == 0 && len(items) == 0))
		if !src.match("|") {
			break
		}
		if nested == 0 {
			verbose = st.flags&flagVerbose != 0
		}
	}
	if len(items) == 1 {
		return items[0]
	}
	out := &subpattern{}
	// Factor out a common prefix.
	for {
		var prefix *item
		common := true
		for _, it := range items {
			if len(it.items) == 0 {
				common = false
				break
			}
			if prefix == nil {
				prefix = it.items[0]
			} else if !it.items[0].equal(prefix) {
				common = false
				break
			}
		}
		if !common {
			break
		}
		for _, it := range items {
			it.items = it.items[1:]
		}
		out.items = append(out.items, prefix)
	}
	// Alternatives of one literal or set each become one set.
	var set []setItem
	merged := true
	for _, it := range items {
		if len(it.items) != 1 {
			merged = false
			break
		}
		one := it.items[0]
		switch {
		case one.op == opLiteral:
			set = append(set, setItem{kind: setLiteral, lo: one.c})
		case one.op == opIn && !one.negate:
			set = append(set, one.set...)
		default:
			merged = false
		}
		if !merged {
			break
		}
	}
	if merged {
		out.items = append(out.items, &item{op: opIn, set: uniq(set)})
		return out
	}
	out.items = append(out.items, &item{op: opBranch, alts: items})
	return out
}

func uniq(set []setItem) []setItem {
	var out []setItem
	for _, s := range set {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// parse is _parse: one alternative.
func parse(src *tokenizer, st *state, verbose bool, nested int, first bool) *subpattern {
	sub := &subpattern{}
	for src.ok && src.next != "|" && src.next != ")" {
		this, _ := src.get()
		c := []rune(this)[0]
		if verbose && len(this) == 1 {
			if containsRune(whitespace, c) {
				continue
			}
			if c == '#' {
				for {
					t, ok := src.get()
					if !ok || t == "\n" {
						break
					}
				}
				continue
			}
		}
		switch {
		case c == '\\':
			sub.items = append(sub.items, escape(src, this, st))
		case !containsRune(specialChars, c):
			sub.items = append(sub.items, &item{op: opLiteral, c: c})
		case c == '[':
			sub.items = append(sub.items, parseSet(src))
		case containsRune(repeatChars, c):
			parseRepeat(src, sub, c)
		case c == '.':
			sub.items = append(sub.items, &item{op: opAny})
		case c == '(':
			if it, global := parseGroup(src, st, verbose, nested, first && len(sub.items) == 0); global {
				verbose = st.flags&flagVerbose != 0
			} else if it != nil {
				sub.items = append(sub.items, it)
			}
		case c == '^':
			sub.items = append(sub.items, &item{op: opAt, at: atBeginning})
		case c == '$':
			sub.items = append(sub.items, &item{op: opAt, at: atEnd})
		}
	}
	// Non-capturing groups without flags are spliced in.
	var out []*item
	for _, it := range sub.items {
		if it.op == opSubpattern && it.group == 0 && it.add == 0 && it.del == 0 {
			out = append(out, it.body.items...)
			continue
		}
		out = append(out, it)
	}
	sub.items = out
	return sub
}

// parseSet reads a [...] set (the '[' read).
func parseSet(src *tokenizer) *item {
	here := src.tell() - 1
	var set []setItem
	negate := src.match("^")
	for {
		this, ok := src.get()
		if !ok {
			src.fail("unterminated character set", src.tell()-here)
		}
		if this == "]" && len(set) > 0 {
			break
		}
		var code1 setItem
		if this[0] == '\\' {
			code1 = classEscape(src, this)
		} else {
			code1 = setItem{kind: setLiteral, lo: []rune(this)[0]}
		}
		if !src.match("-") {
			set = append(set, code1)
			continue
		}
		that, ok := src.get()
		if !ok {
			src.fail("unterminated character set", src.tell()-here)
		}
		if that == "]" {
			set = append(set, code1, setItem{kind: setLiteral, lo: '-'})
			break
		}
		var code2 setItem
		if that[0] == '\\' {
			code2 = classEscape(src, that)
		} else {
			code2 = setItem{kind: setLiteral, lo: []rune(that)[0]}
		}
		span := len([]rune(this)) + 1 + len([]rune(that))
		if code1.kind != setLiteral || code2.kind != setLiteral || code2.lo < code1.lo {
			src.fail(fmt.Sprintf("bad character range %s-%s", this, that), span)
		}
		set = append(set, setItem{kind: setRange, lo: code1.lo, hi: code2.lo})
	}
	set = uniq(set)
	if len(set) == 1 && set[0].kind == setLiteral {
		if negate {
			return &item{op: opNotLiteral, c: set[0].lo}
		}
		return &item{op: opLiteral, c: set[0].lo}
	}
	return &item{op: opIn, set: set, negate: negate}
}

// parseRepeat reads a quantifier (c read) and applies it to the last item.
func parseRepeat(src *tokenizer, sub *subpattern, c rune) {
	here := src.tell()
	lo, hi := 0, maxRepeat
	switch c {
	case '?':
		hi = 1
	case '+':
		lo = 1
	case '{':
		if src.next == "}" && src.ok {
			sub.items = append(sub.items, &item{op: opLiteral, c: c})
			return
		}
		var los, his string
		for src.nextIn(digits) {
			d, _ := src.get()
			los += d
		}
		if src.match(",") {
			for src.nextIn(digits) {
				d, _ := src.get()
				his += d
			}
		} else {
			his = los
		}
		if !src.match("}") {
			sub.items = append(sub.items, &item{op: opLiteral, c: c})
			src.seek(here)
			return
		}
		if los != "" {
			lo = repeatCount(los)
		}
		if his != "" {
			hi = repeatCount(his)
			if hi < lo {
				src.fail("min repeat greater than max repeat", src.tell()-here)
			}
		}
	}
	var last *item
	if n := len(sub.items); n > 0 {
		last = sub.items[n-1]
	}
	if last == nil || last.op == opAt {
		src.fail("nothing to repeat", src.tell()-here+1)
	}
	if last.op == opRepeat {
		src.fail("multiple repeat", src.tell()-here+1)
	}
	body := &subpattern{items: []*item{last}}
	if last.op == opSubpattern && last.group == 0 && last.add == 0 && last.del == 0 {
		body = last.body
	}
	kind := greedy
	if src.match("?") {
		kind = lazy
	} else if src.match("+") {
		kind = possessive
	}
	sub.items[len(sub.items)-1] = &item{op: opRepeat, min: lo, max: hi, rep: kind, body: body}
}

func repeatCount(s string) int {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v >= maxRepeat {
		panic(notReError{"OverflowError: the repetition number is too large"})
	}
	return int(v)
}

// parseGroup reads what follows '('. It returns global true for leading global flags, and a
// nil item for a comment.
func parseGroup(src *tokenizer, st *state, verbose bool, nested int, first bool) (it *item, global bool) {
	start := src.tell() - 1
	capture, atomic := true, false
	name, named := "", false
	var add, del flags
	if src.match("?") {
		char, ok := src.get()
		if !ok {
			src.fail("unexpected end of pattern", 0)
		}
		switch {
		case char == "P":
			switch {
			case src.match("<"):
				name, named = src.getUntil('>', "group name"), true
				src.checkGroupName(name, 1)
			case src.match("="):
				name = src.getUntil(')', "group name")
				src.checkGroupName(name, 1)
				gid, ok := st.groupdict[name]
				if !ok {
					src.fail("unknown group name "+pyvalue.StrRepr(name), len([]rune(name))+1)
				}
				if !st.checkGroup(gid) {
					src.fail("cannot refer to an open group", len([]rune(name))+1)
				}
				st.checkLookbehindGroup(gid, src)
				return &item{op: opGroupref, c: rune(gid)}, false
			default:
				char, ok := src.get()
				if !ok {
					src.fail("unexpected end of pattern", 0)
				}
				src.fail("unknown extension ?P"+char, len([]rune(char))+2)
			}
		case char == ":":
			capture = false
		case char == "#":
			for {
				if !src.ok {
					src.fail("missing ), unterminated comment", src.tell()-start)
				}
				if t, _ := src.get(); t == ")" {
					break
				}
			}
			return nil, false
		case char == "=" || char == "!" || char == "<":
			return parseAssert(src, st, verbose, nested, start, char), false
		case char == "(":
			return parseConditional(src, st, verbose, nested, start), false
		case char == ">":
			capture, atomic = false, true
		case len([]rune(char)) == 1 && (flagLetters[[]rune(char)[0]] != 0 || char == "-"):
			a, d, isGlobal := parseFlags(src, st, []rune(char)[0])
			if isGlobal {
				if !first {
					src.fail("global flags not at the start of the expression", src.tell()-start)
				}
				return nil, true
			}
			add, del, capture = a, d, false
		default:
			src.fail("unknown extension ?"+char, len([]rune(char))+1)
		}
	}
	group := 0
	if capture {
		gid, msg := st.openGroup(name, named)
		if msg != "" {
			src.fail(msg, len([]rune(name))+1)
		}
		group = gid
	}
	subVerbose := (verbose || add&flagVerbose != 0) && del&flagVerbose == 0
	p := parseSub(src, st, subVerbose, nested+1)
	if !src.match(")") {
		src.fail("missing ), unterminated subpattern", src.tell()-start)
	}
	if group != 0 {
		lo, hi := p.width(st)
		st.groupWidths[group] = [2]int64{lo, hi}
		st.groupClosed[group] = true
	}
	if atomic {
		return &item{op: opAtomic, body: p}, false
	}
	return &item{op: opSubpattern, group: group, add: add, del: del, body: p}, false
}

func parseAssert(src *tokenizer, st *state, verbose bool, nested, start int, char string) *item {
	behind := false
	saved := st.lookbehindGroups
	if char == "<" {
		c, ok := src.get()
		if !ok {
			src.fail("unexpected end of pattern", 0)
		}
		if c != "=" && c != "!" {
			src.fail("unknown extension ?<"+c, len([]rune(c))+2)
		}
		char, behind = c, true
		if saved < 0 {
			st.lookbehindGroups = st.groups()
		}
	}
	p := parseSub(src, st, verbose, nested+1)
	if behind && saved < 0 {
		st.lookbehindGroups = -1
	}
	if !src.match(")") {
		src.fail("missing ), unterminated subpattern", src.tell()-start)
	}
	op := opAssert
	if char == "!" {
		op = opAssertNot
	}
	return &item{op: op, behind: behind, body: p}
}

func parseConditional(src *tokenizer, st *state, verbose bool, nested, start int) *item {
	condname := src.getUntil(')', "group name")
	n := len([]rune(condname))
	var cond int
	if isIdentifier(condname) {
		gid, ok := st.groupdict[condname]
		if !ok {
			src.fail("unknown group name "+pyvalue.StrRepr(condname), n+1)
		}
		cond = gid
	} else {
		v, err := pyInt(condname)
		if err != nil {
			src.fail("bad character in group name "+pyvalue.StrRepr(condname), n+1)
		}
		if v == 0 {
			src.fail("bad group number", n+1)
		}
		if v >= maxGroups {
			src.fail(fmt.Sprintf("invalid group reference %d", v), n+1)
		}
		cond = int(v)
		if _, seen := st.grouprefPos[cond]; !seen {
			st.grouprefPos[cond] = src.tell() - n - 1
			st.grouprefOrder = append(st.grouprefOrder, cond)
		}
	}
	st.checkLookbehindGroup(cond, src)
	yes := parse(src, st, verbose, nested+1, false)
	var no *subpattern
	if src.match("|") {
		no = parse(src, st, verbose, nested+1, false)
		if src.ok && src.next == "|" {
			src.fail("conditional backref with more than two branches", 0)
		}
	}
	if !src.match(")") {
		src.fail("missing ), unterminated subpattern", src.tell()-start)
	}
	return &item{op: opGrouprefExists, group: cond, yes: yes, no: no}
}

// pyInt is int(s) for a group number: optional surrounding whitespace, a sign, digits
// (Unicode decimal digits included), underscores between digits. A negative number is an
// error, as in _parser.py.
func pyInt(s string) (int64, error) {
	rs := []rune(s)
	i, j := 0, len(rs)
	for i < j && unicode.IsSpace(rs[i]) {
		i++
	}
	for j > i && unicode.IsSpace(rs[j-1]) {
		j--
	}
	rs = rs[i:j]
	if len(rs) > 0 && rs[0] == '+' {
		rs = rs[1:]
	}
	if len(rs) == 0 || rs[0] == '_' || rs[len(rs)-1] == '_' {
		return 0, strconv.ErrSyntax
	}
	var v int64
	prevUnderscore := false
	for _, c := range rs {
		if c == '_' {
			if prevUnderscore {
				return 0, strconv.ErrSyntax
			}
			prevUnderscore = true
			continue
		}
		prevUnderscore = false
		d := unicode.ToLower(c) // not a digit conversion: see digitValue
		dv, ok := digitValue(d)
		if !ok {
			return 0, strconv.ErrSyntax
		}
		if v > (1<<62)/10 {
			v = 1 << 62
			continue
		}
		v = v*10 + int64(dv)
	}
	return v, nil
}

// digitValue is the value of a decimal digit of any script (category Nd: the digits of a
// script are consecutive, zero first).
func digitValue(c rune) (int, bool) {
	if !unicode.Is(unicode.Nd, c) {
		return 0, false
	}
	zero := c
	for unicode.Is(unicode.Nd, zero-1) && c-zero < 9 {
		zero--
	}
	return int(c - zero), true
}

// parseFlags is _parse_flags (char is the first flag letter or '-'): global is true for
// "(?flags)", which sets st.flags.
func parseFlags(src *tokenizer, st *state, char rune) (add, del flags, global bool) {
	var ok bool
	if char != '-' {
		for {
			flag := flagLetters[char]
			if char == 'L' {
				src.fail("bad inline flags: cannot use 'L' flag with a str pattern", 0)
			}
			add |= flag
			if flag&typeFlags != 0 && add&typeFlags != flag {
				src.fail("bad inline flags: flags 'a', 'u' and 'L' are incompatible", 0)
			}
			t, more := src.get()
			if !more {
				src.fail("missing -, : or )", 0)
			}
			char, ok = []rune(t)[0], len([]rune(t)) == 1
			if ok && containsRune(")-:", char) {
				break
			}
			if !ok || flagLetters[char] == 0 {
				msg := "missing -, : or )"
				if ok && unicode.IsLetter(char) {
					msg = "unknown flag"
				}
				src.fail(msg, len([]rune(t)))
			}
		}
	}
	if char == ')' {
		st.flags |= add
		return 0, 0, true
	}
	if add&globalFlags != 0 {
		src.fail("bad inline flags: cannot turn on global flag", 1)
	}
	if char == '-' {
		t, more := src.get()
		if !more {
			src.fail("missing flag", 0)
		}
		char, ok = []rune(t)[0], len([]rune(t)) == 1
		if !ok || flagLetters[char] == 0 {
			msg := "missing flag"
			if ok && unicode.IsLetter(char) {
				msg = "unknown flag"
			}
			src.fail(msg, len([]rune(t)))
		}
		for {
			flag := flagLetters[char]
			if flag&typeFlags != 0 {
				src.fail("bad inline flags: cannot turn off flags 'a', 'u' and 'L'", 0)
			}
			del |= flag
			t, more := src.get()
			if !more {
				src.fail("missing :", 0)
			}
			char, ok = []rune(t)[0], len([]rune(t)) == 1
			if ok && char == ':' {
				break
			}
			if !ok || flagLetters[char] == 0 {
				msg := "missing :"
				if ok && unicode.IsLetter(char) {
					msg = "unknown flag"
				}
				src.fail(msg, len([]rune(t)))
			}
		}
	}
	if del&globalFlags != 0 {
		src.fail("bad inline flags: cannot turn off global flag", 1)
	}
	if add&del != 0 {
		src.fail("bad inline flags: flag turned on and off", 1)
	}
	return add, del, false
}
