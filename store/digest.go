package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// DigestPrefix is the algorithm part of every digest string.
const DigestPrefix = "sha256:"

// digestHexLen is the number of hex characters after DigestPrefix.
const digestHexLen = 2 * sha256.Size

// Digest identifies content: the SHA-256 of its exact, uncompressed bytes. It is a value type;
// code passes Digest, never a bare string. The zero Digest means "none".
type Digest [sha256.Size]byte

// Sum returns the digest of b.
func Sum(b []byte) Digest { return Digest(sha256.Sum256(b)) }

// ParseDigest parses the canonical form "sha256:<64 lowercase hex>".
func ParseDigest(s string) (Digest, error) {
	var d Digest
	hexPart, ok := strings.CutPrefix(s, DigestPrefix)
	if !ok {
		return d, fmt.Errorf("%w: %q does not start with %q", ErrInvalidDigest, s, DigestPrefix)
	}
	if len(hexPart) != digestHexLen {
		return d, fmt.Errorf("%w: %q has %d hex characters, want %d", ErrInvalidDigest, s, len(hexPart), digestHexLen)
	}
	if strings.ToLower(hexPart) != hexPart {
		return d, fmt.Errorf("%w: %q is not lowercase hex", ErrInvalidDigest, s)
	}
	if _, err := hex.Decode(d[:], []byte(hexPart)); err != nil {
		return Digest{}, fmt.Errorf("%w: %q: %v", ErrInvalidDigest, s, err)
	}
	return d, nil
}

// String returns "sha256:<64 hex>", or "" for the zero digest.
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return DigestPrefix + hex.EncodeToString(d[:])
}

// Hex returns the 64 lowercase hex characters without the algorithm prefix.
func (d Digest) Hex() string { return hex.EncodeToString(d[:]) }

// Short returns a form for humans: the algorithm and the first 12 hex characters.
func (d Digest) Short() string { return DigestPrefix + d.Hex()[:12] }

// IsZero reports whether d is the zero digest.
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText implements encoding.TextMarshaler (and so JSON strings).
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. The empty string decodes to the zero digest.
func (d *Digest) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Digest{}
		return nil
	}
	parsed, err := ParseDigest(string(b))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// Digester computes a Digest over a stream of writes.
type Digester struct{ h hash.Hash }

// NewDigester returns a Digester ready for writes.
func NewDigester() *Digester { return &Digester{h: sha256.New()} }

// Write adds p to the digest; it never fails.
func (g *Digester) Write(p []byte) (int, error) { return g.h.Write(p) }

// Digest returns the digest of everything written so far.
func (g *Digester) Digest() Digest {
	var d Digest
	g.h.Sum(d[:0])
	return d
}

// IsHexPrefix reports whether s is a plausible digest prefix: optional "sha256:" then 1..64
// lowercase hex characters. It is how BUNDLE arguments are told apart from tags.
func IsHexPrefix(s string) bool {
	s = strings.TrimPrefix(s, DigestPrefix)
	if len(s) == 0 || len(s) > digestHexLen {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Compare orders digests by their bytes (the order of their hex): -1, 0 or +1.
func (d Digest) Compare(o Digest) int { return bytes.Compare(d[:], o[:]) }
