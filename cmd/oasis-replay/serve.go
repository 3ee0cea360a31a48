package main

import "github.com/urfave/cli/v2"

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:        "serve",
		Usage:       "HTTP servers over the store",
		Description: groupExitStatus,
		Subcommands: []*cli.Command{
			serveAPICommand(),
			serveTokenCommand(),
			serveProviderCommand(),
		},
	}
}
