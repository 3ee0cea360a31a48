// Package redact hides secrets in recorded evidence before it is persisted, in the manner of
// go-vcr's redaction hooks: every occurrence of each value is replaced by a marker, in byte
// streams of any size and in single strings.
//
// # Markers
//
// With a key, the marker of a value is "[REDACTED:hmac-sha256:<h>]", where <h> is the first 16
// hex characters of HMAC-SHA256(key, value). The same value under the same key always gives
// the same marker, so whoever holds the key can recognise a secret in a recording (and detect
// that it leaked where it should not have) while the recording never holds the secret. Without
// the key, a marker cannot be turned back into its value, even for short or guessable values.
// KeyID names the key the same way (HMAC of a fixed label), so a recording can say which key
// made its markers. Without a key every value becomes "[REDACTED]": the secret is still gone,
// but occurrences of different secrets can no longer be told apart. Markers contain no quote
// and no backslash, so a value replaced inside a JSON string leaves the document valid.
//
// Keys are at least MinKeyLength (16) bytes; values at least MinValueLength (4) bytes, because
// replacing every short string would wreck a recording without protecting anything.
//
// # Forms
//
// A value is looked for under each form it can take in a recording: as itself; escaped inside
// a JSON string (minimal escaping; with <, > and & escaped as Go's encoding/json does; with
// every non-ASCII character escaped as Python's json module does); and standard base64 of the
// value on its own, which is how a Kubernetes Secret stores it. Every form is replaced by the
// value's marker. Other encodings (URL or hex encoding, base64 of a longer string) are not
// recognised: redact the encoded form as a value of its own.
//
// # Overlaps and streams
//
// Occurrences that overlap, of one value or of several, form one span that is replaced as a
// whole by the markers of the values in it, in order of first occurrence, so no fragment of a
// value survives between two markers. The streaming Reader gives the same bytes as Bytes on
// the whole input however its source splits it: it holds back the last (longest form − 1)
// bytes of each read, and any span still growing, until later input decides them. Input in
// which overlapping occurrences chain for more than 1 MiB is the one exception: the span is
// then cut there.
package redact
