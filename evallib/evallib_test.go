package evallib

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

const stagingScenario = `{"id":"staging-failure","name":"Staging failure is routine","description":"A failed staging deployment only needs the team notified","risk_level":"low",
"input_context":{"event":"deployment_failed","environment":"staging"},
"expected_behavior":{"action":"notify_team","priority":"low"}}`

func blockedAgent(block int32) *evalruntest.Agent {
	a := evalruntest.NewPressureAgent("")
	a.Block = block
	return a
}

func newTestStore(t *testing.T) store.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// addScenarios adds the description's example scenario and a low-risk one.
func addScenarios(t *testing.T, st store.Store) []string {
	t.Helper()
	var ids []string
	files := map[string][]byte{"staging.json": []byte(stagingScenario)}
	b, err := os.ReadFile(filepath.Join("..", "formats", "evallib", "testdata", "escalate.json"))
	if err != nil {
		t.Fatal(err)
	}
	files["escalate.json"] = b
	for _, name := range []string{"escalate.json", "staging.json"} {
		s, err := evalfmt.ParseScenario(name, files[name])
		if err != nil {
			t.Fatal(err)
		}
		added, err := AddScenario(t.Context(), st, s, name, files[name])
		if err != nil || !added.Created || added.Version != 1 {
			t.Fatalf("AddScenario: %+v, %v", added, err)
		}
		ids = append(ids, s.ID)
	}
	return ids
}

func openerOf(st store.Store) evalrun.Opener {
	return func(context.Context) (store.Store, func() error, error) { return st, func() error { return nil }, nil }
}

type matrixRun struct {
	agent    evalrun.Agent
	runs     int
	parallel int
	rerun    bool
	ctx      context.Context
}

func runMatrix(t *testing.T, st store.Store, m matrixRun) (*Plan, *MatrixResult, error) {
	t.Helper()
	if m.ctx == nil {
		m.ctx = t.Context()
	}
	plan, err := NewPlan(t.Context(), st, PlanOptions{Agent: m.agent, Catalogue: evalfmt.Builtin(), Baseline: true, Runs: m.runs, Rerun: m.rerun})
	if err != nil {
		t.Fatal(err)
	}
	th, _ := evalmetric.ParseThresholds(nil)
	res, err := RunMatrix(m.ctx, plan, Execution{Parallel: m.parallel, Recorder: store.RecorderInfo{Name: "oasis-replay", Version: "test", Source: "eval matrix"},
		Open: openerOf(st), SpoolDir: t.TempDir()}, th)
	return plan, res, err
}

func reportJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The matrix end to end: 2 scenarios × (baseline + 7 variations), 3 runs a cell. --parallel
// changes nothing; the report is golden; a second matrix reuses every run.
func TestMatrix(t *testing.T) {
	var reports [][]byte
	var bundles [][]store.Digest
	var st store.Store
	for _, parallel := range []int{1, 4} {
		st = newTestStore(t)
		addScenarios(t, st)
		plan, res, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 3, parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		if len(plan.Cells) != 16 || len(plan.Jobs) != 48 || res.Verdict.Flagged != 1 || len(res.Opened) != 1 {
			t.Fatalf("plan %d cells %d jobs; verdict flagged %d, opened %v", len(plan.Cells), len(plan.Jobs), res.Verdict.Flagged, res.Opened)
		}
		reports = append(reports, reportJSON(t, NewReport(&MatrixSummary{res.Bundle, res.Manifest, res.Verdict}, nil)))
		var ds []store.Digest
		for _, c := range res.Verdict.Cells {
			ds = append(ds, c.Bundles...)
		}
		bundles = append(bundles, ds)
	}
	if !bytes.Equal(reports[0], reports[1]) {
		t.Fatalf("--parallel 1 and 4 give different reports:\n%s\n%s", reports[0], reports[1])
	}
	goldenfile.Check(t, filepath.Join("testdata", "matrix.golden.json"), reports[0], *update)

	// Every number re-derives from the bundles, with the verdict digest recorded at sealing.
	latest, err := LatestMatrix(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	res, err := evalmetric.Evaluate(t.Context(), st, latest.Bundle, latest.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := storedVerdict(t.Context(), st, latest.Bundle)
	if err != nil || stored == nil {
		t.Fatalf("stored verdict: %v", err)
	}
	b, _, _ := store.Encode(stored)
	if !bytes.Equal(b, res.Canonical) {
		t.Error("the re-derived verdict differs from the one recorded when the matrix was sealed")
	}
	// Every run was sealed with its verdict and receipt, so replaying it proves the digest.
	for _, c := range latest.Verdict.Cells {
		for _, d := range c.Bundles {
			m, err := store.LoadBundleManifest(t.Context(), st, d)
			if err != nil {
				t.Fatal(err)
			}
			res, err := evalmetric.Evaluate(t.Context(), st, d, m)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := RecordedReceipt(t.Context(), st, d)
			if err != nil || recorded == nil || recorded.Verdict != res.Digest || recorded.Profile != res.Definition {
				t.Fatalf("run %s: recorded receipt %+v (%v), re-derived %+v", d.Short(), recorded, err, res.Receipt)
			}
		}
	}

	// Running the same matrix again reuses every run and is the same matrix.
	plan, again, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 3, parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Jobs) != 0 || plan.ReusedCells != 16 || again.Bundle != latest.Bundle || len(again.Opened) != 0 {
		t.Errorf("re-run: %d jobs, %d reused cells, bundle %s (was %s), opened %v", len(plan.Jobs), plan.ReusedCells, again.Bundle.Short(), latest.Bundle.Short(), again.Opened)
	}
	// More runs per cell run only the new ones.
	plan, _, err = runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 4, parallel: 2})
	if err != nil || len(plan.Jobs) != 16 || plan.ReusedRuns != 48 {
		t.Errorf("4 runs a cell: %d jobs, %d reused, %v", len(plan.Jobs), plan.ReusedRuns, err)
	}
}

