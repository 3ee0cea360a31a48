package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalRunCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "run the agent on one scenario, baseline or under one variation, and record each run as a bundle",
		Description: "Sends the scenario's request to the agent --runs times (on stdin for a command, as the POST\n" +
			"body for an http(s) endpoint), and seals each run (request, answer, stderr, exit status,\n" +
			"duration) as a bundle. Without --variation the runs are baseline runs. Each run is sealed with\n" +
			"its verdict and receipt (replay RUN proves the digest). Prints each run's match and the cell's\n" +
			"match rate; for a variation, its shift magnitude against the baseline runs recorded for the same\n" +
			"agent and scenario, with their noise floor.\n\n" + evalReuseHelp +
			"--agent CMD is split like a shell splits words (quotes and backslashes), without any expansion\n" +
			"or redirection; no shell runs. The agent inherits the environment.\n\n" +
			"Exit status: 0 recorded, not flagged; 1 the cell is flagged (shift above its risk level's\n" +
			"threshold); 2 bad usage, unknown scenario or variation, unusable agent, or interrupted.",
		Flags: append(evalAgentFlags(),
			&cli.StringFlag{Name: "scenario", Required: true, Usage: "the scenario `ID`"},
			&cli.StringFlag{Name: "variation", Usage: "the variation `ID` (default: a baseline run)"},
		),
		Action: runEvalRun,
	}
}

func runEvalRun(c *cli.Context) error {
	e, err := newEvalSetup(c)
	if err != nil {
		return err
	}
	opts := evallib.PlanOptions{Scenarios: []string{c.String("scenario")}, Runs: c.Int("runs"), Rerun: c.Bool("rerun")}
	if v := c.String("variation"); v != "" {
		opts.Variations = []string{v}
	} else {
		opts.NoVariations = true
	}
	plan, err := e.plan(c, opts)
	if err != nil {
		return err
	}
	progress := newCellProgress(c.App.ErrWriter, plan)
	_, err = plan.Execute(c.Context, evallib.Execution{Parallel: 1, Recorder: recorderInfo("eval run"),
		Open: storeOpener(c), Progress: progress, SpoolDir: c.String("spool-dir")})
	progress.finish()
	if err != nil {
		return err
	}
	var results []evallib.CellResult
	err = withStoreWaiting(c, readOnly, func(s store.Store) (err error) {
		results, err = evallib.EvaluateCells(c.Context, s, plan, e.thresholds)
		return err
	})
	if err != nil {
		return err
	}
	if err := writeCellResults(c, results); err != nil {
		return err
	}
	for _, r := range results {
		if r.Metrics.Flagged {
			return reported{status: exitMismatch}
		}
	}
	return nil
}

func writeCellResults(c *cli.Context, results []evallib.CellResult) error {
	if c.Bool("json") {
		cells := make([]evalmetric.CellVerdict, len(results))
		for i, r := range results {
			cells[i] = r.Metrics
		}
		return evallib.WriteCellsJSON(c.App.Writer, cells)
	}
	w := c.App.Writer
	for _, r := range results {
		m := r.Metrics
		fmt.Fprintf(w, "%s / %s: %d run(s), %d recorded now, %d reused\n", m.Scenario, m.Variation, m.Runs,
			m.Runs-len(r.Cell.Reused), len(r.Cell.Reused))
		for i, v := range r.Runs {
			writeRunLine(w, m.Bundles[i].Short(), v)
		}
		fmt.Fprintf(w, "match rate %s", m.MatchRate.Value)
		switch {
		case m.ShiftMagnitude != nil:
			fmt.Fprintf(w, "; shift magnitude %s against %d baseline run(s)", m.ShiftMagnitude.Value, r.Baseline)
		case m.Variation != "baseline":
			fmt.Fprintf(w, "; no shift magnitude: no baseline run recorded for this agent and scenario (eval run without --variation)")
		}
		if m.NoiseFloor != nil {
			fmt.Fprintf(w, "; noise floor %s", m.NoiseFloor.Value)
		}
		if m.Flagged {
			fmt.Fprintf(w, "; FLAGGED: above the %s threshold %s", m.RiskLevel, m.Threshold)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func writeRunLine(w io.Writer, bundle string, v *evalmetric.RunVerdict) {
	match := "no match"
	if v.Matched {
		match = "matched"
	}
	fmt.Fprintf(w, "  run %d  %s  %-6s  %-8s  answer %s, %d leaves, distance to expected %s",
		v.Run, bundle, v.Status, match, v.Answer, v.Leaves, v.DistanceToExpected.Value)
	if v.Reason != "" {
		fmt.Fprintf(w, " (%s)", v.Reason)
	}
	fmt.Fprintln(w)
}
