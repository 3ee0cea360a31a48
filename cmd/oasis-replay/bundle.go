package main

import "github.com/urfave/cli/v2"

func bundleCommand() *cli.Command {
	return &cli.Command{
		Name:  "bundle",
		Usage: "list, show, export, import, verify, push and pull evidence bundles",
		Description: "BUNDLE is a digest (sha256:<64 hex>), a unique digest prefix (at least 4 hex characters),\n" +
			"or a tag.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{
			bundleLsCommand(),
			bundleShowCommand(),
			bundleExportCommand(),
			bundleImportCommand(),
			bundleVerifyCommand(),
			bundlePushCommand(),
			bundlePullCommand(),
		},
	}
}
