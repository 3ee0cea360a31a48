package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

func kensaImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "seal one bundle per run recorded in a .kensa directory written by Kensa",
		ArgsUsage: "DIR",
		Description: "DIR is a .kensa directory or a directory holding one. Every run of every run manifest\n" +
			"(runs/*.json) becomes a bundle with its scenario, judge spec and dataset pinned, its trace, its\n" +
			"output and the result Kensa recorded (results/<run_id>.json), which audit compares with what\n" +
			"the evidence gives. Runs are read a run at a time (a manifest of any size) and sealed in\n" +
			"batches of 1,000, each bundle complete; an import cut short keeps the batches sealed, and\n" +
			"importing again seals the same bundles.\n\n" +
			"One file that cannot be read or used (a run manifest, a scenario, a results file, a trace)\n" +
			"never loses the others: it is reported on stderr with its path and reason, and every other\n" +
			"run is imported. A run whose trace cannot be read is imported as Kensa records it, an error.\n" +
			"A trace not at the path Kensa recorded is looked for inside DIR (a .kensa directory renamed\n" +
			"or moved, such as a CI artifact unpacked as kensa-results/). What Kensa accepts and a strict\n" +
			"reader would not (an unknown field or check param, a placeholder without a dataset, a param\n" +
			"left to Kensa's default) is a warning; --strict refuses such a scenario.\n\n" +
			"--json prints {\"runs\": [{\"bundle\", \"scenario\", \"run_id\"}, …]}.\n\n" +
			"Exit status: 0 every run was imported; 4 a partial import: every run that could be read was\n" +
			"imported, and the files that could not were reported; 2 on error (no .kensa directory, no\n" +
			"run that could be read, a store that cannot be written: nothing is written).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the sealed bundles as JSON"},
			&cli.BoolFlag{Name: "strict", Usage: "refuse scenarios with what Kensa only tolerates (unknown params, …)"},
			&cli.StringSliceFlag{Name: "tag", Usage: "tag every sealed bundle (repeatable; the last bundle keeps it)"},
		},
		Action: runKensaImport,
	}
}

// importBatch is how many runs kensa import seals at once: memory holds one batch, whatever
// the size of the directory. importMemoryLimit is its soft memory limit ($GOMEMLIMIT
// overrides it): below it the collector runs at Go's pace; the store's own caches (Badger's
// tables and pack encoders) come on top.
const (
	importBatch       = 1000
	importMemoryLimit = 96 << 20
)

func runKensaImport(c *cli.Context) error {
	// One batch in memory: the soft limit makes the collector return each sealed batch's
	// garbage before the heap doubles (peak RSS within the README's 256 MiB at any size).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(importMemoryLimit)
	}
	dir := c.Args().First()
	if err := checkInputs(argInput(c, "DIR", inputfile.Dir)); err != nil {
		return err
	}
	if _, err := rkensa.KensaRoot(dir); err != nil {
		return err // before the store is opened: nothing is written
	}
	var plan *rkensa.ImportPlan
	var imported []rkensa.Imported
	count := 0
	err := withStore(c, readWrite, func(s store.Store) error {
		out := bufio.NewWriter(c.App.Writer)
		var err error
		plan, err = rkensa.ImportStream(c.Context, dir, c.Bool("strict"), importBatch, func(batch []*rkensa.Record) error {
			done, err := rkensa.Import(c.Context, s, batch, version(), c.StringSlice("tag")...)
			if err != nil {
				return err
			}
			count += len(done)
			if c.Bool("json") {
				imported = append(imported, done...)
				return nil
			}
			for _, r := range done {
				fmt.Fprintf(out, "%s  %s  run %s\n", r.Bundle, r.Scenario, r.RunID)
			}
			return out.Flush()
		})
		if err != nil {
			return err
		}
		if c.Bool("json") && count > 0 {
			return writeCanonical(c.App.Writer, map[string]any{"runs": imported})
		}
		return nil
	})
	if plan != nil {
		for _, w := range plan.Warnings {
			fmt.Fprintf(c.App.ErrWriter, "warning: %v\n", w)
		}
		for _, p := range plan.Problems {
			fmt.Fprintf(c.App.ErrWriter, "not imported: %v\n", p)
		}
		if plan.Relocated > 0 {
			fmt.Fprintf(c.App.ErrWriter, "%d trace(s) not at the path Kensa recorded were found inside %s\n", plan.Relocated, dir)
		}
	}
	switch {
	case err != nil:
		return err
	case count == 0:
		return fmt.Errorf("%w: %s: no run could be imported", rkensa.ErrImport, dir)
	}
	fmt.Fprintf(c.App.ErrWriter, "imported %d runs\n", count)
	if len(plan.Problems) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "partial import: %d file(s) could not be read or used (listed above)\n", len(plan.Problems))
		return reported{status: exitPartial}
	}
	return nil
}
