package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Sentinel errors of the package; messages wrap them with the file, line or value position
// concerned (never with a secret value).
var (
	// ErrKey: a redaction key is missing, unreadable or too short.
	ErrKey = errclass.New(errclass.Input, "redact: bad key")
	// ErrValue: a value to redact is unusable (too short, or not one line).
	ErrValue = errclass.New(errclass.Input, "redact: bad value")
)

// MinKeyLength is the shortest key accepted, in bytes. A key shorter than a SHA-256 block's
// worth of entropy would make markers cheap to brute-force for short secrets.
const MinKeyLength = 16

// MinValueLength is the shortest value accepted, in bytes: replacing every "ab" or "1" in a
// recording would destroy it without protecting anything.
const MinValueLength = 4

// markerHexLength is how many hex characters of the keyed digest a marker carries: 64 bits,
// enough to tell secrets apart and to recognise a known one, too few to be a useful oracle.
const markerHexLength = 16

// UnkeyedMarker replaces values when the Redactor has no key.
const UnkeyedMarker = "[REDACTED]"

// keyIDLabel is the message whose keyed digest identifies a key without revealing it.
const keyIDLabel = "oasis-replay redaction key id"

// Redactor replaces every occurrence of a set of values in byte streams and strings by a
// marker. It is immutable and safe for concurrent use; With derives a Redactor with more
// values.
type Redactor struct {
	key      []byte
	secrets  []secret  // sorted by value
	patterns []pattern // every form of every secret, sorted by form
	maxLen   int       // longest form
}

type secret struct {
	value  string
	marker string
}

// pattern is one byte form of a secret as it can appear in a recording.
type pattern struct {
	form   []byte
	secret int // index into Redactor.secrets
}

// New returns a Redactor for values. With a nil key every value is replaced by UnkeyedMarker;
// with a key (at least MinKeyLength bytes) by "[REDACTED:hmac-sha256:<16 hex>]". Duplicate
// values are merged; every value must be at least MinValueLength bytes.
func New(key []byte, values []string) (*Redactor, error) {
	if key != nil && len(key) < MinKeyLength {
		return nil, fmt.Errorf("%w: %d bytes, want at least %d", ErrKey, len(key), MinKeyLength)
	}
	r := &Redactor{key: slices.Clone(key)}
	return r.With(values...)
}

// With returns a Redactor that also replaces values. The receiver is unchanged.
func (r *Redactor) With(values ...string) (*Redactor, error) {
	set := make([]string, 0, len(r.secrets)+len(values))
	for _, s := range r.secrets {
		set = append(set, s.value)
	}
	for i, v := range values {
		if len(v) < MinValueLength {
			return nil, fmt.Errorf("%w: value %d is %d bytes, want at least %d", ErrValue, i+1, len(v), MinValueLength)
		}
		set = append(set, v)
	}
	slices.Sort(set)
	set = slices.Compact(set)
	next := &Redactor{key: r.key, secrets: make([]secret, len(set))}
	for i, v := range set {
		next.secrets[i] = secret{value: v, marker: r.Marker(v)}
		for _, form := range forms(v) {
			next.patterns = append(next.patterns, pattern{form: []byte(form), secret: i})
			next.maxLen = max(next.maxLen, len(form))
		}
	}
	slices.SortFunc(next.patterns, func(a, b pattern) int { return bytes.Compare(a.form, b.form) })
	next.patterns = slices.CompactFunc(next.patterns, func(a, b pattern) bool { return bytes.Equal(a.form, b.form) })
	return next, nil
}

// Keyed reports whether markers carry a keyed digest.
func (r *Redactor) Keyed() bool { return r.key != nil }

// Len is the number of distinct values replaced.
func (r *Redactor) Len() int { return len(r.secrets) }

// KeyID identifies the key without revealing it: the first 16 hex characters of its HMAC of a
// fixed label. It is "" without a key.
func (r *Redactor) KeyID() string {
	if r.key == nil {
		return ""
	}
	return keyedHex(r.key, keyIDLabel)
}

// Marker returns what replaces value. The same value and key always give the same marker, so a
// holder of the key can tell which secret a marker stands for and detect a leak, while the
// recording never holds the secret. Markers contain no quote or backslash: a marker inside a
// JSON string leaves the document valid.
func (r *Redactor) Marker(value string) string {
	if r.key == nil {
		return UnkeyedMarker
	}
	return "[REDACTED:hmac-sha256:" + keyedHex(r.key, value) + "]"
}

func keyedHex(key []byte, msg string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msg))
	return hex.EncodeToString(mac.Sum(nil))[:markerHexLength]
}

// Conceals reports whether redaction would hide part or all of literal: some value contains
// literal or occurs in it. It returns the marker of the first such value (in value order).
func (r *Redactor) Conceals(literal string) (string, bool) {
	if literal == "" {
		return "", false
	}
	for _, s := range r.secrets {
		if strings.Contains(literal, s.value) || strings.Contains(s.value, literal) {
			return s.marker, true
		}
	}
	return "", false
}

