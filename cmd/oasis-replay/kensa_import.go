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
			"--json prints {\"runs\": [{\"bundle\", \"scenario\", \"run_id\"}, …]}.\n\n" +
			"Exit status: 0 every run was imported; 2 on error (bad input: nothing is written).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the sealed bundles as JSON"},
			&cli.StringSliceFlag{Name: "tag", Usage: "tag every sealed bundle (repeatable; the last bundle keeps it)"},
		},
		Action: runKensaImport,
	}
}

func runKensaImport(c *cli.Context) error {
	records, err := rkensa.PlanImport(c.Args().First())
	if err != nil {
		return err
	}
	return withStore(c, readWrite, func(s store.Store) error {
		imported, err := rkensa.Import(c.Context, s, records, version(), c.StringSlice("tag")...)
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
}
