package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
)

func evalMatrixCommand() *cli.Command {
	return &cli.Command{
		Name:      "matrix",
		Usage:     "run every scenario × (baseline + every variation), record every run and seal the matrix",
		ArgsUsage: "[SCENARIO...]",
		Description: "Runs the agent --runs times on every cell: each SCENARIO (default: every scenario in the\n" +
			"store) under the baseline and under each --variation (default: every variation of the\n" +
			"catalogue), one variation at a time, --parallel runs at once. Re-running a matrix after an\n" +
			"interruption, or after an edit of a scenario or of the agent, runs only what is not recorded\n" +
			"(below). Each run is sealed with its verdict and receipt, so `oasis-replay replay RUN` proves\n" +
			"its digest at once. Results do not depend on --parallel. The store is opened only to seal\n" +
			"finished runs, never while agents run.\n\n" +
			evalReuseHelp +
			"The matrix is sealed as a bundle naming every cell's run bundles; its verdict (match rate,\n" +
			"shift magnitude, noise floor, flag per cell) is stored with its receipt, every flagged cell\n" +
			"gets an open review item, and the cells are compared with the previous matrix of the same\n" +
			"scenarios. `oasis-replay replay MATRIX` re-derives every number from the bundles.\n\n" +
			evalMinMatchHelp +
			"--shard I/N (or --shards N with JOB_COMPLETION_INDEX) runs only the runs whose key,\n" +
			"\"<cell key hex>/<run number>\", hashes into shard I of N, reusing recorded ones, and does not\n" +
			"seal the matrix; --push REMOTE pushes the shard's runs with their receipts. --from REMOTE\n" +
			"first pulls the runs REMOTE holds so that they are reused: eval matrix --from REMOTE --push\n" +
			"REMOTE, unsharded, seals and pushes the matrix of the shards' runs without running the agent\n" +
			"again, and a shard retried with --from re-runs nothing already pushed.\n\n" +
			"Exit status: 0 sealed, nothing flagged, no regression; 1 sealed with flagged cells, cells\n" +
			"below --min-match or regressions against the previous matrix; 2 bad usage, unknown scenario\n" +
			"or variation, unusable agent, or interrupted (the finished runs are kept: run it again to\n" +
			"finish).",
		Flags: append(append(evalAgentFlags(),
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "`P` runs at once"},
			&cli.StringSliceFlag{Name: "variation", Usage: "a variation `ID` to include (repeatable; default: all)"},
			minMatchFlag(),
		), evalMatrixShardFlags()...),
		Action: runEvalMatrix,
	}
}

func runEvalMatrix(c *cli.Context) error {
	if c.Int("parallel") < 1 || c.Int("runs") < 1 {
		return argsError(c, "--parallel and --runs must be at least 1")
	}
	e, err := newEvalSetup(c)
	if err != nil {
		return err
	}
	minMatch, err := evalMinMatch(c)
	if err != nil {
		return err
	}
	opts := evallib.PlanOptions{Scenarios: c.Args().Slice(), Variations: c.StringSlice("variation"), Baseline: true,
		Runs: c.Int("runs"), Rerun: c.Bool("rerun")}
	if err := pullEvalRuns(c); err != nil {
		return err
	}
	plan, err := e.plan(c, opts)
	if err != nil {
		return err
	}
	if done, err := runEvalMatrixShard(c, plan); done {
		return err
	}
	progress := newCellProgress(c.App.ErrWriter, plan)
	res, err := evallib.RunMatrix(c.Context, plan, evallib.Execution{Parallel: c.Int("parallel"),
		Recorder: recorderInfo("eval matrix"), Open: storeOpener(c), Progress: progress, SpoolDir: c.String("spool-dir")}, e.thresholds)
	progress.finish()
	if err != nil {
		return err
	}
	if err := pushMatrix(c, res.Bundle); err != nil {
		return err
	}
	report := evallib.NewReport(&evallib.MatrixSummary{Bundle: res.Bundle, Manifest: res.Manifest, Verdict: res.Verdict}, res.Previous)
	report.SetMinMatch(minMatch)
	if c.Bool("json") {
		err = report.WriteJSON(c.App.Writer)
	} else {
		fmt.Fprintf(c.App.Writer, "%d cells, %d runs: %d recorded now, %d reused\n",
			len(plan.Cells), len(plan.Cells)*opts.Runs, len(plan.Jobs), plan.ReusedRuns)
		err = report.WriteText(c.App.Writer, colorOutput(c))
		if err == nil && len(res.Opened) > 0 {
			fmt.Fprintf(c.App.Writer, "\nopened review item(s): %s (see eval review ls)\n", strings.Join(res.Opened, ", "))
		}
		if err == nil {
			fmt.Fprintf(c.App.Writer, "\nsealed matrix %s\n", res.Bundle)
		}
	}
	if err != nil {
		return err
	}
	if res.Verdict.Flagged > 0 || report.Regressions() > 0 || report.CountBelowMinMatch() > 0 {
		return reported{status: exitMismatch}
	}
	return nil
}
