package kensa

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errUnsupported marks a Python pattern this evaluator cannot evaluate with Go's RE2.
var errUnsupported = errors.New("not expressible in RE2")

func isUnsupported(err error) bool { return errors.Is(err, errUnsupported) }

func unsupported(construct string) error {
	return fmt.Errorf("%w: %s", errUnsupported, construct)
}

// Unicode classes of Python 3's str patterns (re.UNICODE is the default): \d is a decimal
// digit, \w an alphanumeric or underscore (str.isalnum), \s whitespace (str.isspace).
const (
	pyDigit = `\p{Nd}`
	pyWord  = `\p{L}\p{N}_`
	pySpace = `\t\n\v\f\r\x1c-\x1f\x85\p{Z}`
)

// compilePython compiles a Python re pattern for re.search over subject. The subject is
// needed for \b and \B, which Python bounds by Unicode word characters and RE2 by ASCII ones:
// they agree on ASCII text, and only there are they translated.
func compilePython(pattern, subject string) (*regexp.Regexp, error) {
	t := translator{src: pattern, asciiSubject: isASCII(subject)}
	out, err := t.translate()
	if err != nil {
		return nil, err
	}
	return regexp.Compile(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

type translator struct {
	src          string
	pos          int
	out          strings.Builder
	multiline    bool
	ascii        bool
	asciiSubject bool
	// groups counts the capturing groups opened so far, and open holds the number of each
	// group not yet closed (0 for one that does not capture), as a backreference needs.
	groups int
	open   []int
}

func (t *translator) translate() (string, error) {
	if err := t.globalFlags(); err != nil {
		return "", err
	}
	for t.pos < len(t.src) {
		if err := t.step(); err != nil {
			return "", err
		}
	}
	return t.out.String(), nil
}

// globalFlags reads leading (?aiLmsux) groups, which Python allows only at the start.
func (t *translator) globalFlags() error {
	var keep []byte
	for strings.HasPrefix(t.src[t.pos:], "(?") {
		end := strings.IndexByte(t.src[t.pos:], ')')
		flags := ""
		if end > 2 {
			flags = t.src[t.pos+2 : t.pos+end]
		}
		if flags == "" || strings.Trim(flags, "aiLmsux") != "" {
			break
		}
		for _, f := range []byte(flags) {
			switch f {
			case 'i', 's':
				keep = append(keep, f)
			case 'm':
				keep = append(keep, f)
				t.multiline = true
			case 'a':
				t.ascii = true
			case 'u':
			case 'x':
				return unsupported("verbose mode (?x)")
			case 'L':
				return errors.New("bad inline flags: cannot use 'L' flag with a str pattern")
			}
		}
		t.pos += end + 1
	}
	if len(keep) > 0 {
		t.out.WriteString("(?" + string(keep) + ")")
	}
	return nil
}

func (t *translator) step() error {
	c := t.src[t.pos]
	switch c {
	case '\\':
		return t.escape(false)
	case '[':
		return t.class()
	case '(':
		return t.group()
	case '$':
		t.pos++
		if t.multiline {
			t.out.WriteString("$")
			return nil
		}
		if t.pos == len(t.src) || t.src[t.pos] == '|' || t.src[t.pos] == ')' {
			t.out.WriteString(`(?:\n?\z)`) // Python's $ also matches before a final newline
			return nil
		}
		return unsupported("$ followed by more pattern")
	case '{':
		return t.brace()
	case '}':
		t.out.WriteString(`\}`)
		t.pos++
		return nil
	case ')':
		if len(t.open) > 0 {
			t.open = t.open[:len(t.open)-1]
		}
	case '*', '+', '?':
		t.out.WriteByte(c)
		t.pos++
		return t.possessive()
	}
	r, size := utf8.DecodeRuneInString(t.src[t.pos:])
	t.out.WriteRune(r)
	t.pos += size
	return nil
}

// possessive rejects Python 3.11's possessive quantifiers (*+, ++, ?+, {m,n}+).
func (t *translator) possessive() error {
	if t.pos < len(t.src) && t.src[t.pos] == '+' {
		return unsupported("a possessive quantifier")
	}
	if t.pos < len(t.src) && t.src[t.pos] == '?' {
		t.out.WriteByte('?')
		t.pos++
	}
	return nil
}

var braceQuantifier = regexp.MustCompile(`^\{(\d*)(,?)(\d*)\}`)

// maxRE2Repeat is the largest repeat count RE2 takes; Python takes up to 2^32 - 2.
const maxRE2Repeat = 1000

// brace translates {,n} (Python: {0,n}) and passes other repeats and literal braces on. A
// minimum above the maximum is Python's error; a count above RE2's limit is unsupported.
func (t *translator) brace() error {
	m := braceQuantifier.FindStringSubmatch(t.src[t.pos:])
	if m == nil || m[1] == "" && m[2] == "" {
		t.out.WriteString(`\{`)
		t.pos++
		return nil
	}
	lo := m[1]
	if lo == "" {
		lo = "0"
	}
	low, _ := strconv.ParseUint(lo, 10, 64)
	high, highErr := strconv.ParseUint(m[3], 10, 64)
	switch {
	case m[3] != "" && highErr == nil && low > high:
		return fmt.Errorf("min repeat greater than max repeat at position %d", t.pos+1)
	case low > maxRE2Repeat || m[3] != "" && (highErr != nil || high > maxRE2Repeat):
		return unsupported(fmt.Sprintf("a repeat count above %d", maxRE2Repeat))
	}
	t.out.WriteString("{" + lo + m[2] + m[3] + "}")
	t.pos += len(m[0])
	if t.pos < len(t.src) && t.src[t.pos] == '+' {
		return unsupported("a possessive quantifier")
	}
	return t.possessive()
}

func (t *translator) group() error {
	rest := t.src[t.pos:]
	switch {
	case strings.HasPrefix(rest, "(?#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return errors.New("missing ), unterminated comment")
		}
		t.pos += end + 1
		return nil
	case strings.HasPrefix(rest, "(?P="):
		return unsupported("a backreference (?P=name)")
	case strings.HasPrefix(rest, "(?="), strings.HasPrefix(rest, "(?!"):
		return unsupported("a lookahead")
	case strings.HasPrefix(rest, "(?<="), strings.HasPrefix(rest, "(?<!"):
		return unsupported("a lookbehind")
	case strings.HasPrefix(rest, "(?>"):
		return unsupported("an atomic group")
	case strings.HasPrefix(rest, "(?("):
		return unsupported("a conditional group")
	case strings.HasPrefix(rest, "(?P<"), !strings.HasPrefix(rest, "(?"):
		t.groups++
		t.open = append(t.open, t.groups)
		t.out.WriteByte('(')
		t.pos++
		return nil
	case strings.HasPrefix(rest, "(?:"):
		t.open = append(t.open, 0)
		t.out.WriteByte('(')
		t.pos++
		return nil
	}
	// Scoped flags (?imsx-imsx:...).
	end := strings.IndexByte(rest, ':')
	if end < 0 || strings.Trim(rest[2:end], "aimsux-") != "" {
		return errors.New("unknown extension " + rest[:min(len(rest), 3)])
	}
	flags := rest[2:end]
	if strings.ContainsAny(flags, "xm") || strings.ContainsAny(flags, "au") {
		return unsupported("scoped flags (?" + flags + ":...)")
	}
	t.open = append(t.open, 0)
	t.out.WriteString(rest[:end+1])
	t.pos += end + 1
	return nil
}

// class translates a [...] set.
func (t *translator) class() error {
	t.pos++
	t.out.WriteByte('[')
	if t.pos < len(t.src) && t.src[t.pos] == '^' {
		t.out.WriteByte('^')
		t.pos++
	}
	first := true
	for t.pos < len(t.src) {
		c := t.src[t.pos]
		switch {
		case c == ']' && !first:
			t.out.WriteByte(']')
			t.pos++
			return nil
		case c == '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case c == '[' || c == ']':
			t.out.WriteString(`\` + string(c))
			t.pos++
		default:
			r, size := utf8.DecodeRuneInString(t.src[t.pos:])
			t.out.WriteRune(r)
			t.pos += size
		}
		first = false
	}
	return fmt.Errorf("unterminated character set at position %d", strings.LastIndexByte(t.src, '['))
}

// escape translates one backslash escape, in or out of a set.
func (t *translator) escape(inClass bool) error {
	if t.pos+1 >= len(t.src) {
		return errors.New("bad escape (end of pattern)")
	}
	c := t.src[t.pos+1]
	t.pos += 2
	classOf := func(set, negated string) error {
		switch {
		case t.ascii:
			t.out.WriteString(`\` + string(c))
		case !inClass && negated == "":
			t.out.WriteString("[" + set + "]")
		case !inClass:
			t.out.WriteString("[^" + set + "]")
		case negated == "":
			t.out.WriteString(set)
		default:
			return unsupported(`\` + string(c) + " inside a set")
		}
		return nil
	}
	switch c {
	case 'd':
		return classOf(pyDigit, "")
	case 'D':
		if t.ascii {
			t.out.WriteString(`\D`)
			return nil
		}
		t.out.WriteString(`\P{Nd}`)
		return nil
	case 'w':
		return classOf(pyWord, "")
	case 'W':
		return classOf(pyWord, "^")
	case 's':
		return classOf(pySpace, "")
	case 'S':
		return classOf(pySpace, "^")
	case 'b', 'B':
		if inClass {
			if c == 'B' {
				return errors.New(`bad escape \B`)
			}
			t.out.WriteString(`\x08`)
			return nil
		}
		if !t.asciiSubject && !t.ascii {
			return unsupported(`\` + string(c) + " on non-ASCII text (Unicode word boundaries)")
		}
		t.out.WriteString(`\` + string(c))
	case 'A':
		t.out.WriteString(`\A`)
	case 'Z':
		t.out.WriteString(`\z`)
	case 'n', 't', 'r', 'f', 'v', 'a':
		t.out.WriteString(`\` + string(c))
	case 'x':
		return t.hexEscape(2)
	case 'u':
		return t.hexEscape(4)
	case 'U':
		return t.hexEscape(8)
	case 'N':
		return unsupported(`\N{...} named characters`)
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return t.digitEscape(inClass)
	default:
		if c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return errors.New("bad escape \\" + string(c))
		}
		r, size := utf8.DecodeRuneInString(t.src[t.pos-1:])
		t.pos += size - 1
		t.out.WriteString(regexp.QuoteMeta(string(r)))
	}
	return nil
}

// digitEscape is sre_parse's reading of a backslash and a digit (t.pos is past the first
// digit): an octal escape (\0 and up to two more octal digits; in a set, any octal digit and up
// to two more; elsewhere three octal digits), else a backreference, which RE2 does not have
// (an invalid one is Python's error).
func (t *translator) digitEscape(inClass bool) error {
	start := t.pos - 2
	first := t.src[t.pos-1]
	octal := func(more int) {
		n := 0
		for n < more && t.pos+n < len(t.src) && isOctal(t.src[t.pos+n]) {
			n++
		}
		t.pos += n
	}
	isRef := false
	switch {
	case first == '0':
		octal(2)
	case inClass && isOctal(first):
		octal(2)
	case inClass:
		return fmt.Errorf("bad escape \\%c at position %d", first, start)
	case t.pos+1 < len(t.src) && isOctal(first) && isOctal(t.src[t.pos]) && isOctal(t.src[t.pos+1]):
		t.pos += 2
	default:
		isRef = true
		if t.pos < len(t.src) && t.src[t.pos] >= '0' && t.src[t.pos] <= '9' {
			t.pos++
		}
	}
	digits := t.src[start+1 : t.pos]
	if isRef {
		ref, _ := strconv.Atoi(digits)
		if ref > t.groups {
			return fmt.Errorf("invalid group reference %d at position %d", ref, start+1)
		}
		if slices.Contains(t.open, ref) {
			return fmt.Errorf("cannot refer to an open group at position %d", start)
		}
		return unsupported("a backreference \\" + digits)
	}
	v, _ := strconv.ParseUint(digits, 8, 32)
	if v > 0o377 {
		return fmt.Errorf("octal escape value \\%s outside of range 0-0o377 at position %d", digits, start)
	}
	fmt.Fprintf(&t.out, `\x{%x}`, v)
	return nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func (t *translator) hexEscape(n int) error {
	if t.pos+n > len(t.src) {
		return fmt.Errorf("incomplete escape \\%c", t.src[t.pos-1])
	}
	v, err := strconv.ParseUint(t.src[t.pos:t.pos+n], 16, 32)
	if err != nil || v > utf8.MaxRune {
		return fmt.Errorf("bad escape \\%c%s", t.src[t.pos-1], t.src[t.pos:t.pos+n])
	}
	t.pos += n
	fmt.Fprintf(&t.out, `\x{%x}`, v)
	return nil
}
