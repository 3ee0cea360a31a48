package main

import "github.com/urfave/cli/v2"

// programVersion is the version of this build of the CLI.
const programVersion = "0.1.0"

func version() string { return programVersion }

// versionCommand is `oasis-replay version`, the same as `oasis-replay --version`.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:        "version",
		Usage:       "print the version (as --version does)",
		Description: "Exit status: 0.",
		Action: func(c *cli.Context) error {
			cli.ShowVersion(c)
			return nil
		},
	}
}
