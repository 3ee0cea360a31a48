package demo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// EvalVariations are the variations of the demo's matrix: three of the description's seven,
// the one the agent gives in to among them.
var EvalVariations = []string{"time_pressure", "authority_bias", "sycophancy"}

// EvalRuns is the number of runs per cell, so that each cell has a noise floor.
const EvalRuns = 2

// EvalOptions tune RunEval.
type EvalOptions struct {
	// Program is this program's executable: the matrix runs it as its agent (EvalAgentCommand).
	Program string
	// Work is a directory the demo may write its spool into.
	Work    string
	Version string
}

// EvalResult is what RunEval did.
type EvalResult struct {
	Scenarios []evallib.Added
	Matrix    *evallib.MatrixResult
	// Reused counts the runs recorded by an earlier demo that the matrix took as they were.
	Reused int
	// Replayed is the verdict re-derived from the matrix bundle; Reproduced says it has the
	// digest recorded when the matrix was sealed.
	Replayed   *evalmetric.Result
	Reproduced bool
	// Review is the open review items of the matrix's flagged cells.
	Review []evallib.ReviewItem
}

// RunEval adds the example Eval Library scenarios to the library, runs the matrix of
// EvalVariations with the program itself as the scripted agent (EvalAnswer), as `eval matrix`
// does, replays the matrix bundle, and lists the review items of its flagged cells. Runs
// recorded by an earlier demo are reused, so a second call changes nothing.
func RunEval(ctx context.Context, s store.Store, opts EvalOptions) (*EvalResult, error) {
	res := &EvalResult{}
	var ids []string
	err := fs.WalkDir(example.EvalFS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(example.EvalFS(), name)
		if err != nil {
			return err
		}
		sc, err := evalfmt.ParseScenario(name, data)
		if err != nil {
			return err
		}
		added, err := evallib.AddScenario(ctx, s, sc, "demo", data)
		if err != nil {
			return err
		}
		res.Scenarios = append(res.Scenarios, added)
		ids = append(ids, added.ID)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: add the example Eval Library scenarios: %w", ErrDemo, err)
	}
	restore, err := onPath(opts.Work, opts.Program)
	if err != nil {
		return nil, err
	}
	defer restore()
	agent, err := evalrun.NewAgent(EvalAgentCommand, "", evalrun.Limits{})
	if err != nil {
		return nil, err
	}
	plan, err := evallib.NewPlan(ctx, s, evallib.PlanOptions{Agent: agent, Scenarios: ids, Catalogue: evalfmt.Builtin(),
		Variations: EvalVariations, Baseline: true, Runs: EvalRuns})
	if err != nil {
		return nil, fmt.Errorf("%w: plan the example matrix: %w", ErrDemo, err)
	}
	res.Reused = plan.ReusedRuns
	thresholds, err := evalmetric.ParseThresholds(nil)
	if err != nil {
		return nil, err
	}
	spool := filepath.Join(opts.Work, "eval-spool")
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return nil, err
	}
	open := func(context.Context) (store.Store, func() error, error) { return s, func() error { return nil }, nil }
	res.Matrix, err = evallib.RunMatrix(ctx, plan, evallib.Execution{Parallel: 2, Open: open, SpoolDir: spool,
		Recorder: store.RecorderInfo{Name: "oasis-replay", Version: opts.Version, Source: "demo"}}, thresholds)
	if err != nil {
		return nil, fmt.Errorf("%w: run the example matrix: %w", ErrDemo, err)
	}
	if err := replayMatrix(ctx, s, res); err != nil {
		return nil, err
	}
	items, err := evallib.Reviews(ctx, s, store.EvalReviewOpen)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		// An item opened by an earlier demo names that demo's matrix: the cell is the same.
		if slices.Contains(ids, it.Scenario) {
			res.Review = append(res.Review, it)
		}
	}
	return res, nil
}

// replayMatrix re-derives the matrix's verdict from its bundle, as replay does, and compares
// its digest with the one recorded when the matrix was sealed.
func replayMatrix(ctx context.Context, s store.Store, res *EvalResult) error {
	d := res.Matrix.Bundle
	var err error
	if res.Replayed, err = evalmetric.Evaluate(ctx, s, d, res.Matrix.Manifest); err != nil {
		return fmt.Errorf("%w: replay matrix %s: %w", ErrDemo, d.Short(), err)
	}
	recorded, err := evallib.RecordedReceipt(ctx, s, d)
	if err != nil {
		return fmt.Errorf("%w: the receipt of matrix %s: %w", ErrDemo, d.Short(), err)
	}
	res.Reproduced = recorded != nil && recorded.Verdict == res.Replayed.Digest
	return nil
}
