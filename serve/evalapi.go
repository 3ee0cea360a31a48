package serve

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// Opener opens the store for the time of one request (write says whether it will write); the
// returned function closes it. The server never holds the store between requests, so other
// commands can use it. An Opener does not wait for a store another process holds: it fails at
// once with an error of class errclass.InUse, and the API tries again without holding up
// other requests (EvalConfig.StoreWait).
type Opener func(ctx context.Context, write bool) (store.Store, func() error, error)

// EvalConfig configures the Eval Library API.
type EvalConfig struct {
	Open Opener
	// Agent runs the matrices POSTed to the API; nil refuses them.
	Agent      evalrun.Agent
	Limits     evalrun.Limits
	Catalogue  *evalfmt.Catalogue
	Thresholds evalmetric.Thresholds
	// Parallel is the number of runs at once of a matrix asking for "parallel": true; Runs
	// the runs per cell when a request does not say.
	Parallel int
	Runs     int
	Recorder store.RecorderInfo
	SpoolDir string
	// MaxBody bounds request bodies; zero means DefaultMaxBody.
	MaxBody int64
	// StoreWait bounds how long a request waits for a store another process holds before it
	// is answered 503 with Retry-After: StoreRetryAfter (zero: no wait). serve api uses
	// --lock-wait, as every command does.
	StoreWait time.Duration
}

// StoreRetryAfter is the Retry-After (seconds) of a 503 answered because another process held
// the store for longer than StoreWait: long enough for another command's short write.
const StoreRetryAfter = 5

// EvalAPI serves the Eval Library's endpoints (the description's API reference) and its pages.
type EvalAPI struct {
	cfg EvalConfig
	// storeMu lets one request (or one sealing batch) at a time open the store in this process:
	// the store admits one writer. It is held while the store is open, never while waiting for it.
	storeMu sync.Mutex
	jobs    *jobs
}

// NewEvalAPI returns the API. Close stops its background matrices (their finished runs are
// kept).
func NewEvalAPI(ctx context.Context, cfg EvalConfig) *EvalAPI {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.Runs < 1 {
		cfg.Runs = 1
	}
	a := &EvalAPI{cfg: cfg}
	a.jobs = newJobs(ctx)
	return a
}

// Wait waits for the background matrices to end (they end when the context given to
// NewEvalAPI does).
func (a *EvalAPI) Wait() { a.jobs.wait() }

// Routes registers the API and its pages on mux.
func (a *EvalAPI) Routes(mux *http.ServeMux) {
	mux.Handle("/api/v1/eval/scenarios", a.method(http.MethodPost, a.addScenario, http.MethodGet, a.listScenarios))
	mux.Handle("/api/v1/eval/scenarios/auto-generate", a.method(http.MethodPost, a.autoGenerate))
	mux.Handle("/api/v1/eval/runs", a.method(http.MethodGet, a.listRuns))
	mux.Handle("/api/v1/eval/matrix", a.method(http.MethodPost, a.startMatrix))
	mux.Handle("/api/v1/eval/matrix/{job}", a.method(http.MethodGet, a.matrixJob))
	mux.Handle("/api/v1/eval/summary", a.method(http.MethodGet, a.summary))
	mux.Handle("/api/v1/eval/review", a.method(http.MethodGet, a.listReview))
	mux.Handle("/api/v1/eval/review/{item}", a.method(http.MethodPost, a.changeReview))
	mux.Handle("/api/v1/openapi.json", a.method(http.MethodGet, serveOpenAPI))
	mux.Handle("/eval/report", a.method(http.MethodGet, a.reportPage))
	mux.Handle("/eval/review", a.method(http.MethodGet, a.reviewPage))
}

