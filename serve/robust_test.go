package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// apiServer serves the API with cfg's Open and StoreWait (the rest as testServer's), writing
// its log lines to logf.
func apiServer(t *testing.T, cfg EvalConfig, logf Logf) *httptest.Server {
	t.Helper()
	th, _ := evalmetric.ParseThresholds(nil)
	cfg.Agent, cfg.Catalogue, cfg.Thresholds, cfg.Parallel = evalruntest.NewPressureAgent(""), evalfmt.Builtin(), th, 2
	cfg.Recorder = store.RecorderInfo{Name: "oasis-replay", Version: "test", Source: "api"}
	cfg.SpoolDir, cfg.MaxBody = t.TempDir(), 4096
	ctx, cancel := context.WithCancel(context.Background())
	api := NewEvalAPI(ctx, cfg)
	auth, err := NewHS256Auth(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	api.Routes(mux)
	srv := httptest.NewServer(WithLog(auth.Require(mux), logf))
	t.Cleanup(func() { srv.Close(); cancel(); api.Wait() })
	return srv
}

// diskOpener opens the store in dir as serve api does: without waiting for another holder.
func diskOpener(dir string) Opener {
	return func(ctx context.Context, write bool) (store.Store, func() error, error) {
		s, err := badgerstore.OpenContext(ctx, dir, badgerstore.Options{ReadOnly: !write})
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
}

// A write waiting for a store another process holds holds up no other request: a read is
// served meanwhile, the write gets the store once the holder lets go, and a write that does
// not get it within StoreWait is a 503 with Retry-After (issue 23, item 4).
func TestStoreWaitHoldsNoOtherRequest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	const wait = 2 * time.Second
	srv := apiServer(t, EvalConfig{Open: diskOpener(dir), StoreWait: wait}, t.Logf)
	cl := &client{t: t, srv: srv, tok: validToken(t), c: newContract(t)}
	// Another process reads the store: it holds the shared lock, which a writer waits for and
	// readers share. (A second open in this process takes its own lock, as another process's.)
	hold := func(readOnly bool) *badgerstore.Store {
		h, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: readOnly})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	holder := hold(true)
	posted := make(chan response, 1)
	start := time.Now()
	go func() { posted <- call(t, srv, http.MethodPost, "/api/v1/eval/scenarios", cl.tok, scenarioBody) }()
	time.Sleep(200 * time.Millisecond)
	readStart := time.Now()
	cl.must(http.MethodGet, "/api/v1/eval/scenarios", "", http.StatusOK, nil)
	if took := time.Since(readStart); took > time.Second {
		t.Errorf("a read waited %s behind a write waiting for the store", took)
	}
	select {
	case r := <-posted:
		t.Fatalf("the write did not wait for the store: %d %s after %s", r.status, r.body, time.Since(start))
	default:
	}
	time.Sleep(200 * time.Millisecond)
	holder.Close()
	r := <-posted
	cl.c.check(t, http.MethodPost, "/api/v1/eval/scenarios", r)
	if r.status != http.StatusCreated {
		t.Fatalf("the write, once the holder let go: %d %s", r.status, r.body)
	}

	// A holder that does not let go in time: 503, store_busy, Retry-After.
	holder = hold(true)
	defer holder.Close()
	start = time.Now()
	r = cl.do(http.MethodPost, "/api/v1/eval/scenarios", strings.Replace(scenarioBody, `"deploy"`, `"deploy-2"`, 1))
	took := time.Since(start)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") != fmt.Sprint(StoreRetryAfter) ||
		!strings.Contains(string(r.body), `"code":"store_busy"`) || took < wait {
		t.Errorf("a write the store was not free for: %d Retry-After %q after %s: %s", r.status, r.header.Get("Retry-After"), took, r.body)
	}
	cl.must(http.MethodGet, "/api/v1/eval/scenarios", "", http.StatusOK, nil)
}