// String returns s with every value replaced.
func (r *Redactor) String(s string) string {
	if len(r.patterns) == 0 || len(s) < MinValueLength {
		return s
	}
	out, _ := r.scan(nil, []byte(s), true)
	return string(out)
}

// Bytes returns b with every value replaced; b itself is not modified.
func (r *Redactor) Bytes(b []byte) []byte {
	if len(r.patterns) == 0 {
		return b
	}
	out, _ := r.scan(nil, b, true)
	return out
}

// forms lists the byte sequences under which a value can appear in a recording: as itself;
// inside a JSON string, escaped minimally (as canonical JSON and most encoders write it), with
// <, > and & escaped as Go's encoding/json does, and with every non-ASCII character escaped as
// Python's json module does; and encoded on its own in standard base64, as Kubernetes stores
// a Secret's data. Other encodings (URL, hex, base64 at another offset) are not recognised.
func forms(v string) []string {
	out := []string{v, base64.StdEncoding.EncodeToString([]byte(v))}
	for _, html := range []bool{false, true} {
		for _, ascii := range []bool{false, true} {
			out = append(out, jsonEscape(v, html, ascii))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jsonEscape writes v as the inside of a JSON string. html escapes <, > and &; ascii escapes
// every non-ASCII rune (as surrogate pairs beyond the BMP). U+2028 and U+2029 are escaped
// whenever html is, as encoding/json does.
func jsonEscape(v string, html, ascii bool) string {
	var b strings.Builder
	for _, c := range v {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c < 0x20, html && (c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029):
			fmt.Fprintf(&b, `\u%04x`, c)
		case ascii && c > 0x7e && c != utf8.RuneError:
			if c > 0xffff {
				c -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04x`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// occurrence is one match of a pattern.
type occurrence struct {
	at     int
	secret int
}

// scan appends to dst the redacted form of buf's prefix and returns how many bytes of buf it
// consumed. Overlapping or adjacent-by-overlap occurrences of values form one span, replaced
// by the markers of every value in it, in order of first occurrence, so no fragment of any
// value survives. Unless final, scan stops before any span that a later byte could still
// extend or any occurrence that could still be completed (the last maxLen-1 bytes); the
// caller passes those bytes again with more input.
func (r *Redactor) scan(dst, buf []byte, final bool) ([]byte, int) {
	safe := len(buf)
	if !final {
		safe = max(len(buf)-(r.maxLen-1), 0)
	}
	next := make([]int, len(r.patterns))
	for i, p := range r.patterns {
		next[i] = indexFrom(buf, p.form, 0)
	}
	pos := 0
	var occ []occurrence
	for {
		start := -1
		for _, n := range next {
			if n >= 0 && (start < 0 || n < start) {
				start = n
			}
		}
		if start < 0 || start >= safe {
			return append(dst, buf[pos:safe]...), safe
		}
		end, occ := r.span(buf, next, start, occ[:0])
		if !final && end > safe {
			// A byte not read yet could extend this span: keep it for the next call.
			return append(dst, buf[pos:start]...), start
		}
		dst = append(dst, buf[pos:start]...)
		dst = r.appendMarkers(dst, occ)
		pos = end
	}
}

// span grows the span that begins at start until no occurrence starts inside it, advancing
// next past every occurrence it absorbs, and returns its end and its occurrences.
func (r *Redactor) span(buf []byte, next []int, start int, occ []occurrence) (int, []occurrence) {
	end := start
	for grew := true; grew; {
		grew = false
		for i, p := range r.patterns {
			for next[i] >= 0 && (next[i] < end || next[i] == start) {
				occ = append(occ, occurrence{at: next[i], secret: p.secret})
				if e := next[i] + len(p.form); e > end {
					end, grew = e, true
				}
				next[i] = indexFrom(buf, p.form, next[i]+1)
			}
		}
	}
	return end, occ
}

// appendMarkers writes the marker of each secret of a span once, in order of first occurrence.
func (r *Redactor) appendMarkers(dst []byte, occ []occurrence) []byte {
	slices.SortFunc(occ, func(a, b occurrence) int {
		if a.at != b.at {
			return a.at - b.at
		}
		return a.secret - b.secret
	})
	var written []int // distinct secrets of the span: a handful at most
	for _, o := range occ {
		if !slices.Contains(written, o.secret) {
			written = append(written, o.secret)
			dst = append(dst, r.secrets[o.secret].marker...)
		}
	}
	return dst
}

func indexFrom(buf, form []byte, from int) int {
	if from > len(buf) {
		return -1
	}
	i := bytes.Index(buf[from:], form)
	if i < 0 {
		return -1
	}
	return from + i
}
