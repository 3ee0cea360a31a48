package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "import, list and show the OASIS profiles runs are pinned to",
		Description: "PROFILE is a profile tree digest, a unique prefix of one (at least 4 hex characters), or\n" +
			"id@version.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{profileImportCommand(), profileLsCommand(), profileShowCommand()},
	}
}

func profileImportCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "validate a profile directory and store every file of it as a profile tree",
		ArgsUsage: "DIR",
		Description: "Every file of DIR is stored; the profile is validated first and every problem is listed.\n" +
			"The tree digest is printed on stdout.\n\n" +
			"Exit status: 0 imported; 1 the store returned other bytes than it was given; 2 bad usage, a\n" +
			"directory that is not a valid profile, a store in use, or any other error.",
		Flags: []cli.Flag{&cli.StringFlag{Name: "commit", Usage: "source repository commit the directory was taken from (40 or 64 hex)"}},
		Action: func(c *cli.Context) error {
			if err := checkInputs(argInput(c, "DIR", inputfile.Dir)); err != nil {
				return err
			}
			return withStore(c, readWrite, func(s store.Store) error {
				dir := c.Args().First()
				p, err := profiledir.Import(c.Context, s, dir, profiles.ImportOptions{SourceCommit: c.String("commit")})
				if err != nil {
					return fmt.Errorf("%s: %w", dir, err)
				}
				fmt.Fprintln(c.App.Writer, p.Pin.Tree)
				fmt.Fprintf(c.App.ErrWriter, "imported %s %s: %d scenarios, %d files, %d warnings\n",
					p.Pin.ID, p.Pin.Version, len(p.Scenarios), len(p.Tree.Entries), len(p.Diagnostics))
				return nil
			})
		},
	}
}

func profileLsCommand() *cli.Command {
	return &cli.Command{
		Name:        "ls",
		Usage:       "list the imported profiles",
		Description: readExitStatus,
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"}},
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				list, err := recorder.ListProfiles(c.Context, s)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					out := []profileJSON{}
					for _, p := range list {
						out = append(out, profileJSON{Tree: p.Tree, ID: p.ID, Version: p.Version, SourceCommit: p.SourceCommit})
					}
					return writeCanonical(c.App.Writer, out)
				}
				if len(list) == 0 {
					noneYet(c, "profiles", "profile import DIR, or record a run, imports one")
				}
				for _, p := range list {
					commit := p.SourceCommit
					if commit == "" {
						commit = "-"
					}
					fmt.Fprintf(c.App.Writer, "%s  %s  %s  %s\n", p.Tree, p.ID, p.Version, commit)
				}
				return nil
			})
		},
	}
}

type profileJSON struct {
	Tree         store.Digest `json:"tree"`
	ID           string       `json:"id"`
	Version      string       `json:"version"`
	SourceCommit string       `json:"source_commit,omitempty"`
}

func profileShowCommand() *cli.Command {
	return &cli.Command{
		Name:        "show",
		Usage:       "print what the evaluator reads of an imported profile: identity, categories, scoring, scenarios, warnings",
		ArgsUsage:   "PROFILE",
		Description: "PROFILE is a profile tree digest, a unique prefix of one, or id@version.\n\n" + readExitStatus,
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				tree, err := recorder.ResolveProfile(c.Context, s, c.Args().First())
				if err != nil {
					return err
				}
				p, err := profiles.LoadTree(c.Context, s, tree)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "tree %s\n", tree)
				return p.WriteSummary(c.App.Writer)
			})
		},
	}
}
