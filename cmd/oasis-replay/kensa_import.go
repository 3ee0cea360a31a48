package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

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
			"the evidence gives. Everything is read and validated before anything is written.\n\n" +
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

func runKensaImport(c *cli.Context) error {
	plan, err := rkensa.PlanImportAll(c.Args().First(), c.Bool("strict"))
	if err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(c.App.ErrWriter, "warning: %v\n", w)
	}
	for _, p := range plan.Problems {
		fmt.Fprintf(c.App.ErrWriter, "not imported: %v\n", p)
	}
	if plan.Relocated > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%d trace(s) not at the path Kensa recorded were found inside %s\n", plan.Relocated, c.Args().First())
	}
	if len(plan.Records) == 0 {
		return fmt.Errorf("%w: %s: no run could be imported", rkensa.ErrImport, c.Args().First())
	}
	err = withStore(c, readWrite, func(s store.Store) error {
		imported, err := rkensa.Import(c.Context, s, plan.Records, version(), c.StringSlice("tag")...)
		if err != nil {
			return err
		}
		if c.Bool("json") {
			if imported == nil {
				imported = []rkensa.Imported{}
			}
			return writeCanonical(c.App.Writer, map[string]any{"runs": imported})
		}
		for _, r := range imported {
			fmt.Fprintf(c.App.Writer, "%s  %s  run %s\n", r.Bundle, r.Scenario, r.RunID)
		}
		fmt.Fprintf(c.App.ErrWriter, "imported %d runs\n", len(imported))
		return nil
	})
	if err == nil && len(plan.Problems) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "partial import: %d file(s) could not be read or used (listed above)\n", len(plan.Problems))
		return reported{status: exitPartial}
	}
	return err
}
