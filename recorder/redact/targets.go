package redact

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// encoding is the outer form of a value a target spells: the value itself, or an encoding of
// it that changes every byte (hex, base64). Escapes (JSON, percent) are not targets: they
// are read through while matching any target (see match.go).
type encoding uint8

const (
	encPlain     encoding = iota // the value's bytes
	encForm                      // the value with each space written '+' (HTML form encoding)
	encHex                       // hex of the value, lower or upper case
	encBase64                    // standard base64 of the value, alone or inside longer base64
	encBase64URL                 // URL-safe base64, likewise
	numEncodings
)

var encodingNames = [numEncodings]string{"plain", "form", "hex", "base64", "base64url"}

// Escape kinds read through while matching, as flags of an occurrence.
const (
	escJSON    uint8 = 1 << iota // \uXXXX, \/, \\ and the other JSON escapes
	escPercent                   // %XX
)

// minBase64Middle is the shortest part of a longer base64 text that is taken to spell a value:
// 8 characters carry 48 bits, so that a match by chance in a gigabyte of random base64 is
// unlikely. Values of 7 bytes or more are found at every alignment; shorter ones only where
// their base64 begins at a group boundary (as the base64 of the value alone does).
const minBase64Middle = 8

// target is one byte sequence that spells a value in a recording.
type target struct {
	form   []byte
	secret int      // index into Redactor.secrets
	enc    encoding // what form spells
	// edgeL and edgeR: form is the middle of a longer base64 text, and the base64 character
	// just before (edgeL) or after (edgeR) it mixes bits of the value with bits of its
	// neighbours. That character is replaced too, so that no bit of the value survives.
	edgeL, edgeR bool
}

// alphabet is the set of characters of the target's base64 alphabet (nil for other targets).
func (t *target) alphabet() *[256]bool {
	switch t.enc {
	case encBase64:
		return &stdAlphabet
	case encBase64URL:
		return &urlAlphabet
	}
	return nil
}

var stdAlphabet, urlAlphabet = alphabetSet(base64.StdEncoding), alphabetSet(base64.URLEncoding)

func alphabetSet(enc *base64.Encoding) [256]bool {
	var set [256]bool
	// Every byte value is encoded by some character: encoding 0..255 at the three positions
	// of a group shows each character of the alphabet.
	for b := range 256 {
		for _, c := range enc.EncodeToString([]byte{byte(b), byte(b), byte(b)}) {
			set[c] = true
		}
	}
	return set
}

// targetsOf lists the targets of value v (secret index i): itself; with spaces as '+' when it
// has spaces; its hex in lower and upper case; its standard and URL-safe base64 alone (padded
// and not) and, for each of the three alignments at which it can start inside a longer base64
// text (base64 of "user:secret" in HTTP Basic authentication, of a JSON document in a token),
// the characters that depend on the value alone.
func targetsOf(i int, v string) []target {
	ts := []target{{form: []byte(v), secret: i, enc: encPlain}}
	if strings.Contains(v, " ") {
		ts = append(ts, target{form: []byte(strings.ReplaceAll(v, " ", "+")), secret: i, enc: encForm})
	}
	h := hex.EncodeToString([]byte(v))
	ts = append(ts, target{form: []byte(h), secret: i, enc: encHex}, target{form: []byte(strings.ToUpper(h)), secret: i, enc: encHex})
	for _, e := range []struct {
		enc     encoding
		std, rw *base64.Encoding
	}{{encBase64, base64.StdEncoding, base64.RawStdEncoding}, {encBase64URL, base64.URLEncoding, base64.RawURLEncoding}} {
		ts = append(ts, target{form: []byte(e.std.EncodeToString([]byte(v))), secret: i, enc: e.enc},
			target{form: []byte(e.rw.EncodeToString([]byte(v))), secret: i, enc: e.enc})
		for k := range 3 {
			if m, ok := base64Middle(e.rw, v, k); ok {
				ts = append(ts, m)
				ts[len(ts)-1].secret, ts[len(ts)-1].enc = i, e.enc
			}
		}
	}
	return ts
}

// base64Middle is the part of a base64 text that depends only on v when v starts k bytes
// (mod 3) into the encoded text: characters are 6 bits, v's bits are [8k, 8k+8n), so the
// characters wholly inside are ceil(8k/6) up to floor((8k+8n)/6). ok is false when fewer
// than minBase64Middle characters remain.
func base64Middle(enc *base64.Encoding, v string, k int) (target, bool) {
	n := len(v)
	text := enc.EncodeToString(append(make([]byte, k), v...))
	first, last := (8*k+5)/6, (8*k+8*n)/6
	if last-first < minBase64Middle {
		return target{}, false
	}
	return target{form: []byte(text[first:last]), edgeL: k != 0, edgeR: (8*k+8*n)%6 != 0}, true
}
