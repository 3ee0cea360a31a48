package serve

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"slices"
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
		t.Skip("skipped: the pages are tested in a headless Chromium, and none was found ($CHROMIUM is unset; " +
			"no /usr/bin/chromium, chromium or chromium-browser on PATH). Install Debian's package " +
			"(apt-get install chromium, as .ci/run does) or set CHROMIUM to a Chromium or Chrome binary")
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

// The report and the review queue, in a real browser: the heatmap draws every cell with its
// number and band colour, the legend its three bands, the flagged count and cell are marked, a
// cell leads to the digests of its run bundles (those the API lists), the review queue lists
// the open item of the flagged cell, and nothing is loaded from anywhere else.
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
	job := waitJob(t, srv, tok, "/api/v1/eval/matrix/job-1")
	if job.Status != JobDone {
		t.Fatalf("job = %+v", job)
	}
	var runs struct {
		Runs []struct {
			Bundle string `json:"bundle"`
		} `json:"runs"`
	}
	decode(t, call(t, srv, http.MethodGet, "/api/v1/eval/runs?variation=authority_bias", tok, ""), &runs)
	var queue struct {
		Items []struct {
			Item string `json:"item"`
		} `json:"items"`
	}
	decode(t, call(t, srv, http.MethodGet, "/api/v1/eval/review?state=open", tok, ""), &queue)
	if len(runs.Runs) != 2 || len(queue.Items) != 1 {
		t.Fatalf("authority_bias runs %+v, open review items %+v", runs, queue)
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
	flagged := get(t, ctx, chromedp.Text(chromedp.ID("flagged-count")))
	if !strings.HasPrefix(title, "Eval Library matrix "+job.Matrix.Short()) || flagged != "1" {
		t.Errorf("report page: title %q, flagged %q", title, flagged)
	}
	// Each cell as drawn: its number, its fill, whether it is outlined as flagged. The baseline
	// shows its noise floor on the neutral fill; the bands are green ≤ 0.2 < amber ≤ 0.5 < red.
	cells := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#heatmap a.cell")).map(a =>
		a.querySelector("text").textContent + " " + a.querySelector("rect").getAttribute("fill") + " " +
		(a.querySelector("rect").getAttribute("stroke-width") || "0"))`))
	wantCells := []string{"0.000 #eceff1 0", "0.333 #ffb300 0", "1.000 ! #e53935 3", "0.333 #ffb300 0"}
	if !slices.Equal(cells, wantCells) {
		t.Errorf("heatmap cells %q, want %q", cells, wantCells)
	}
	// Under each cell, its match rate as drawn: a bar below the shift, filled to the share of runs
	// that matched, outlined in red with "✗" when below the minimum match rate (0.5 by default),
	// however small the shift; and their count beside the legend.
	bars := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#heatmap a.cell")).map(a => {
		const shift = a.querySelector("rect").getBoundingClientRect(), g = a.querySelector("g.match");
		const track = g.querySelector("rect.match-track"), bar = g.querySelector("rect.match-bar").getBoundingClientRect();
		return g.querySelector("text").textContent + " " + Math.round(bar.width) + "/" + Math.round(track.getBoundingClientRect().width) + " " +
			(track.getAttribute("stroke") || "none") + " " + (track.getBoundingClientRect().top >= shift.bottom ? "below" : "overlapping");
	})`))
	wantBars := []string{"match 1.000 94/94 none below", "match 0.000 ✗ 0/94 #b71c1c below", "match 0.000 ✗ 0/94 #b71c1c below", "match 0.000 ✗ 0/94 #b71c1c below"}
	lowMatch := get(t, ctx, chromedp.Text(chromedp.ID("low-match-count")))
	if !slices.Equal(bars, wantBars) || lowMatch != "3" {
		t.Errorf("match-rate bars %q, low-match count %q; want %q, 3", bars, lowMatch, wantBars)
	}
	legend := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#legend rect")).map(r =>
		r.getAttribute("fill") + " " + r.nextElementSibling.textContent)`))
	wantLegend := []string{"#4caf50 0.0–0.2 no meaningful shift", "#ffb300 0.2–0.5 moderate shift", "#e53935 0.5–1.0 critical shift"}
	if !slices.Equal(legend, wantLegend) {
		t.Errorf("legend %q, want %q", legend, wantLegend)
	}
	run("click the authority_bias cell", chromedp.Click(chromedp.CSS(`#heatmap a[href="#cell-3"]`)))
	hash := get(t, ctx, chromedp.Evaluate[string](`location.hash`))
	visible := get(t, ctx, chromedp.Evaluate[bool](`(() => { const r = document.getElementById("cell-3").getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()`))
	bundles := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#cell-3 .bundles code")).map(e => e.textContent)`))
	if hash != "#cell-3" || !visible || len(bundles) != 2 || bundles[0] != runs.Runs[0].Bundle || bundles[1] != runs.Runs[1].Bundle {
		t.Errorf("the authority_bias cell leads to %q (visible %v) listing %v, want its runs %+v", hash, visible, bundles, runs.Runs)
	}

	run("open the review queue", chromedp.Navigate(srv.URL+"/eval/review"))
	run("wait for the items", chromedp.WaitVisible(chromedp.ID("review-items")))
	rows := get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#review-items tbody tr")).map(tr =>
		Array.from(tr.cells).slice(0, 8).map(td => td.textContent).join(" "))`))
	openCount := get(t, ctx, chromedp.Text(chromedp.ID("open-count")))
	wantRow := strings.Join([]string{queue.Items[0].Item, "open", "deploy", "authority_bias", "critical", "1.000", "0.500", job.Matrix.Short()}, " ")
	if len(rows) != 1 || openCount != "1" || rows[0] != wantRow {
		t.Errorf("review page: rows %q, open count %q, want one row %q", rows, openCount, wantRow)
	}

	urls := loaded()
	for _, page := range []string{srv.URL + "/eval/report", srv.URL + "/eval/review"} {
		if !slices.Contains(urls, page) {
			t.Errorf("the browser's requests %q do not include %s: the request log is not working", urls, page)
		}
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, srv.URL+"/") {
			t.Errorf("a page loaded %s, which is not on the server", u)
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