// method dispatches on the request method: pairs of method and handler; any other method is
// a JSON 405.
func (a *EvalAPI) method(pairs ...any) http.Handler {
	return Handler(func(w http.ResponseWriter, r *http.Request) error {
		var allowed []string
		for i := 0; i+1 < len(pairs); i += 2 {
			m := pairs[i].(string)
			allowed = append(allowed, m)
			if r.Method == m {
				return pairs[i+1].(func(http.ResponseWriter, *http.Request) error)(w, r)
			}
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		return Errorf(http.StatusMethodNotAllowed, "method_not_allowed", "%s is not allowed here (allowed: %s)", r.Method, strings.Join(allowed, ", "))
	})
}

// withStore runs use with the store open, one request at a time in this process.
func (a *EvalAPI) withStore(ctx context.Context, write bool, use func(s store.Store) error) error {
	s, release, err := a.acquire(ctx, write)
	if err != nil {
		return err
	}
	useErr := use(s)
	if err := release(); useErr == nil && err != nil {
		return err
	}
	return useErr
}

// acquire opens the store for one request (or one sealing batch) and holds storeMu until the
// returned release closes it. While another process holds the store, it tries again every
// storePoll without holding storeMu, so that the requests that can be served meanwhile are
// (reads, while a write waits for a reader elsewhere to finish): a wait for the store never
// holds an unrelated request. After StoreWait it gives up with a 503 and Retry-After.
func (a *EvalAPI) acquire(ctx context.Context, write bool) (store.Store, func() error, error) {
	deadline := time.Now().Add(a.cfg.StoreWait)
	for {
		a.storeMu.Lock()
		s, closeStore, err := a.cfg.Open(ctx, write)
		if err == nil {
			return s, func() error { defer a.storeMu.Unlock(); return closeStore() }, nil
		}
		a.storeMu.Unlock()
		if errclass.Of(err) != errclass.InUse {
			// Why it cannot be opened (a path, a damaged file) is for the operator, as a 500's is.
			e := Errorf(http.StatusServiceUnavailable, "store_unavailable", "the store cannot be opened now; the server's log holds why under this error id")
			e.ID = newErrorID()
			logFrom(ctx)("error %s: open the store: %v", e.ID, err)
			return nil, nil, e
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			e := Errorf(http.StatusServiceUnavailable, "store_busy",
				"another process holds the store (waited %s); try again in %d s", a.cfg.StoreWait, StoreRetryAfter)
			e.RetryAfter = StoreRetryAfter
			return nil, nil, e
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(storePoll, max(time.Until(deadline), time.Millisecond))):
		}
	}
}

// storePoll is how often a request waiting for a store another process holds tries again.
const storePoll = 50 * time.Millisecond

// sealOpener is the runner's opener, taking its turn with the requests.
func (a *EvalAPI) sealOpener() evalrun.Opener {
	return func(ctx context.Context) (store.Store, func() error, error) {
		return a.acquire(ctx, true)
	}
}

// inputError turns the library's bad-input errors into a 400 naming the member of the body
// that is wrong (an unknown scenario or variation named in a matrix request included: the body
// is what is wrong, docs/decisions.md "Eval Library API: errors"), a 404 for no matrix, a 409
// for a review change out of turn, and leaves the others as they are.
func inputError(err error) error {
	var de *doc.Error
	switch {
	case errors.Is(err, evallib.ErrUnknownScenario):
		return FieldErrorf("scenario_ids", "invalid_input", "scenario_ids: %v", err)
	case errors.Is(err, evalfmt.ErrUnknownVariation):
		return FieldErrorf("variation_types", "invalid_input", "variation_types: %v", err)
	case errors.Is(err, evallib.ErrNoMatrix), errors.Is(err, evallib.ErrUnknownReview):
		return Errorf(http.StatusNotFound, "not_found", "%v", err)
	case errors.Is(err, evallib.ErrReview):
		return Errorf(http.StatusConflict, "review_conflict", "%v", err)
	case errors.As(err, &de):
		return FieldErrorf(de.Path.String(), "invalid_input", "%v", err)
	case errors.Is(err, evalfmt.ErrScenario), errors.Is(err, evalmetric.ErrThreshold):
		return Errorf(http.StatusBadRequest, "invalid_input", "%v", err)
	}
	return err
}

