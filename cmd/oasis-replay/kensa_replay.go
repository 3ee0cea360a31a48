package main

import (
	"bufio"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

func kensaReplayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "re-derive the verdict of every recorded Kensa run in one process, and store the receipts",
		ArgsUsage: "[SCENARIO…]",
		Description: "replay BUNDLE for every Kensa run in the store (only the SCENARIOs named, if any): each run's\n" +
			"checks re-derived from its evidence, its verdict and receipt stored (verdict objects, receipt\n" +
			"objects and receipts/<hex> refs) unless --no-store. Runs are loaded and evaluated\n" +
			"concurrently, and listed in digest order: bundle, scenario (and dataset row), status, verdict.\n\n" +
			"--json prints {\"runs\": [{\"bundle\", \"scenario\", \"case\", \"run_id\", \"status\", \"verdict\",\n" +
			"\"receipt\"}, …]}.\n\n" +
			"Exit status: 0 every verdict was derived (whatever it is); 1 the store's content does not match\n" +
			"its digests; 2 bad usage or unreadable evidence.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the runs as JSON"},
			&cli.BoolFlag{Name: "no-store", Usage: "do not store verdicts and receipts (the store is opened read-only)"},
		},
		Action: runKensaReplay,
	}
}

func runKensaReplay(c *cli.Context) error {
	noStore := c.Bool("no-store")
	return withStore(c, accessFor(noStore), func(s store.Store) error {
		runs, err := replay.ReplayAllKensa(c.Context, s, c.Args().Slice(), !noStore || c.Bool("json"))
		if err != nil {
			return err
		}
		if !noStore {
			if err := replay.SaveAllKensa(c.Context, s, runs); err != nil {
				return err
			}
		}
		if c.Bool("json") {
			if runs == nil {
				runs = []replay.KensaReplayed{}
			}
			return writeCanonical(c.App.Writer, map[string]any{"runs": runs})
		}
		w := bufio.NewWriter(c.App.Writer) // one write for all the lines, not one per run
		for _, r := range runs {
			subject := r.Scenario
			if r.Case > 0 {
				subject = fmt.Sprintf("%s row %d", r.Scenario, r.Case)
			}
			fmt.Fprintf(w, "%s  %s  %s  verdict %s\n", r.Bundle, subject, r.Status, r.Verdict)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		stored := "stored"
		if noStore {
			stored = "not stored (--no-store)"
		}
		fmt.Fprintf(c.App.ErrWriter, "%d runs replayed; verdicts and receipts %s\n", len(runs), stored)
		return nil
	})
}
