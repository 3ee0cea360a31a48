package auditlog

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small validating JSON reader over one entry held in memory. encoding/json
// would do, but it decodes every member of every event, request and response bodies included,
// and audit logs are gigabytes of bodies nobody asked about: this reader extracts the dozen
// fields an Entry has and skips (while validating) everything else, several times faster. Every
// byte of an entry is still checked against the JSON grammar, so malformed input is an error,
// never a silent misreading.

// maxDepth bounds nesting, as encoding/json does, so hostile input cannot exhaust the stack.
const maxDepth = 10000

// lexError is a problem at an offset of the entry. Field is filled in as the error travels up
// through the members and elements that contain it.
type lexError struct {
	off   int
	field string
	msg   string
}

func (e *lexError) Error() string { return joinField("", e.field) + ": " + e.msg }

// members reads an object, or null, calling member for each key; member must consume the
// value. An error inside a member is located in that member's field.
func (lx *lexer) members(member func(key []byte) error) error {
	if lx.peek() == 'n' {
		return lx.literal("null")
	}
	if err := lx.beginObject(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, more, err := lx.nextKey(first)
		if err != nil || !more {
			return err
		}
		if err := member(key); err != nil {
			return inField(string(key), err)
		}
	}
}

// inField prefixes the field path of a lexError with name; other errors pass unchanged. Paths
// are cut after maxFieldLen bytes, keeping the outermost members: an error deep in hostile
// nesting is still reported in bounded time and space.
func inField(name string, err error) error {
	if le, ok := err.(*lexError); ok {
		le.field = joinField(name, le.field)
		if len(le.field) > maxFieldLen {
			cut := maxFieldLen
			for cut > 0 && !utf8.RuneStart(le.field[cut]) {
				cut--
			}
			le.field = le.field[:cut] + "…"
		}
	}
	return err
}

const maxFieldLen = 200

type lexer struct {
	data  []byte
	pos   int
	depth int
	in    *interner
}

func (lx *lexer) fail(msg string) error { return &lexError{off: lx.pos, msg: msg} }

// peek skips white space and returns the next byte, 0 at the end of the data.
func (lx *lexer) peek() byte {
	for lx.pos < len(lx.data) {
		switch c := lx.data[lx.pos]; c {
		case ' ', '\t', '\n', '\r':
			lx.pos++
		default:
			return c
		}
	}
	return 0
}

// atEnd reports whether only white space is left.
func (lx *lexer) atEnd() bool { return lx.peek() == 0 && lx.pos >= len(lx.data) }

// kindName names the JSON type a value starting with c has, for "want X, got Y" messages.
func kindName(c byte) string {
	switch {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	case c == 0:
		return "end of input"
	}
	return "character " + strconv.QuoteRune(rune(c))
}

func (lx *lexer) want(what string) error {
	return lx.fail("want " + what + ", got " + kindName(lx.peek()))
}

// strSafe marks the bytes that can appear in a string without ending it or needing a look:
// everything but the quote, the backslash and control characters.
var strSafe = func() (t [256]bool) {
	for i := 0x20; i < 256; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// safeRun returns the index of the first byte at or after i that strSafe does not mark, or
// len(d). It tests eight bytes at a time (stringStops), since most of an audit log's bytes are
// inside strings; the table finishes the last few.
func safeRun(d []byte, i int) int {
	for ; i+8 <= len(d); i += 8 {
		if m := stringStops(binary.LittleEndian.Uint64(d[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(d) && strSafe[d[i]] {
		i++
	}
	return i
}

// stringStops marks, with the high bit of each byte, the bytes of the little-endian word w that
// strSafe does not: '"', '\\' and control characters. The lowest marked byte is exact (a
// borrow of the subtractions only runs upwards from a byte that is itself marked), which is all
// safeRun reads.
func stringStops(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ ones*'"'
	backslash := w ^ ones*'\\'
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*0x20)&^w) & highs
}

// rawString consumes a string token (at the opening quote) and returns its content between the
// quotes, undecoded, and whether it holds escapes.
func (lx *lexer) rawString() ([]byte, bool, error) {
	d := lx.data
	start := lx.pos + 1
	esc := false
	i := start
	for {
		i = safeRun(d, i)
		if i >= len(d) {
			lx.pos = i
			return nil, false, lx.fail("unterminated string")
		}
		switch c := d[i]; {
		case c == '"':
			lx.pos = i + 1
			return d[start:i], esc, nil
		case c == '\\':
			esc = true
			n, ok := escapeLen(d[i:])
			if !ok {
				lx.pos = i
				return nil, false, lx.fail("invalid escape in string")
			}
			i += n
		default:
			lx.pos = i
			return nil, false, lx.fail("control character in string")
		}
	}
}

// escapeLen returns the length of the escape sequence at the start of b.
func escapeLen(b []byte) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		if len(b) < 6 {
			return 0, false
		}
		for _, h := range b[2:6] {
			if !isHex(h) {
				return 0, false
			}
		}
		return 6, true
	}
	return 0, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// decode turns the raw content of a validated string token into a Go string, resolving escapes
// and invalid UTF-8 exactly as encoding/json does (invalid bytes and unpaired surrogates become
// U+FFFD), so that every string of the project's JSON reads the same. FuzzDecode holds it to
// that.
func decode(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			i += 2
			switch raw[i-1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if pair := utf16.DecodeRune(r, hex4(raw[i+2:])); pair != unicode.ReplacementChar {
							r, i = pair, i+6
						}
					}
					if utf16.IsSurrogate(r) {
						r = unicode.ReplacementChar
					}
				}
				b = utf8.AppendRune(b, r)
			default: // '"', '\\', '/'
				b = append(b, raw[i-1])
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b)
}