// parseBody reads and parses a JSON request body.
func (a *EvalAPI) parseBody(w http.ResponseWriter, r *http.Request) (*doc.Node, []byte, error) {
	b, err := ReadBody(w, r, a.cfg.MaxBody)
	if err != nil {
		return nil, nil, err
	}
	n, err := doc.ParseJSON("request body", b, doc.Limits{MaxBytes: a.cfg.MaxBody, MaxDepth: 64})
	if err != nil {
		return nil, nil, Errorf(http.StatusBadRequest, "invalid_json", "%v", err)
	}
	return n, b, nil
}

func (a *EvalAPI) addScenario(w http.ResponseWriter, r *http.Request) error {
	n, body, err := a.parseBody(w, r)
	if err != nil {
		return err
	}
	s, err := evalfmt.ScenarioFromNode(n)
	if err != nil {
		return inputError(err)
	}
	var added evallib.Added
	err = a.withStore(r.Context(), true, func(st store.Store) (err error) {
		added, err = evallib.AddScenario(r.Context(), st, s, "api", body)
		return err
	})
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if !added.Created {
		status = http.StatusOK
	}
	return WriteJSON(w, status, map[string]any{"id": added.ID, "version": added.Version, "created": added.Created,
		"object": added.Object, "content": s.Digest()})
}

func (a *EvalAPI) listScenarios(w http.ResponseWriter, r *http.Request) error {
	var list []*store.EvalScenario
	err := a.withStore(r.Context(), false, func(st store.Store) (err error) {
		list, err = evallib.ListScenarios(r.Context(), st)
		return err
	})
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(list))
	for _, v := range list {
		out = append(out, map[string]any{"id": v.ID, "version": v.Version, "name": v.Name, "risk_level": v.RiskLevel, "content": v.Content.Digest})
	}
	return WriteJSON(w, http.StatusOK, map[string]any{"scenarios": out})
}

// matrixOf loads the matrix of the request's matrix parameter, or the latest one.
func matrixOf(r *http.Request, st store.Store) (*evallib.MatrixSummary, error) {
	arg := r.URL.Query().Get("matrix")
	if arg == "" {
		return evallib.LatestMatrix(r.Context(), st)
	}
	d, err := store.Resolve(r.Context(), st, arg)
	if err != nil {
		return nil, Errorf(http.StatusNotFound, "not_found", "%v", err)
	}
	m, err := store.LoadBundleManifest(r.Context(), st, d)
	if err != nil {
		return nil, err
	}
	if _, ok := m.(*store.EvalMatrix); !ok {
		return nil, Errorf(http.StatusBadRequest, "not_a_matrix", "bundle %s is a %s, not a matrix", d.Short(), m.ObjectKind())
	}
	return evallib.LoadMatrix(r.Context(), st, d)
}

func (a *EvalAPI) listRuns(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := evallib.RunFilter{Scenario: q.Get("scenario"), Variation: q.Get("variation"), Flagged: q.Get("flagged"), Status: q.Get("status")}
	if f.Flagged != "" && f.Flagged != "true" && f.Flagged != "false" {
		return Errorf(http.StatusBadRequest, "bad_filter", "flagged=%q: want true or false", f.Flagged)
	}
	if f.Status != "" && f.Status != store.EvalRunOK && f.Status != store.EvalRunFailed {
		return Errorf(http.StatusBadRequest, "bad_filter", "status=%q: want ok or failed", f.Status)
	}
	var m *evallib.MatrixSummary
	err := a.withStore(r.Context(), false, func(st store.Store) (err error) {
		m, err = matrixOf(r, st)
		return err
	})
	if errors.Is(err, evallib.ErrNoMatrix) {
		return WriteJSON(w, http.StatusOK, map[string]any{"matrix": nil, "runs": []any{}})
	}
	if err != nil {
		return inputError(err)
	}
	return WriteJSON(w, http.StatusOK, map[string]any{"matrix": m.Bundle, "runs": m.Runs(f)})
}

