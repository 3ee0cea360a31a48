package main

import "github.com/urfave/cli/v2"

func bundleCommand() *cli.Command {
	return &cli.Command{
		Name:  "bundle",
		Usage: "list, show, export, import and verify evidence bundles",
		Subcommands: []*cli.Command{
			bundleLsCommand(),
			bundleShowCommand(),
			bundleExportCommand(),
			bundleImportCommand(),
			bundleVerifyCommand(),
		},
	}
}