// hex4 reads the four hex digits of a \u escape (validated by the lexer).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// str reads a string or null ("") value.
func (lx *lexer) str() (string, error) {
	raw, esc, null, err := lx.strRaw()
	if err != nil || null {
		return "", err
	}
	return decode(raw, esc), nil
}

// word reads a string or null value that recurs across entries (verbs, resources, users),
// sharing one copy of each distinct value.
func (lx *lexer) word() (string, error) {
	raw, esc, null, err := lx.strRaw()
	if err != nil || null {
		return "", err
	}
	if esc || lx.in == nil {
		return decode(raw, esc), nil
	}
	return lx.in.intern(raw), nil
}

func (lx *lexer) strRaw() (raw []byte, esc, null bool, err error) {
	switch lx.peek() {
	case '"':
		raw, esc, err = lx.rawString()
		return raw, esc, false, err
	case 'n':
		return nil, false, true, lx.literal("null")
	}
	return nil, false, false, lx.want("string")
}

// token is the undecoded content of a string value, for values decoded only if kept.
type token struct {
	raw []byte
	esc bool
}

// token reads a string or null value without decoding it.
func (lx *lexer) token() (token, error) {
	raw, esc, _, err := lx.strRaw()
	return token{raw, esc}, err
}

// integer reads an integer or null (0) value.
func (lx *lexer) integer() (int, error) {
	switch c := lx.peek(); {
	case c == 'n':
		return 0, lx.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := lx.pos
		raw, err := lx.number()
		if err != nil {
			return 0, err
		}
		n, perr := strconv.Atoi(string(raw))
		if perr != nil {
			lx.pos = start
			return 0, lx.fail("want an integer, got " + strconv.Quote(string(raw)))
		}
		return n, nil
	}
	return 0, lx.want("integer")
}

// strings reads an array of strings (or null) into dst[:0].
func (lx *lexer) strings(dst []string) ([]string, error) {
	dst = dst[:0]
	if lx.peek() == 'n' {
		return dst, lx.literal("null")
	}
	if err := lx.beginArray(); err != nil {
		return dst, err
	}
	for i := 0; ; i++ {
		more, err := lx.nextElement(i == 0)
		if err != nil || !more {
			return dst, err
		}
		s, err := lx.word()
		if err != nil {
			return dst, inField(indexField(i), err)
		}
		dst = append(dst, s)
	}
}

// raw reads any value and returns its bytes, nil for null.
func (lx *lexer) raw() ([]byte, error) {
	if lx.peek() == 'n' {
		return nil, lx.literal("null")
	}
	start := lx.pos
	if err := lx.skip(); err != nil {
		return nil, err
	}
	return lx.data[start:lx.pos], nil
}

func (lx *lexer) literal(word string) error {
	if len(lx.data)-lx.pos < len(word) || string(lx.data[lx.pos:lx.pos+len(word)]) != word {
		return lx.fail("invalid literal, want " + word)
	}
	lx.pos += len(word)
	return nil
}

