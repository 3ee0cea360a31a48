package main

import "github.com/urfave/cli/v2"

func kensaStatsCommand() *cli.Command {
	return &cli.Command{Name: "stats", Action: func(c *cli.Context) error { return nil }}
}
