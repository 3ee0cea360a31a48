package serve

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenSigner makes the bearer tokens Auth verifies: HS256 under the same secret bytes
// (HS256Secret), or EdDSA under the Ed25519 private key whose public key the server holds.
type TokenSigner struct {
	key    any
	method jwt.SigningMethod
}

// NewHS256Signer signs with the secret of a secret file's content, trimmed as NewHS256Auth
// trims it.
func NewHS256Signer(content []byte) (*TokenSigner, error) {
	key, err := HS256Secret(content)
	if err != nil {
		return nil, err
	}
	return &TokenSigner{key: key, method: jwt.SigningMethodHS256}, nil
}

// NewEd25519Signer signs with the Ed25519 private key in pemData (PKCS #8 PEM, as receipt
// keygen writes it).
func NewEd25519Signer(pemData []byte) (*TokenSigner, error) {
	key, err := jwt.ParseEdPrivateKeyFromPEM(pemData)
	if err != nil {
		return nil, fmt.Errorf("%w: the private key is not an Ed25519 PEM private key: %v", ErrAuthConfig, err)
	}
	if _, ok := key.(ed25519.PrivateKey); !ok {
		return nil, fmt.Errorf("%w: the private key is not an Ed25519 private key", ErrAuthConfig)
	}
	return &TokenSigner{key: key, method: jwt.SigningMethodEdDSA}, nil
}

// Sign returns a token for subject (the sub claim, who the server takes the requests to come
// from), issued at now and valid for ttl: iat, nbf and exp are set, exp being required.
func (s *TokenSigner) Sign(subject string, now time.Time, ttl time.Duration) (string, error) {
	if ttl <= 0 {
		return "", fmt.Errorf("%w: a token's lifetime must be positive, got %s", ErrAuthConfig, ttl)
	}
	return s.sign(tokenClaims(subject, now, ttl))
}

// tokenClaims are a token's claims for subject, issued at now and valid for ttl.
func tokenClaims(subject string, now time.Time, ttl time.Duration) jwt.RegisteredClaims {
	return jwt.RegisteredClaims{
		Subject:   subject,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}
}

func (s *TokenSigner) sign(claims jwt.RegisteredClaims) (string, error) {
	return jwt.NewWithClaims(s.method, claims).SignedString(s.key)
}
