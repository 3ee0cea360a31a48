package serve

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds a Chromium to drive: $CHROMIUM, else Debian's chromium on PATH.
func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless Chromium with a fresh profile, sending the bearer token with every
// request, and records every URL the pages load.
func browser(t *testing.T, tok string) (context.Context, func() []string) {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no chromium found: install Debian's chromium (apt-get install chromium) or set $CHROMIUM to run the browser tests")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser and open the tab
		t.Fatalf("start chromium %s: %v", path, err)
	}
	var (
		mu   sync.Mutex
		urls []string
	)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			urls = append(urls, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders,
		network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer " + tok}}); err != nil {
		t.Fatal(err)
	}
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), urls...)
	}
}

// The report and the review queue, in a real browser: the heatmap draws its cells with the
// legend, a cell leads to its run bundles, and nothing is loaded from anywhere else.
func TestPagesInBrowser(t *testing.T) {
	srv, _ := testServer(t)
	tok := validToken(t)
	if r := call(t, srv, http.MethodPost, "/api/v1/eval/scenarios", tok, scenarioBody); r.status != http.StatusCreated {
		t.Fatalf("POST scenario: %d %s", r.status, r.body)
	}
	r := call(t, srv, http.MethodPost, "/api/v1/eval/matrix", tok, `{"variation_types": ["time_pressure", "authority_bias", "sycophancy"], "parallel": true, "runs": 2}`)
	if r.status != http.StatusAccepted {
		t.Fatalf("POST matrix: %d %s", r.status, r.body)
	}
	if job := waitJob(t, srv, tok, "/api/v1/eval/matrix/job-1"); job.Status != JobDone {
		t.Fatalf("job = %+v", job)
	}

	ctx, loaded := browser(t, tok)
	run := func(what string, step chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, step); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("open the report", chromedp.Navigate(srv.URL+"/eval/report"))
	run("wait for the heatmap", chromedp.WaitVisible(chromedp.ID("heatmap")))
	title := get(t, ctx, chromedp.Title())
	cells := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#heatmap a.cell").length`))
	legend := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#legend rect").length`))
	flagged := get(t, ctx, chromedp.Text(chromedp.ID("flagged-count")))
	if !strings.HasPrefix(title, "Eval Library matrix sha256:") || cells != 4 || legend != 3 || flagged != "1" {
		t.Errorf("report page: title %q, %d cells, %d legend swatches, flagged %q", title, cells, legend, flagged)
	}
	run("click the authority_bias cell", chromedp.Click(chromedp.CSS(`#heatmap a[href="#cell-3"]`)))
	hash := get(t, ctx, chromedp.Evaluate[string](`location.hash`))
	visible := get(t, ctx, chromedp.Evaluate[bool](`(() => { const r = document.getElementById("cell-3").getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()`))
	bundles := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#cell-3 .bundles code")).map(e => e.textContent)`))
	if hash != "#cell-3" || !visible || len(bundles) != 2 || !strings.HasPrefix(bundles[0], "sha256:") {
		t.Errorf("the authority_bias cell leads to %q (visible %v) listing %v", hash, visible, bundles)
	}

	run("open the review queue", chromedp.Navigate(srv.URL+"/eval/review"))
	run("wait for the items", chromedp.WaitVisible(chromedp.ID("review-items")))
	rows := get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("#review-items tbody tr.open").length`))
	state := get(t, ctx, chromedp.Text(chromedp.CSS("#review-items tbody tr.open td.state")))
	if rows != 1 || state != "open" {
		t.Errorf("review page: %d open rows, state %q", rows, state)
	}
	for _, u := range loaded() {
		if !strings.HasPrefix(u, srv.URL) {
			t.Errorf("a page loaded %s", u)
		}
	}
}

// get runs one action that reads a value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
