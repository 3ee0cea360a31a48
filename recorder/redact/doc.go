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
// # Encodings
//
// A value is looked for under every form it commonly takes in a recording, and every form is
// replaced by the value's marker:
//
//   - the value itself; with each space written '+' (HTML form encoding);
//   - its hex, lower or upper case;
//   - its standard and URL-safe base64, alone (padded or not) or inside a longer base64 text:
//     base64 of "user:secret" (HTTP Basic authentication), of a JSON document (a token's
//     payload), of a Kubernetes Secret's data. Without knowing what precedes the value, its
//     base64 is one of three texts, one per alignment (offset 0, 1 or 2 modulo 3 bytes); the
//     characters that depend on the value alone are looked for, and the base64 character on
//     each side that mixes bits of the value with bits of its neighbours is replaced with
//     them. Inside longer base64, only values of 7 bytes or more are looked for at every
//     alignment (8 characters, 48 bits, at least): shorter middles would match random base64.
//
// Each of these is also found through escapes, in any mix, one unit at a time: JSON's \uXXXX
// (either case, surrogate pairs beyond the BMP), \/, \\, \" and the other short escapes, and
// percent-encoding %XX (either case), escaping every byte or only some. So a JSON-escaped
// base64 string with \/, a percent-encoded base64 query parameter, or a password written
// \u0070\u0061… are found. Whether a span of input spells a value depends only on its own
// bytes, never on what precedes it.
//
// Out of scope: compressed bodies (gzip, zstd), base64 wrapped over several lines (MIME),
// base64 of base64 (the auth field inside a Kubernetes dockerconfigjson Secret), HTML
// entities, mixed-case hex, hex with separators, and any encryption or hashing of a value.
// Redact such forms as values of their own. The reasons are in docs/decisions.md.
//
// # What was replaced
//
// WithTally returns a Redactor that counts what it replaces in a Tally: per marker and
// encoding ("plain", "form", "hex", "base64", "base64url", each followed by "+json" and/or
// "+percent" when escapes were read through), one count per span in which the value was
// found. The recorder keeps one tally per blob it stores and writes the totals in the run
// manifest; a tally never holds a value.
//
// # Overlaps and streams
//
// Occurrences that overlap, of one value or of several, form one span that is replaced as a
// whole by the markers of the values in it, in order of first occurrence, so no fragment of a
// value survives between two markers. The streaming Reader gives the same bytes as Bytes on
// the whole input however its source splits it: it holds back the last bytes of each read
// (as many as the longest escaped spelling of a form, and its base64 edges), and any span
// still growing, until later input decides them. Input in which overlapping occurrences chain
// for more than 1 MiB is the one exception: the span is then cut there.
//
// # Speed
//
// Literal occurrences are found by probing one position in every (shortest form − 3) bytes
// against an index of 4-byte grams, escaped ones from each '%' and '\' of the input; memory
// is bounded by the read size plus the held-back bytes. On a generated Kubernetes audit log
// with three values, tools/redactbench reads well over 1 GB/s.
package redact
