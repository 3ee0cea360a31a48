package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func kensaStatsCommand() *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "variance over recorded Kensa runs: pass rates, pass^k, flakiness, cost, flags, reasons",
		ArgsUsage: "[SCENARIO…]",
		Description: "Replays the Kensa runs it counts twice (proving the evaluator's variance is zero) and\n" +
			"reports, per scenario (only the SCENARIOs named, if any): the pass rate with a 95% Wilson\n" +
			"interval, pass^k for k = 1, 3, 5 (estimated, and observed where a dataset row has k runs),\n" +
			"flaky (mixed outcomes among repeats of one dataset row) and Kensa's own flaky rule (pooled\n" +
			"pass rate strictly between 0.2 and 0.8), per-row results, per-check pass rates, cost and\n" +
			"duration mean/sd/min/max, Kensa's anomaly flags, and for a flaky row the first point where a\n" +
			"passing and a failing run's evidence diverge. Numbers are Kensa's where Kensa has them.\n\n" +
			"--json prints the report as JSON; --html FILE also writes a self-contained HTML report.\n" +
			"--from REMOTE reports on every run REMOTE holds instead (the union of what sharded kensa\n" +
			"replay --push or kensa run --push sent), pulled into a temporary store: the --json report\n" +
			"is byte for byte the one of a store holding those runs.\n\n" + kensaStatsSelectHelp + "\n\n" +
			"Exit status: 0 the report was made; 1 a replay gave two different verdicts; 2 bad usage or\n" +
			"unreadable evidence.",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&cli.StringFlag{Name: "html", Usage: "write a self-contained HTML report to `FILE`"},
		}, append(kensaStatsSelectFlags(), fromFlagList()...)...),
		Action: runKensaStats,
	}
}

func runKensaStats(c *cli.Context) error {
	return withReportStore(c, readOnly, func(s store.Store) error {
		rep, err := kensaStatsReport(c, s)
		if err != nil {
			return err
		}
		if rep.Selection.Recorded == 0 && !c.Bool("json") {
			noneYet(c, "Kensa runs", "kensa run or kensa import records them")
		}
		if path := c.String("html"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			if err := rep.WriteHTML(f); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
		if c.Bool("json") {
			err = rep.WriteJSON(c.App.Writer)
		} else {
			err = rep.WriteText(c.App.Writer)
		}
		if err != nil {
			return err
		}
		for _, sc := range rep.Scenarios {
			if sc.EvaluatorVariance > 0 {
				return reported{status: exitMismatch}
			}
		}
		return nil
	})
}