// number consumes a number token, validating it against the JSON grammar.
func (lx *lexer) number() ([]byte, error) {
	d, i := lx.data, lx.pos
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		lx.pos = i
		return nil, lx.fail("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		if j := digits(d, i+1); j > i+1 {
			i = j
		} else {
			lx.pos = i
			return nil, lx.fail("invalid number")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if j := digits(d, i); j > i {
			i = j
		} else {
			lx.pos = i
			return nil, lx.fail("invalid number")
		}
	}
	lx.pos = i
	return d[start:i], nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// skip consumes any value, validating it.
func (lx *lexer) skip() error {
	switch c := lx.peek(); {
	case c == '{':
		if err := lx.beginObject(); err != nil {
			return err
		}
		for first := true; ; first = false {
			key, more, err := lx.nextKey(first)
			if err != nil || !more {
				return err
			}
			if err := lx.skip(); err != nil {
				return inField(string(key), err)
			}
		}
	case c == '[':
		if err := lx.beginArray(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			more, err := lx.nextElement(i == 0)
			if err != nil || !more {
				return err
			}
			if err := lx.skip(); err != nil {
				return inField(indexField(i), err)
			}
		}
	case c == '"':
		_, _, err := lx.rawString()
		return err
	case c == 't':
		return lx.literal("true")
	case c == 'f':
		return lx.literal("false")
	case c == 'n':
		return lx.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := lx.number()
		return err
	}
	return lx.want("a JSON value")
}

// beginObject consumes the opening brace of an object. Members are then read with nextKey
// until it reports no more; the caller must consume each member's value.
func (lx *lexer) beginObject() error {
	if lx.peek() != '{' {
		return lx.want("object")
	}
	return lx.open()
}

func (lx *lexer) beginArray() error {
	if lx.peek() != '[' {
		return lx.want("array")
	}
	return lx.open()
}

func (lx *lexer) open() error {
	if lx.depth >= maxDepth {
		return lx.fail("nesting deeper than " + strconv.Itoa(maxDepth))
	}
	lx.depth++
	lx.pos++
	return nil
}

// nextKey moves to the next member of an object and returns its key (decoded), or more=false
// after the closing brace. The key is only valid until the next read.
func (lx *lexer) nextKey(first bool) (key []byte, more bool, err error) {
	c := lx.peek()
	if c == '}' {
		lx.pos++
		lx.depth--
		return nil, false, nil
	}
	if !first {
		if c != ',' {
			return nil, false, lx.fail("want ',' or '}' after object member")
		}
		lx.pos++
		c = lx.peek()
	}
	if c != '"' {
		return nil, false, lx.want("object key")
	}
	raw, esc, err := lx.rawString()
	if err != nil {
		return nil, false, err
	}
	if esc {
		raw = []byte(decode(raw, true))
	}
	if lx.peek() != ':' {
		return nil, false, lx.fail("want ':' after object key")
	}
	lx.pos++
	return raw, true, nil
}

// nextElement moves to the next element of an array, or reports more=false after the closing
// bracket.
func (lx *lexer) nextElement(first bool) (bool, error) {
	c := lx.peek()
	if c == ']' && first {
		lx.pos++
		lx.depth--
		return false, nil
	}
	if !first {
		switch c {
		case ']':
			lx.pos++
			lx.depth--
			return false, nil
		case ',':
			lx.pos++
		default:
			return false, lx.fail("want ',' or ']' after array element")
		}
	}
	return true, nil
}

// interner shares one copy of recurring strings within a scan. It holds at most internMax
// strings of at most internMaxLen bytes, so it stays small whatever the log holds. The few
// values that fill most entries (verbs, stages, users) are found in recent, a direct-mapped
// cache in front of the map, by a hash cheaper than the map's.
type interner struct {
	m      map[string]string
	recent [internRecent]string
}

const (
	internMax    = 4096
	internMaxLen = 256
	internRecent = 256 // a power of two
)

func (in *interner) intern(b []byte) string {
	slot := &in.recent[recentSlot(b)]
	if *slot == string(b) {
		return *slot
	}
	if s, ok := in.m[string(b)]; ok {
		*slot = s
		return s
	}
	s := string(b)
	if !utf8.ValidString(s) {
		return decode(b, false)
	}
	if len(in.m) < internMax && len(s) <= internMaxLen {
		if in.m == nil {
			in.m = make(map[string]string, 256)
		}
		in.m[s] = s
		*slot = s
	}
	return s
}

// recentSlot picks b's slot in interner.recent from its length and its first and last eight
// bytes (all of b when shorter).
func recentSlot(b []byte) int {
	var head, tail uint64
	if len(b) >= 8 {
		head = binary.LittleEndian.Uint64(b)
		tail = binary.LittleEndian.Uint64(b[len(b)-8:])
	} else {
		for i, c := range b {
			head |= uint64(c) << (8 * i)
		}
	}
	h := (head ^ bits.RotateLeft64(tail, 29) ^ uint64(len(b))) * 0x9E3779B97F4A7C15
	return int(h >> (64 - 8))
}
