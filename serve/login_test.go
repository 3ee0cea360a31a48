package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/store"
)

// loginServer serves the API and its pages as serve api does: /login open, the rest behind
// bearer tokens or a browser session's cookie.
func loginServer(t *testing.T, tls bool) (*httptest.Server, *Sessions) {
	t.Helper()
	st := memoryStore(t)
	th, _ := evalmetric.ParseThresholds(nil)
	ctx, cancel := context.WithCancel(context.Background())
	api := NewEvalAPI(ctx, EvalConfig{
		Open: func(context.Context, bool) (store.Store, func() error, error) {
			return st, func() error { return nil }, nil
		},
		Agent:     evalruntest.NewPressureAgent(""),
		Catalogue: evalfmt.Builtin(), Thresholds: th, Parallel: 2,
		Recorder: store.RecorderInfo{Name: "oasis-replay", Version: "test", Source: "api"},
		SpoolDir: t.TempDir(), MaxBody: 4096,
	})
	auth, err := NewHS256Auth(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	auth.Refused = func(r *http.Request, reason string) {
		t.Logf("refused %s %s?%.12s: %s", r.Method, r.URL.Path, r.URL.RawQuery, reason)
	}
	sessions := NewSessions(auth)
	mux := http.NewServeMux()
	api.Routes(mux)
	handler := WithLog(sessions.Mount(auth.Require(mux)), t.Logf)
	srv := httptest.NewUnstartedServer(handler)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(func() { srv.Close(); cancel(); api.Wait() })
	return srv, sessions
}

// noRedirects is the server's client, which stops at the first answer.
func noRedirects(srv *httptest.Server) *http.Client {
	c := *srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func fetchWith(t *testing.T, c *http.Client, u string, cookie *http.Cookie, method string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(scenarioBody))
	if err != nil {
		t.Fatal(err)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// A login link (a nonce the server printed, or a login token serve token --url signs) opens
// one session, once: the cookie is HttpOnly, SameSite=Strict, Path=/ (and Secure over TLS),
// lets GET requests through and no request that changes anything; a login token is no bearer
// token, and a bearer token, an expired nonce or a long-lived login token opens nothing
// (issue 24, item 4).
func TestLoginLink(t *testing.T) {
	for _, tls := range []bool{false, true} {
		srv, sessions := loginServer(t, tls)
		c := noRedirects(srv)
		signer, err := NewHS256Signer(testSecret)
		if err != nil {
			t.Fatal(err)
		}
		loginToken, err := signer.SignLogin("ana", time.Now(), 10*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		nonce, _ := sessions.NewLoginNonce(0)
		for _, link := range []string{nonce, loginToken} {
			u := srv.URL + LoginPath + "?t=" + url.QueryEscape(link)
			resp := fetchWith(t, c, u, nil, http.MethodGet)
			var cookie *http.Cookie
			for _, ck := range resp.Cookies() {
				if ck.Name == SessionCookie {
					cookie = ck
				}
			}
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/eval/report" || cookie == nil {
				t.Fatalf("tls %v: login: %d to %q, cookie %v", tls, resp.StatusCode, resp.Header.Get("Location"), cookie)
			}
			if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.Secure != tls || cookie.MaxAge <= 0 {
				t.Errorf("tls %v: the session cookie is %s", tls, cookie.String())
			}
			if again := fetchWith(t, c, u, nil, http.MethodGet); again.StatusCode != http.StatusUnauthorized {
				t.Errorf("tls %v: a used link answered %d", tls, again.StatusCode)
			}
			for _, tt := range []struct {
				method, path string
				cookie       *http.Cookie
				want         int
			}{
				{http.MethodGet, "/eval/review", cookie, http.StatusOK},
				{http.MethodGet, "/api/v1/eval/scenarios", cookie, http.StatusOK},
				{http.MethodPost, "/api/v1/eval/scenarios", cookie, http.StatusUnauthorized},
				{http.MethodGet, "/eval/review", nil, http.StatusUnauthorized},
				{http.MethodGet, "/eval/review", &http.Cookie{Name: SessionCookie, Value: "made-up"}, http.StatusUnauthorized},
			} {
				if r := fetchWith(t, c, srv.URL+tt.path, tt.cookie, tt.method); r.StatusCode != tt.want {
					t.Errorf("tls %v: %s %s with cookie %v: %d, want %d", tls, tt.method, tt.path, tt.cookie != nil, r.StatusCode, tt.want)
				}
			}
		}

		// What opens no session.
		other, _ := signer.SignLogin("ana", time.Now(), 10*time.Minute)
		if r := call(t, srv, http.MethodGet, "/eval/review", other, ""); r.status != http.StatusUnauthorized {
			t.Errorf("a login token as a bearer token: %d", r.status)
		}
		longLived := token(t, jwt.MapClaims{"aud": LoginAudience, "jti": "1", "exp": time.Now().Add(2 * time.Hour).Unix()})
		noJTI := token(t, jwt.MapClaims{"aud": LoginAudience, "exp": time.Now().Add(10 * time.Minute).Unix()})
		expiredNonce, _ := sessions.NewLoginNonce(time.Minute)
		sessions.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
		for name, link := range map[string]string{"a bearer token": validToken(t), "a login token valid for 2h": longLived,
			"a login token without jti": noJTI, "an expired nonce": expiredNonce, "a made-up nonce": "abc", "nothing": ""} {
			if r := fetchWith(t, c, srv.URL+LoginPath+"?t="+url.QueryEscape(link), nil, http.MethodGet); r.StatusCode != http.StatusUnauthorized ||
				len(r.Cookies()) != 0 {
				t.Errorf("tls %v: %s as a login link: %d, cookies %v", tls, name, r.StatusCode, r.Cookies())
			}
		}
		sessions.Now = time.Now
	}
}