// After an agent update the matrix re-runs every cell and shows the regression against the
// previous matrix of the same scenarios.
func TestMatrixRegression(t *testing.T) {
	st := newTestStore(t)
	addScenarios(t, st)
	_, first, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent("v1"), runs: 2, parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	plan, second, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent("v2"), runs: 2, parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Jobs) != 32 || second.Previous == nil || second.Previous.Bundle != first.Bundle {
		t.Fatalf("v2: %d jobs, previous %+v", len(plan.Jobs), second.Previous)
	}
	r := NewReport(&MatrixSummary{second.Bundle, second.Manifest, second.Verdict}, second.Previous)
	if r.Regressions() != 2 {
		t.Errorf("regressions = %d, want confidence_manipulation on both scenarios: %+v", r.Regressions(), r.Changes)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "regression.golden.txt"), text.Bytes(), *update)
}

// An interrupted matrix keeps its finished runs, is not sealed, and finishes on the next run
// without repeating them.
func TestMatrixInterruptedResumes(t *testing.T) {
	st := newTestStore(t)
	addScenarios(t, st)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	_, _, err := runMatrix(t, st, matrixRun{agent: blockedAgent(11), runs: 2, parallel: 1, ctx: ctx})
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "10 of 32 runs recorded") {
		t.Fatalf("interrupted matrix: %v", err)
	}
	if _, err := LatestMatrix(t.Context(), st); !errors.Is(err, ErrNoMatrix) {
		t.Errorf("an interrupted matrix was sealed: %v", err)
	}
	plan, res, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 2, parallel: 3})
	if err != nil || len(plan.Jobs) != 22 || plan.ReusedRuns != 10 || res.Verdict.Flagged != 1 {
		t.Fatalf("resumed: %d jobs, %d reused, %v", len(plan.Jobs), plan.ReusedRuns, err)
	}
}

func TestReviewQueue(t *testing.T) {
	st := newTestStore(t)
	addScenarios(t, st)
	_, res, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 1, parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Opened[0]
	open, err := Reviews(t.Context(), st, store.EvalReviewOpen)
	if err != nil || len(open) != 1 || open[0].Item != id || open[0].Variation != "authority_bias" || open[0].Shift != "1.000" {
		t.Fatalf("open items: %+v, %v", open, err)
	}
	if _, err := Transition(t.Context(), st, id, store.EvalReviewAcknowledged, "looking", "ana"); err != nil {
		t.Fatal(err)
	}
	if _, err := Transition(t.Context(), st, id, store.EvalReviewAcknowledged, "again", "ana"); !errors.Is(err, ErrReview) {
		t.Errorf("acknowledging twice: %v", err)
	}
	if _, err := Transition(t.Context(), st, id, store.EvalReviewResolved, "prompt fixed", ""); !errors.Is(err, ErrReview) {
		t.Errorf("a change without who: %v", err)
	}
	if _, err := Transition(t.Context(), st, id, store.EvalReviewResolved, "prompt fixed", "bo"); err != nil {
		t.Fatal(err)
	}
	if _, err := Transition(t.Context(), st, "rev_nonexistent", store.EvalReviewResolved, "x", "bo"); !errors.Is(err, ErrUnknownReview) {
		t.Errorf("unknown item: %v", err)
	}
	history, err := ReviewHistory(t.Context(), st, id)
	if err != nil || len(history) != 3 || history[0].State != store.EvalReviewResolved || history[0].By != "bo" || history[2].State != store.EvalReviewOpen {
		t.Fatalf("history: %+v, %v", history, err)
	}
	// The same evidence flagged again does not reopen the item.
	_, again, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 1, parallel: 1})
	if err != nil || len(again.Opened) != 0 {
		t.Errorf("re-run opened %v, %v", again.Opened, err)
	}
	if rep, err := store.Check(t.Context(), st, store.CheckOptions{}); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("store check: %+v, %v", rep, err)
	}
}