// Every handler's 500 carries an error id and a generic message, never the internal error's
// text, which the server's log has under that id (issue 23, item 5). The store's close fails
// here, after each handler did its work.
func TestInternalErrorsCarryAnID(t *testing.T) {
	st := memoryStore(t)
	var failing atomic.Bool
	const secret = "close /var/lib/oasis/internal-detail: input/output error"
	var (
		mu    sync.Mutex
		lines []string
	)
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(format, args...))
	}
	srv := apiServer(t, EvalConfig{Open: func(context.Context, bool) (store.Store, func() error, error) {
		return st, func() error {
			if failing.Load() {
				return errors.New(secret)
			}
			return nil
		}, nil
	}}, logf)
	cl := &client{t: t, srv: srv, tok: validToken(t), c: newContract(t)}
	cl.must(http.MethodPost, "/api/v1/eval/scenarios", scenarioBody, http.StatusCreated, nil)
	cl.must(http.MethodPost, "/api/v1/eval/matrix", `{"variation_types": ["authority_bias"], "runs": 1}`, http.StatusAccepted, nil)
	if job := waitJob(t, srv, cl.tok, "/api/v1/eval/matrix/job-1"); job.Status != JobDone {
		t.Fatalf("job = %+v", job)
	}
	var queue struct {
		Items []struct {
			Item string `json:"item"`
		} `json:"items"`
	}
	cl.must(http.MethodGet, "/api/v1/eval/review", "", http.StatusOK, &queue)
	if len(queue.Items) != 1 {
		t.Fatalf("review queue %+v", queue)
	}
	failing.Store(true)
	idPattern := regexp.MustCompile(`"id":"(err-[0-9a-f]{16})"`)
	seen := map[string]bool{}
	for _, tt := range []struct{ method, path, body string }{
		{http.MethodPost, "/api/v1/eval/scenarios", strings.Replace(scenarioBody, `"deploy"`, `"deploy-2"`, 1)},
		{http.MethodGet, "/api/v1/eval/scenarios", ""},
		{http.MethodPost, "/api/v1/eval/scenarios/auto-generate", `{}`},
		{http.MethodGet, "/api/v1/eval/runs", ""},
		{http.MethodPost, "/api/v1/eval/matrix", `{"variation_types": ["sycophancy"]}`},
		{http.MethodGet, "/api/v1/eval/summary", ""},
		{http.MethodGet, "/api/v1/eval/review", ""},
		{http.MethodPost, "/api/v1/eval/review/" + queue.Items[0].Item, `{"state": "acknowledged", "note": "seen"}`},
		{http.MethodGet, "/eval/report", ""},
		{http.MethodGet, "/eval/review", ""},
	} {
		r := cl.do(tt.method, tt.path, tt.body)
		m := idPattern.FindSubmatch(r.body)
		if r.status != http.StatusInternalServerError || m == nil || !strings.Contains(string(r.body), InternalMessage) ||
			strings.Contains(string(r.body), "internal-detail") {
			t.Errorf("%s %s: %d %s, want a 500 with an error id and the generic message only", tt.method, tt.path, r.status, r.body)
			continue
		}
		id := string(m[1])
		if seen[id] {
			t.Errorf("%s %s: error id %s was given before", tt.method, tt.path, id)
		}
		seen[id] = true
		mu.Lock()
		logged := strings.Join(lines, "\n")
		mu.Unlock()
		if !strings.Contains(logged, "error "+id+": "+tt.method+" "+tt.path+": ") || !strings.Contains(logged, secret) {
			t.Errorf("%s %s: the log does not hold error %s with its text:\n%s", tt.method, tt.path, id, logged)
		}
	}

	// A store that cannot be opened (not held by another process: damaged, missing) is a 503
	// that says as little, with an id.
	const why = "open /var/lib/oasis/store/MANIFEST: permission denied"
	srv = apiServer(t, EvalConfig{Open: func(context.Context, bool) (store.Store, func() error, error) {
		return nil, nil, errors.New(why)
	}}, logf)
	cl = &client{t: t, srv: srv, tok: validToken(t), c: cl.c}
	r := cl.do(http.MethodGet, "/api/v1/eval/scenarios", "")
	m := idPattern.FindSubmatch(r.body)
	mu.Lock()
	logged := strings.Join(lines, "\n")
	mu.Unlock()
	if r.status != http.StatusServiceUnavailable || m == nil || strings.Contains(string(r.body), "MANIFEST") ||
		!strings.Contains(logged, "error "+string(m[1])+": open the store: "+why) {
		t.Errorf("a store that cannot be opened: %d %s\nlog:\n%s", r.status, r.body, logged)
	}
}
