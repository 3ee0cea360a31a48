package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrAuthConfig: the server's token keys are missing, unreadable or unusable.
var ErrAuthConfig = errclass.New(errclass.Input, "serve: bad authentication configuration")

// MinSecretBytes is the shortest HS256 secret accepted: RFC 7518 §3.2 asks for a key of at
// least the hash size (256 bits).
const MinSecretBytes = 32

// Auth verifies bearer tokens: JWTs signed with HS256 under a shared secret, or with EdDSA
// under an Ed25519 key. exp is required and enforced, nbf enforced when present; a token
// signed with any other algorithm is refused.
type Auth struct {
	key    any
	method string
}

// NewHS256Auth verifies tokens signed with HS256 under secret (the content of a secret file,
// surrounding whitespace removed).
func NewHS256Auth(secret []byte) (*Auth, error) {
	secret = bytes.TrimSpace(secret)
	if len(secret) < MinSecretBytes {
		return nil, fmt.Errorf("%w: the HS256 secret has %d bytes, at least %d are needed", ErrAuthConfig, len(secret), MinSecretBytes)
	}
	return &Auth{key: secret, method: jwt.SigningMethodHS256.Alg()}, nil
}

// NewEd25519Auth verifies tokens signed with EdDSA under the Ed25519 public key in pemData.
func NewEd25519Auth(pemData []byte) (*Auth, error) {
	key, err := jwt.ParseEdPublicKeyFromPEM(pemData)
	if err != nil {
		return nil, fmt.Errorf("%w: the public key is not an Ed25519 PEM public key: %v", ErrAuthConfig, err)
	}
	if _, ok := key.(ed25519.PublicKey); !ok {
		return nil, fmt.Errorf("%w: the public key is not an Ed25519 public key", ErrAuthConfig)
	}
	return &Auth{key: key, method: jwt.SigningMethodEdDSA.Alg()}, nil
}

// Claims are the verified claims of a request's token.
type Claims struct {
	// Subject is the token's sub claim: who makes the request (a review's "by").
	Subject string
}

type claimsKey struct{}

// ClaimsOf returns the verified claims of the request's context.
func ClaimsOf(ctx context.Context) Claims {
	c, _ := ctx.Value(claimsKey{}).(Claims)
	return c
}

// Verify checks a token and returns its claims.
func (a *Auth) Verify(token string) (Claims, error) {
	claims := jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{a.method}), jwt.WithExpirationRequired())
	if err != nil {
		return Claims{}, err
	}
	return Claims{Subject: claims.Subject}, nil
}

// Require lets through requests with a valid bearer token; any other request gets 401 with an
// empty body and nothing but the WWW-Authenticate challenge (RFC 6750 §3), whatever was wrong.
func (a *Auth) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		var claims Claims
		var err error
		if ok && strings.EqualFold(scheme, "Bearer") && token != "" {
			claims, err = a.Verify(strings.TrimSpace(token))
		}
		if !ok || token == "" || err != nil || !strings.EqualFold(scheme, "Bearer") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="oasis-replay"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims)))
	})
}