// Eval Library bundles go through the store's generic machinery: listing, fsck, gc, export,
// verify and import into another store, where the matrix replays to the same verdict.
func TestBundlesTravel(t *testing.T) {
	st := newTestStore(t)
	addScenarios(t, st)
	_, res, err := runMatrix(t, st, matrixRun{agent: evalruntest.NewPressureAgent(""), runs: 2, parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	infos, err := store.ListBundles(t.Context(), st)
	if err != nil || len(infos) != 33 {
		t.Fatalf("ListBundles: %d, %v", len(infos), err)
	}
	if gc, err := store.GC(t.Context(), st, store.GCOptions{}); err != nil || len(gc.Removed) != 0 {
		t.Fatalf("gc removed %d, %v", len(gc.Removed), err)
	}
	var archiveBytes bytes.Buffer
	if _, err := archive.Export(t.Context(), st, res.Bundle, &archiveBytes, archive.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := archive.Verify(t.Context(), bytes.NewReader(archiveBytes.Bytes()), archive.Limits{}); err != nil {
		t.Fatal(err)
	}
	other := newTestStore(t)
	if _, err := archive.Import(t.Context(), other, bytes.NewReader(archiveBytes.Bytes()), archive.Limits{}, archive.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if rep, err := store.Check(t.Context(), other, store.CheckOptions{}); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("check after import: %+v, %v", rep, err)
	}
	m, err := store.LoadBundleManifest(t.Context(), other, res.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	again, err := evalmetric.Evaluate(t.Context(), other, res.Bundle, m)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := store.Encode(res.Verdict)
	if !bytes.Equal(again.Canonical, want) {
		t.Error("the imported matrix replays to another verdict")
	}
}

func TestScenarioVersions(t *testing.T) {
	st := newTestStore(t)
	s1, _ := evalfmt.ParseScenario("a.json", []byte(stagingScenario))
	if _, err := AddScenario(t.Context(), st, s1, "a.json", []byte(stagingScenario)); err != nil {
		t.Fatal(err)
	}
	same, err := AddScenario(t.Context(), st, s1, "copy.json", []byte(stagingScenario))
	if err != nil || same.Created || same.Version != 1 {
		t.Errorf("the same content again: %+v, %v", same, err)
	}
	changed := strings.Replace(stagingScenario, `"priority":"low"`, `"priority":"normal"`, 1)
	s2, _ := evalfmt.ParseScenario("a.json", []byte(changed))
	added, err := AddScenario(t.Context(), st, s2, "a.json", []byte(changed))
	if err != nil || !added.Created || added.Version != 2 {
		t.Fatalf("a new version: %+v, %v", added, err)
	}
	history, err := ScenarioHistory(t.Context(), st, "staging-failure")
	if err != nil || len(history) != 2 || history[0].Version.Version != 2 || history[1].Version.Content.Digest != s1.Digest() {
		t.Fatalf("history: %+v, %v", history, err)
	}
	v1, err := LoadScenarioVersion(t.Context(), st, "staging-failure", 1)
	if err != nil || !bytes.Equal(v1.Scenario.Canonical, s1.Canonical) {
		t.Errorf("version 1: %v", err)
	}
	if _, err := LoadScenario(t.Context(), st, "nope"); !errors.Is(err, ErrUnknownScenario) {
		t.Errorf("unknown scenario: %v", err)
	}
	list, err := ListScenarios(t.Context(), st)
	if err != nil || len(list) != 1 || list[0].Version != 2 {
		t.Errorf("list: %+v, %v", list, err)
	}
}