func (a *EvalAPI) summary(w http.ResponseWriter, r *http.Request) error {
	var (
		m       *evallib.MatrixSummary
		reviews []evallib.ReviewItem
	)
	err := a.withStore(r.Context(), false, func(st store.Store) (err error) {
		if m, err = matrixOf(r, st); err != nil {
			return err
		}
		reviews, err = evallib.Reviews(r.Context(), st, "")
		return err
	})
	if errors.Is(err, evallib.ErrNoMatrix) && r.URL.Query().Get("matrix") == "" {
		// Before any matrix the dashboard still answers, with zero counts, as /runs does.
		err = a.withStore(r.Context(), false, func(st store.Store) (err error) {
			reviews, err = evallib.Reviews(r.Context(), st, "")
			return err
		})
		if err != nil {
			return err
		}
		return WriteJSON(w, http.StatusOK, evallib.EmptySummary(reviews))
	}
	if err != nil {
		return inputError(err)
	}
	return WriteJSON(w, http.StatusOK, evallib.Summarize(m, reviews))
}

func (a *EvalAPI) listReview(w http.ResponseWriter, r *http.Request) error {
	state := r.URL.Query().Get("state")
	var items []evallib.ReviewItem
	err := a.withStore(r.Context(), false, func(st store.Store) (err error) {
		items, err = evallib.Reviews(r.Context(), st, state)
		return err
	})
	if err != nil {
		return err
	}
	out := make([]reviewJSON, len(items))
	for i, it := range items {
		out[i] = reviewView(it.EvalReview)
	}
	return WriteJSON(w, http.StatusOK, map[string]any{"items": out})
}

// changeReview moves a review item to the state of the body ({"state", "note"}); who made the
// change is the token's subject.
func (a *EvalAPI) changeReview(w http.ResponseWriter, r *http.Request) error {
	n, _, err := a.parseBody(w, r)
	if err != nil {
		return err
	}
	var body struct {
		State string `json:"state" doc:"required"`
		Note  string `json:"note" doc:"required"`
	}
	if err := doc.Decode(n, &body); err != nil {
		return bodyError(err)
	}
	if body.State != store.EvalReviewAcknowledged && body.State != store.EvalReviewResolved {
		return FieldErrorf("state", "invalid_input", "state %q: want %s or %s", body.State, store.EvalReviewAcknowledged, store.EvalReviewResolved)
	}
	who := ClaimsOf(r.Context()).Subject
	if who == "" {
		return Errorf(http.StatusForbidden, "no_subject", "the token has no sub claim: a review change needs to say who made it")
	}
	var item *evallib.ReviewItem
	err = a.withStore(r.Context(), true, func(st store.Store) (err error) {
		item, err = evallib.Transition(r.Context(), st, r.PathValue("item"), body.State, body.Note, who)
		return err
	})
	if err != nil {
		return inputError(err)
	}
	return WriteJSON(w, http.StatusOK, reviewView(item.EvalReview))
}

func (a *EvalAPI) reportPage(w http.ResponseWriter, r *http.Request) error {
	var report *evallib.Report
	err := a.withStore(r.Context(), false, func(st store.Store) error {
		m, err := matrixOf(r, st)
		if err != nil {
			return err
		}
		var previous *evallib.MatrixSummary
		if m.Manifest.Previous != nil {
			if previous, err = evallib.LoadMatrix(r.Context(), st, *m.Manifest.Previous); errors.Is(err, store.ErrNotFound) {
				previous, err = nil, nil
			}
		}
		report = evallib.NewReport(m, previous)
		return err
	})
	if err != nil {
		return inputError(err)
	}
	pageHeaders(w)
	return report.WriteHTML(w)
}

func (a *EvalAPI) reviewPage(w http.ResponseWriter, r *http.Request) error {
	var items []evallib.ReviewItem
	err := a.withStore(r.Context(), false, func(st store.Store) (err error) {
		items, err = evallib.Reviews(r.Context(), st, "")
		return err
	})
	if err != nil {
		return err
	}
	pageHeaders(w)
	return evallib.WriteReviewHTML(w, items)
}

// pageHeaders marks an HTML page, and forbids it to load anything: the pages are
// self-contained, so nothing injected into one could fetch or run anything either.
func pageHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	w.Header().Set("X-Content-Type-Options", "nosniff")
}
