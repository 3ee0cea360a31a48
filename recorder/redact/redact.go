package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

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
// values, WithTally one that counts what it replaces.
type Redactor struct {
	key     []byte
	secrets []secret // sorted by value
	m       *matcher // every target of every secret
	tally   *Tally   // nil: nothing is counted
}

type secret struct {
	value  string
	marker string
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
	var targets []target
	for i, v := range set {
		next.secrets[i] = secret{value: v, marker: r.Marker(v)}
		targets = append(targets, targetsOf(i, v)...)
	}
	// One target per byte sequence: a value's URL-safe base64 without '-' or '_' is its
	// standard base64, and is reported as such.
	slices.SortStableFunc(targets, func(a, b target) int { return bytes.Compare(a.form, b.form) })
	targets = slices.CompactFunc(targets, func(a, b target) bool { return bytes.Equal(a.form, b.form) })
	next.m = newMatcher(targets)
	return next, nil
}

// WithTally returns a Redactor that replaces the same values and adds what it replaces to t.
func (r *Redactor) WithTally(t *Tally) *Redactor {
	next := *r
	next.tally = t
	return &next
}

// Keyed reports whether markers carry a keyed digest.
func (r *Redactor) Keyed() bool { return r.key != nil }

// Len is the number of distinct values replaced.
func (r *Redactor) Len() int { return len(r.secrets) }

// Markers lists the distinct markers of the values, sorted: one per value with a key, only
// UnkeyedMarker without one (none without values).
func (r *Redactor) Markers() []string {
	out := make([]string, 0, len(r.secrets))
	for _, s := range r.secrets {
		out = append(out, s.marker)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

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
	if len(r.secrets) == 0 || len(s) < MinValueLength {
		return s
	}
	out, _, _ := r.scan(nil, []byte(s), true, nil)
	return string(out)
}

// Bytes returns b with every value replaced; b itself is not modified.
func (r *Redactor) Bytes(b []byte) []byte {
	if len(r.secrets) == 0 {
		return b
	}
	out, _, _ := r.scan(nil, b, true, nil)
	return out
}
