package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func storeGCCommand() *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "remove blobs, objects and chunks that no ref reaches",
		Description: "Exit status: 0 collected (or, with --dry-run, listed); 1 the store's content does not match\n" +
			"its digests; 2 bad usage, a store that cannot be opened or is in use, or any other error.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "list what would be removed, remove nothing"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "list every removed entry"},
		},
		Action: func(c *cli.Context) error {
			return withStore(c, accessFor(c.Bool("dry-run")), func(s store.Store) error {
				report, err := store.GC(c.Context, s, store.GCOptions{DryRun: c.Bool("dry-run")})
				if err != nil {
					return err
				}
				verb := "removed"
				if report.DryRun {
					verb = "would remove"
				}
				if c.Bool("verbose") || report.DryRun {
					for _, e := range report.Removed {
						kind := string(e.Kind)
						if kind == "" {
							kind = "blob"
							if e.Chunk {
								kind = "chunk"
							}
						}
						fmt.Fprintf(c.App.Writer, "%s %s %s (%s)\n", verb, kind, e.Digest, humanBytes(e.Size))
					}
				}
				for _, p := range report.Missing {
					fmt.Fprintf(c.App.ErrWriter, "warning: %s\n", p.String())
				}
				fmt.Fprintf(c.App.Writer, "%s %d entries (%s, %s stored); kept %d reachable from %d refs\n",
					verb, len(report.Removed), humanBytes(report.RemovedBytes), humanBytes(report.RemovedStored),
					report.Kept, report.Roots)
				return nil
			})
		},
	}
}
