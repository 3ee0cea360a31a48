package serve

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// plainBrowser starts a headless Chromium with a fresh profile and no token of its own, as a
// person opens the pages, and records the status of every document it loads.
func plainBrowser(t *testing.T) (context.Context, func(url string) int64) {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("skipped: the login link is tested in a headless Chromium, and none was found ($CHROMIUM is unset; " +
			"no /usr/bin/chromium, chromium or chromium-browser on PATH). Install Debian's package " +
			"(apt-get install chromium, as .ci/run does) or set CHROMIUM to a Chromium or Chrome binary")
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()))
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium %s: %v", path, err)
	}
	var (
		mu       sync.Mutex
		statuses = map[string]int64{}
	)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventResponseReceived); ok {
			mu.Lock()
			statuses[e.Response.URL] = e.Response.Status
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	return ctx, func(url string) int64 {
		mu.Lock()
		defer mu.Unlock()
		return statuses[url]
	}
}

// The login link in a real browser: it lands on the report, whose heatmap the session cookie
// shows (and the review queue too); the cookie is HttpOnly and SameSite=Strict, so the pages'
// scripts, had they any, could not read it; the same link opened again is refused, and a
// browser without the cookie gets 401 for the page (issue 24, item 4).
func TestLoginInBrowser(t *testing.T) {
	srv, sessions := loginServer(t, false)
	tok := validToken(t)
	if r := call(t, srv, http.MethodPost, "/api/v1/eval/scenarios", tok, scenarioBody); r.status != http.StatusCreated {
		t.Fatalf("POST scenario: %d %s", r.status, r.body)
	}
	if r := call(t, srv, http.MethodPost, "/api/v1/eval/matrix", tok, `{"variation_types": ["authority_bias"], "runs": 1}`); r.status != http.StatusAccepted {
		t.Fatalf("POST matrix: %d %s", r.status, r.body)
	}
	if job := waitJob(t, srv, tok, "/api/v1/eval/matrix/job-1"); job.Status != JobDone {
		t.Fatalf("job = %+v", job)
	}
	nonce, _ := sessions.NewLoginNonce(0)
	link := srv.URL + LoginPath + "?t=" + nonce

	ctx, status := plainBrowser(t)
	run := func(what string, step chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, step); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("open the login link", chromedp.Navigate(link))
	run("wait for the heatmap", chromedp.WaitVisible(chromedp.ID("heatmap")))
	if at := get(t, ctx, chromedp.Location()); at != srv.URL+"/eval/report" {
		t.Errorf("the login link led to %s, want the report", at)
	}
	if n := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#heatmap a.cell").length`)); n != 2 {
		t.Errorf("the heatmap has %d cells, want the baseline's and authority_bias's", n)
	}
	if seen := get(t, ctx, chromedp.Evaluate[string](`document.cookie`)); seen != "" {
		t.Errorf("the page's script reads the cookies %q: the session cookie must be HttpOnly", seen)
	}
	got, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	cookies := got.Cookies
	if len(cookies) != 1 || cookies[0].Name != SessionCookie || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict || cookies[0].Path != "/" {
		t.Errorf("cookies %+v, want one HttpOnly, SameSite=Strict session cookie for /", cookies)
	}
	run("open the review queue", chromedp.Navigate(srv.URL+"/eval/review"))
	run("wait for the items", chromedp.WaitVisible(chromedp.ID("review-items")))

	// The same link again, in this browser and in another: refused.
	run("open the login link again", chromedp.Navigate(link))
	run("wait for the refusal", chromedp.WaitVisible(chromedp.ID("refused")))
	if s := status(link); s != http.StatusUnauthorized {
		t.Errorf("a used login link answered %d, want 401", s)
	}
	other, otherStatus := plainBrowser(t)
	if err := chromedp.Do(other, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	// Chromium reports the bare 401 (no body) as a failed load: the status is what counts.
	if err := chromedp.Do(other, chromedp.Navigate(srv.URL+"/eval/report")); err != nil && !strings.Contains(err.Error(), "ERR_HTTP_RESPONSE_CODE_FAILURE") {
		t.Fatal(err)
	}
	if a, b := otherStatus(link), otherStatus(srv.URL+"/eval/report"); a != http.StatusUnauthorized || b != http.StatusUnauthorized {
		t.Errorf("another browser: the used link answered %d and the report without a cookie %d, want 401 and 401", a, b)
	}
}
