package serve

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// LoginAudience is the aud claim of a login token (serve token --url): such a token opens one
// browser session at /login, once, and is refused as a bearer token.
const LoginAudience = "oasis-replay-login"

// Browser sessions (docs/decisions.md, "Opening the pages in a browser").
const (
	// LoginPath is where a login link leads: GET /login?t=NONCE-OR-TOKEN.
	LoginPath = "/login"
	// SessionCookie names the session cookie /login sets.
	SessionCookie = "oasis_replay_session"
	// DefaultLoginTTL is how long a login link is valid: long enough to paste it into a
	// browser, short enough that one found later in a log or a history opens nothing.
	DefaultLoginTTL = 10 * time.Minute
	// MaxLoginTTL is the longest lifetime of a signed login token the server accepts: a used
	// token is remembered only while the server runs, so a long-lived one would open a second
	// session after a restart.
	MaxLoginTTL = time.Hour
	// SessionTTL is how long a browser session lasts; it also ends when the server stops.
	SessionTTL = 8 * time.Hour
	// landing is where a login leads.
	landing = "/eval/report"
)

// Sessions are the browser sessions of one server: the one-time login nonces it printed, the
// signed login tokens already used, and the sessions opened. All of it lives in memory only.
type Sessions struct {
	auth *Auth
	// Now is the clock (time.Now unless a test sets it): it decides expiries, never a verdict.
	Now func() time.Time

	mu       sync.Mutex
	nonces   map[string]time.Time // nonce → expiry
	used     map[string]time.Time // jti of a used login token → its expiry
	sessions map[string]session   // cookie value → session
}

type session struct {
	claims  Claims
	expires time.Time
}

// NewSessions returns the browser sessions of a server whose tokens auth verifies; it makes
// auth accept their cookie on GET and HEAD requests (Auth.Require).
func NewSessions(auth *Auth) *Sessions {
	s := &Sessions{auth: auth, Now: time.Now, nonces: map[string]time.Time{}, used: map[string]time.Time{},
		sessions: map[string]session{}}
	auth.sessions = s
	return s
}

// randomText is n random bytes, base64url: the nonces and session ids, which reach no verdict.
func randomText(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewLoginNonce returns a nonce that opens one session at /login?t=NONCE within ttl (zero:
// DefaultLoginTTL), and when it expires.
func (s *Sessions) NewLoginNonce(ttl time.Duration) (string, time.Time) {
	if ttl <= 0 {
		ttl = DefaultLoginTTL
	}
	nonce := randomText(32)
	expires := s.Now().Add(ttl)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nonces[nonce] = expires
	return nonce, expires
}

// Mount returns the server's handler: GET /login open to all (it checks its own link), and
// everything else behind protected (Auth.Require of the API).
func (s *Sessions) Mount(protected http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(LoginPath, http.HandlerFunc(s.login))
	mux.Handle("/", protected)
	return mux
}

// login opens a session for a valid login link: a nonce this server printed, or a login token
// signed with its key (aud LoginAudience, a jti, exp at most MaxLoginTTL away), each used
// once. It sets the session cookie (HttpOnly, SameSite=Strict, Secure over TLS, Path=/) and
// leads to the report; a link that is not valid, expired or used already gets a 401 page.
func (s *Sessions) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		// Not even HEAD: a link checker's HEAD would use the link up.
		w.Header().Set("Allow", "GET")
		WriteError(w, r, Errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed here (allowed: GET)", r.Method))
		return
	}
	claims, reason := s.redeem(r.URL.Query().Get("t"))
	if reason != "" {
		if s.auth.Refused != nil {
			s.auth.Refused(r, "login link: "+reason)
		}
		pageHeaders(w)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, loginRefusedPage)
		return
	}
	id := randomText(32)
	expires := s.Now().Add(SessionTTL)
	s.mu.Lock()
	s.sessions[id] = session{claims: claims, expires: expires}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", MaxAge: int(SessionTTL / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	// The link must not stay where it could be replayed from: the answer is not cached, and
	// the redirect leaves the nonce out of the address bar.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, landing, http.StatusSeeOther)
}

const loginRefusedPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Login link refused</title></head>
<body><h1 id="refused">This login link cannot be used</h1>
<p>It was used already, it expired, or this server did not make it. Ask for a new one:
<code>oasis-replay serve token --url BASE</code> with the server's key, or the link
<code>serve api</code> printed when it started (each opens one session, once).</p></body></html>
`

// redeem checks a login link's t and uses it up; reason says why it is refused ("" if not).
func (s *Sessions) redeem(t string) (Claims, string) {
	if t == "" {
		return Claims{}, "no t parameter"
	}
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetExpired(now)
	if expires, ok := s.nonces[t]; ok {
		delete(s.nonces, t)
		if !now.Before(expires) {
			return Claims{}, "an expired login nonce"
		}
		return Claims{Subject: "login-link"}, ""
	}
	if !strings.Contains(t, ".") {
		return Claims{}, "not a login nonce this server printed (or it expired, or it was used already)"
	}
	claims, jti, expires, err := s.auth.verifyLogin(t, now)
	if err != nil {
		return Claims{}, err.Error()
	}
	if _, used := s.used[jti]; used {
		return Claims{}, "a login token used already (each opens one session)"
	}
	s.used[jti] = expires
	return claims, ""
}

// forgetExpired drops what can no longer be used: expired nonces, sessions, and the used
// tokens that would be refused as expired anyway.
func (s *Sessions) forgetExpired(now time.Time) {
	for k, exp := range s.nonces {
		if !now.Before(exp) {
			delete(s.nonces, k)
		}
	}
	for k, exp := range s.used {
		if !now.Before(exp) {
			delete(s.used, k)
		}
	}
	for k, v := range s.sessions {
		if !now.Before(v.expires) {
			delete(s.sessions, k)
		}
	}
}

// claimsOf returns the claims of the request's session cookie, if it names a live session.
func (s *Sessions) claimsOf(r *http.Request) (Claims, bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return Claims{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.sessions[c.Value]
	if !ok || !s.Now().Before(v.expires) {
		return Claims{}, false
	}
	return v.claims, true
}

// errLoginToken: a login link's t is neither a nonce of this server nor a valid login token.
var errLoginToken = errclass.New(errclass.Input, "serve: not a valid login token")

// verifyLogin checks a signed login token: the server's algorithm and key, aud LoginAudience,
// a jti, and an exp no further than MaxLoginTTL from now.
func (a *Auth) verifyLogin(token string, now time.Time) (Claims, string, time.Time, error) {
	claims := jwt.RegisteredClaims{}
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.key, nil },
		jwt.WithValidMethods([]string{a.method}), jwt.WithExpirationRequired(), jwt.WithAudience(LoginAudience),
		jwt.WithTimeFunc(func() time.Time { return now }))
	switch {
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return Claims{}, "", time.Time{}, fmt.Errorf("%w: neither a nonce this server printed nor a login token (aud %s)", errLoginToken, LoginAudience)
	case err != nil:
		return Claims{}, "", time.Time{}, fmt.Errorf("%w: %s", errLoginToken, RefusalReason(err))
	case claims.ID == "":
		return Claims{}, "", time.Time{}, fmt.Errorf("%w: it has no jti, which makes it single-use", errLoginToken)
	case claims.ExpiresAt.Sub(now) > MaxLoginTTL:
		return Claims{}, "", time.Time{}, fmt.Errorf("%w: it is valid for more than %s", errLoginToken, MaxLoginTTL)
	}
	return Claims{Subject: claims.Subject}, claims.ID, claims.ExpiresAt.Time, nil
}

// isLoginToken reports whether verified claims are a login token's, which is no bearer token.
func isLoginToken(aud jwt.ClaimStrings) bool { return slices.Contains(aud, LoginAudience) }

// SignLogin returns a login token for subject, issued at now and valid for ttl (at most
// MaxLoginTTL): aud LoginAudience and a random jti, so that the server opens one session
// with it, once. serve token --url prints it as a link, BASE/login?t=TOKEN.
func (s *TokenSigner) SignLogin(subject string, now time.Time, ttl time.Duration) (string, error) {
	if ttl <= 0 || ttl > MaxLoginTTL {
		return "", fmt.Errorf("%w: a login link's lifetime must be positive and at most %s, got %s", ErrAuthConfig, MaxLoginTTL, ttl)
	}
	claims := tokenClaims(subject, now, ttl)
	claims.Audience, claims.ID = jwt.ClaimStrings{LoginAudience}, randomText(16)
	return s.sign(claims)
}
