package main

import "github.com/urfave/cli/v2"

func storeCommand() *cli.Command {
	return &cli.Command{
		Name:        "store",
		Usage:       "check, collect and describe the store",
		Description: groupExitStatus,
		Subcommands: []*cli.Command{
			storeFsckCommand(),
			storeGCCommand(),
			storeStatsCommand(),
		},
	}
}
