package demo

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/kensastats"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// KensaTag is the tag of the Kensa part: kensa run's --tag, so the last run of each scenario
// is tagged KensaTag-<scenario>.
const KensaTag = "demo-kensa"

// KensaRuns is how many times the demo runs each Kensa scenario: enough for the flaky one to
// pass and fail twice.
const KensaRuns = 4

// KensaOptions tune RunKensa.
type KensaOptions struct {
	// Program is this program's executable: the scenarios run it as their agent.
	Program string
	// Work is a directory the demo may write the project and its spool into.
	Work    string
	Version string
}

// KensaRun is one run of the Kensa part: the status kensa run gave it while recording, and the
// status and verdict replay re-derived from its bundle alone.
type KensaRun struct {
	Scenario string
	Repeat   int
	Bundle   store.Digest
	Recorded string
	Replayed string
	Verdict  store.Digest
	// Receipt is the ref the receipt was stored under.
	Receipt string
}

// KensaResult is what RunKensa did.
type KensaResult struct {
	RunID string
	Runs  []KensaRun
	// Stats are kensa stats over every run of the example scenarios in the store (earlier
	// demos' included).
	Stats *kensastats.Report
}

// Reproduced reports whether every run replays to the status it was recorded with.
func (r *KensaResult) Reproduced() bool {
	for _, run := range r.Runs {
		if run.Recorded != run.Replayed {
			return false
		}
	}
	return true
}

// RunKensa runs the example Kensa project (package internal/example) as `kensa run --runs
// KensaRuns --tag KensaTag` does, with the program itself as the scripted agent, one run at a
// time (the flaky scenario alternates with each run); then replays every run, stores its
// receipt, and computes kensa stats over the example scenarios. Each call records new runs:
// a run's bundle holds when it started and how long it took.
func RunKensa(ctx context.Context, s store.Store, opts KensaOptions) (*KensaResult, error) {
	project := filepath.Join(opts.Work, "kensa-project")
	kensaDir := filepath.Join(project, ".kensa")
	if err := os.CopyFS(kensaDir, example.KensaFS()); err != nil {
		return nil, fmt.Errorf("%w: write the example Kensa project: %w", ErrDemo, err)
	}
	restore, err := onPath(opts.Work, opts.Program)
	if err != nil {
		return nil, err
	}
	defer restore()
	res := &KensaResult{RunID: "demo-" + time.Now().UTC().Format("20060102T150405.000000")}
	ropts := rkensa.Options{Runs: KensaRuns, Timeout: time.Minute, Tag: KensaTag, RunID: res.RunID, Version: opts.Version}
	jobs, err := rkensa.Plan([]string{kensaDir}, ropts)
	if err != nil {
		return nil, fmt.Errorf("%w: plan the example Kensa project: %w", ErrDemo, err)
	}
	spool := filepath.Join(opts.Work, "kensa-spool")
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return nil, err
	}
	ev := &kensaEvents{recorded: map[[2]string]string{}}
	open := func(use func(w rkensa.Writer) error) error { return use(s) }
	tag := func(rec *rkensa.Record) []string { return []string{rkensa.ScenarioTag(KensaTag, rec)} }
	if _, err := rkensa.RunJobs(ctx, jobs, ropts, 1, spool, open, tag, ev); err != nil {
		return nil, fmt.Errorf("%w: run the example Kensa project: %w", ErrDemo, err)
	}
	for _, sealed := range ev.sealed {
		run, err := replayKensa(ctx, s, sealed.bundle)
		if err != nil {
			return nil, err
		}
		run.Repeat, _ = strconv.Atoi(sealed.rec.Annotations[rkensa.AnnotationRepeat])
		run.Recorded = ev.recorded[[2]string{run.Scenario, sealed.rec.Annotations[rkensa.AnnotationRepeat]}]
		res.Runs = append(res.Runs, *run)
	}
	slices.SortFunc(res.Runs, func(a, b KensaRun) int {
		return cmp.Or(cmp.Compare(a.Scenario, b.Scenario), cmp.Compare(a.Repeat, b.Repeat))
	})
	all, err := kensastats.Gather(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("%w: kensa stats: %w", ErrDemo, err)
	}
	ids, err := exampleKensaIDs(res.Runs)
	if err != nil {
		return nil, err
	}
	res.Stats = kensastats.Compute(all, ids)
	return res, nil
}

// replayKensa re-derives a run's verdict from its bundle, as replay does, and stores it with
// its receipt.
func replayKensa(ctx context.Context, s store.Store, d store.Digest) (*KensaRun, error) {
	b, err := replay.LoadKensa(ctx, s, d)
	if err != nil {
		return nil, fmt.Errorf("%w: replay Kensa run %s: %w", ErrDemo, d.Short(), err)
	}
	r, err := b.Evaluate()
	if err != nil {
		return nil, fmt.Errorf("%w: replay Kensa run %s: %w", ErrDemo, d.Short(), err)
	}
	ref, err := replay.SaveReceipt(ctx, s, r.Canonical, r.Receipt)
	if err != nil {
		return nil, fmt.Errorf("%w: store the receipt of Kensa run %s: %w", ErrDemo, d.Short(), err)
	}
	return &KensaRun{Scenario: r.Result.ScenarioID, Bundle: d, Replayed: r.Result.Status, Verdict: r.Verdict, Receipt: ref}, nil
}

// exampleKensaIDs are the scenario ids of the runs, in order, once each.
func exampleKensaIDs(runs []KensaRun) ([]string, error) {
	var ids []string
	for _, r := range runs {
		if !slices.Contains(ids, r.Scenario) {
			ids = append(ids, r.Scenario)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: the example Kensa project recorded no run", ErrDemo)
	}
	return ids, nil
}

// kensaEvents keeps the status kensa run gave each run while recording, and the bundles sealed.
type kensaEvents struct {
	mu       sync.Mutex
	recorded map[[2]string]string
	sealed   []sealedRun
}

type sealedRun struct {
	rec    *rkensa.Record
	bundle store.Digest
}

func (e *kensaEvents) Started(rkensa.Job) {}

func (e *kensaEvents) Finished(job rkensa.Job, status string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.recorded[[2]string{job.Definition.Scenario.ID, strconv.Itoa(job.Repeat)}] = status
}

func (e *kensaEvents) Sealed(r *rkensa.Record, bundle store.Digest) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sealed = append(e.sealed, sealedRun{r, bundle})
}
