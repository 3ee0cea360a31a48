package main

import "github.com/urfave/cli/v2"

func kensaCommand() *cli.Command {
	return &cli.Command{
		Name:  "kensa",
		Usage: "Kensa scenarios: execute and record runs, import a .kensa directory, variance statistics",
		Description: "A Kensa run is sealed as a bundle of its own (one scenario, one dataset row, one repeat).\n" +
			"replay BUNDLE re-derives its checks with Kensa's semantics; audit BUNDLE compares them with the\n" +
			"result Kensa recorded, for imported runs.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{kensaRunCommand(), kensaImportCommand(), kensaReplayCommand(), kensaStatsCommand()},
	}
}
