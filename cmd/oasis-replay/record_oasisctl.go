package main

import (
	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

func recordOasisctlCommand() *cli.Command {
	return &cli.Command{
		Name:      "oasisctl",
		Usage:     "record an oasisctl output directory: report (verdict.json and/or verdict.yaml) and evidence/evidence-<id>.json",
		ArgsUsage: "DIR",
		Description: "The JSON report is the bundle's claimed report, byte-exact; a YAML rendering beside it is kept\n" +
			"as a source and checked to say the same thing. Each scenario the report lists, in its order,\n" +
			"gets the evidence of its artifact; a scenario without one gets a finding quoting the report's\n" +
			"errors. A run configuration (run-config.yaml in DIR, or --run-config) is kept as a source.\n\n" + recordExitStatus,
		Flags: append(recordFlags(), &cli.StringFlag{Name: "run-config", Usage: "oasisctl run configuration file to keep (default: DIR/run-config.yaml if present)"}),
		Action: func(c *cli.Context) error {
			return withRecording(c, []input{argInput(c, "DIR", inputfile.Dir), flagInput(c, "run-config", inputfile.File)}, func(s store.Store, opts recorder.Options) error {
				res, err := recorder.RecordOasisctl(c.Context, s, c.Args().First(), recorder.OasisctlOptions{Options: opts, RunConfig: c.String("run-config")})
				if err != nil {
					return err
				}
				return printRecorded(c, res)
			})
		},
	}
}
