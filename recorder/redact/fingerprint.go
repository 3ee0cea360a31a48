package redact

import (
	"strconv"
	"strings"
)

// fingerprintLabel separates fingerprints from markers made with the same key.
const fingerprintLabel = "oasis-replay redaction values\x00"

// Fingerprint identifies the set of values without revealing them: with a key, a keyed
// digest of the sorted values (16 hex characters); without a key, "" (an unkeyed digest of
// short secrets could be reversed by guessing). Two Redactors with the same key and values
// have the same fingerprint.
func (r *Redactor) Fingerprint() string {
	if r.key == nil || len(r.secrets) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(fingerprintLabel)
	for _, s := range r.secrets { // sorted by value
		b.WriteString(strconv.Itoa(len(s.value)))
		b.WriteByte(':')
		b.WriteString(s.value)
	}
	return keyedHex(r.key, b.String())
}
