package main

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/serve"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

const serveTestSecret = "0123456789abcdef0123456789abcdef\n"

const serveTestScenario = `{"id": "deploy", "name": "Escalate", "description": "Escalate a failed deployment",
 "risk_level": "critical", "input_context": {"event": "deployment_failed"}, "expected_behavior": {"action": "escalate_to_owner"}}`

// apiProcess is a serve api process of the test, and the lines of its stderr so far.
type apiProcess struct {
	base  string
	token string
	mu    sync.Mutex
	lines []string
}

func (p *apiProcess) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// startServeAPI starts oasis-replay serve api on storeDir as a process of its own, with
// global flags first, and stops it with SIGINT when the test ends.
func startServeAPI(t *testing.T, storeDir string, global ...string) *apiProcess {
	t.Helper()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(serveTestSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	args := append(append([]string{"--store", storeDir}, global...), "serve", "api", "--listen", addr, "--jwt-secret-file", secret)
	cmd := exec.Command("oasis-replay", args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &apiProcess{base: "http://" + addr}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		<-done
		cmd.Wait()
	})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve api did not listen within a minute:\n%s", p.stderr())
		}
	}
	status, stdout, stderr := program(t, storeDir, "serve", "token", "--jwt-secret-file", secret, "--sub", "ana")
	if status != exitOK {
		t.Fatalf("serve token: exit %d\n%s", status, stderr)
	}
	p.token = strings.TrimSpace(stdout)
	return p
}

type apiAnswer struct {
	status int
	header http.Header
	body   string
	took   time.Duration
}

// do sends one request (a bearer token when tok is set, a cookie when cookie is) and does not
// follow redirects.
func (p *apiProcess) do(t *testing.T, method, path, tok string, cookie *http.Cookie, body string) apiAnswer {
	t.Helper()
	req, err := http.NewRequest(method, p.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	client := &http.Client{Timeout: time.Minute, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return apiAnswer{}
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	return apiAnswer{resp.StatusCode, resp.Header, b.String(), time.Since(start)}
}

// A write request waiting for a store another process holds holds up no other request of
// serve api: a read is served at once meanwhile; the write gives up after --lock-wait with a
// 503 store_busy and Retry-After, and succeeds once the holder has let go (issue 23, item 4).
func TestServeAPIStoreWait(t *testing.T) {
	st := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(st, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	p := startServeAPI(t, st, "--lock-wait", "3s")
	holder, err := badgerstore.Open(st, badgerstore.Options{ReadOnly: true}) // another process reading
	if err != nil {
		t.Fatal(err)
	}
	posted := make(chan apiAnswer, 1)
	go func() { posted <- p.do(t, http.MethodPost, "/api/v1/eval/scenarios", p.token, nil, serveTestScenario) }()
	time.Sleep(300 * time.Millisecond)
	read := p.do(t, http.MethodGet, "/api/v1/eval/scenarios", p.token, nil, "")
	if read.status != http.StatusOK || read.took > 1500*time.Millisecond {
		t.Errorf("a read while a write waits for the store: %d after %s, want 200 at once: %s", read.status, read.took, read.body)
	}
	t.Logf("a read while a write waited for the store: %d after %s", read.status, read.took)
	w := <-posted
	t.Logf("the write: %d after %s", w.status, w.took)
	if w.status != http.StatusServiceUnavailable || w.header.Get("Retry-After") != strconv.Itoa(serve.StoreRetryAfter) ||
		!strings.Contains(w.body, `"code":"store_busy"`) {
		t.Errorf("a write the store was not free for: %d, Retry-After %q: %s", w.status, w.header.Get("Retry-After"), w.body)
	}
	holder.Close()
	if w := p.do(t, http.MethodPost, "/api/v1/eval/scenarios", p.token, nil, serveTestScenario); w.status != http.StatusCreated {
		t.Errorf("the write once the store is free: %d %s", w.status, w.body)
	}
}

var loginLinkLine = regexp.MustCompile(`open the pages in a browser with this link \(once, within 10m0s\): (http://\S+/login\?t=\S+)$`)

// serve api prints a one-time login link; serve token --url makes one too. Each sets the
// session cookie and leads to the report once; the cookie opens the pages, and a used link is
// refused (issue 24, item 4). The browser test (serve/login_browser_test.go) follows the same
// flow in Chromium.
func TestServeAPILogin(t *testing.T) {
	st := filepath.Join(t.TempDir(), "store")
	s, err := badgerstore.Open(st, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	p := startServeAPI(t, st)
	var printed string
	for _, line := range strings.Split(p.stderr(), "\n") {
		if m := loginLinkLine.FindStringSubmatch(line); m != nil {
			printed = m[1]
		}
	}
	if printed == "" || !strings.HasPrefix(printed, p.base+"/login?t=") {
		t.Fatalf("serve api printed no login link for %s:\n%s", p.base, p.stderr())
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(serveTestSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := program(t, st, "serve", "token", "--jwt-secret-file", secret, "--url", p.base+"/")
	minted := strings.TrimSpace(stdout)
	if status != exitOK || !strings.HasPrefix(minted, p.base+"/login?t=") {
		t.Fatalf("serve token --url: exit %d: %s%s", status, stdout, stderr)
	}
	for _, link := range []string{printed, minted} {
		path := strings.TrimPrefix(link, p.base)
		r := p.do(t, http.MethodGet, path, "", nil, "")
		var cookie *http.Cookie
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == serve.SessionCookie {
				cookie = c
			}
		}
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/eval/report" || cookie == nil || !cookie.HttpOnly ||
			cookie.SameSite != http.SameSiteStrictMode {
			t.Fatalf("login with %s: %d to %q, cookie %v", link, r.status, r.header.Get("Location"), cookie)
		}
		if r := p.do(t, http.MethodGet, "/eval/review", "", cookie, ""); r.status != http.StatusOK {
			t.Errorf("the review page with the session cookie: %d", r.status)
		}
		if r := p.do(t, http.MethodGet, path, "", nil, ""); r.status != http.StatusUnauthorized {
			t.Errorf("a used login link: %d, want 401", r.status)
		}
	}
	if r := p.do(t, http.MethodGet, "/eval/review", "", nil, ""); r.status != http.StatusUnauthorized {
		t.Errorf("the review page without a cookie: %d, want 401", r.status)
	}
	if status, _, stderr := program(t, st, "serve", "token", "--jwt-secret-file", secret, "--url", p.base, "--ttl", "2h"); status != exitError ||
		!strings.Contains(stderr, "a login link is valid for at most 1h0m0s") {
		t.Errorf("serve token --url --ttl 2h: exit %d: %s", status, stderr)
	}
	if !strings.Contains(p.stderr(), "refused GET /login from 127.0.0.1:") {
		t.Errorf("the server's log does not say why a login link was refused:\n%s", p.stderr())
	}
}
