package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
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
	// Refused, when set, is told of every refused request: its method, path and why, in
	// words (RefusalReason) — never the token. The client still gets a bare 401.
	Refused func(r *http.Request, reason string)
	// sessions, when set (NewSessions), lets a browser session's cookie stand for a token on
	// GET and HEAD requests.
	sessions *Sessions
}

// NewHS256Auth verifies tokens signed with HS256 under secret (the content of a secret file,
// HS256Secret: surrounding whitespace removed).
func NewHS256Auth(secret []byte) (*Auth, error) {
	key, err := HS256Secret(secret)
	if err != nil {
		return nil, err
	}
	return &Auth{key: key, method: jwt.SigningMethodHS256.Alg()}, nil
}

// HS256Secret is the HMAC key of a secret file's content: the content with surrounding
// whitespace (a final newline from an editor or echo) removed, at least MinSecretBytes long.
// The server verifies with it and `serve token` signs with it, so that both use the same
// bytes; a token signed elsewhere must be signed with the trimmed bytes too.
func HS256Secret(content []byte) ([]byte, error) {
	secret := bytes.TrimSpace(content)
	if len(secret) < MinSecretBytes {
		return nil, fmt.Errorf("%w: the HS256 secret has %d bytes, at least %d are needed (surrounding whitespace is not part of it)", ErrAuthConfig, len(secret), MinSecretBytes)
	}
	return secret, nil
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
	if isLoginToken(claims.Audience) {
		return Claims{}, ErrLoginAsBearer
	}
	return Claims{Subject: claims.Subject}, nil
}

// ErrLoginAsBearer: a login token (serve token --url) sent as a bearer token. It opens one
// browser session at /login and nothing else.
var ErrLoginAsBearer = errclass.New(errclass.Input, "serve: a login token is no bearer token: open it as a link (/login?t=TOKEN)")

// Require lets through requests with a valid bearer token, and, with browser sessions
// (NewSessions), GET and HEAD requests without an Authorization header that carry a live
// session's cookie: a cookie never authorizes a request that changes anything, which is what
// keeps cross-site request forgery out (docs/decisions.md, "Opening the pages in a browser").
// Any other request gets 401 with an empty body and nothing but the WWW-Authenticate challenge
// (RFC 6750 §3), whatever was wrong. Why it was refused goes to Refused, for the server's
// operator only.
func (a *Auth) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		claims, reason := a.check(header)
		if reason != "" && header == "" && a.sessions != nil {
			if c, ok := a.sessions.claimsOf(r); ok && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				claims, reason = c, ""
			} else if ok {
				reason = "a session cookie on a " + r.Method + " request (the cookie is for GET and HEAD only; send a bearer token)"
			}
		}
		if reason != "" {
			if a.Refused != nil {
				a.Refused(r, reason)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="oasis-replay"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims)))
	})
}

// check verifies an Authorization header's bearer token; reason is "" when it is valid.
func (a *Auth) check(header string) (claims Claims, reason string) {
	if header == "" {
		return Claims{}, "no Authorization header"
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return Claims{}, "the Authorization header is not Bearer TOKEN"
	}
	if token = strings.TrimSpace(token); token == "" {
		return Claims{}, "an empty bearer token"
	}
	claims, err := a.Verify(token)
	if err != nil {
		return Claims{}, RefusalReason(err)
	}
	return claims, ""
}

// RefusalReason says in words why Verify refused a token, from golang-jwt's error classes:
// never the token, nor anything read from it but its algorithm.
func RefusalReason(err error) string {
	switch {
	case errors.Is(err, ErrLoginAsBearer):
		return "a login token sent as a bearer token (it opens a browser session at /login, once)"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "a malformed token (not a JWT: three base64url parts, header.claims.signature)"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "an unverifiable token (its signing algorithm is not the server's)"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid) && strings.Contains(err.Error(), "signing method"):
		return "a token signed with another algorithm than the server's"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "a bad signature (signed with another key; an HS256 secret file's surrounding whitespace is not part of the key)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "a token without exp (an expiry is required)"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "an expired token"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return "a token not valid yet (nbf in the future)"
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return "a token with invalid claims"
	}
	return "an invalid token"
}
