package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// prepareCommands gives every command of the tree the behaviour all commands share, so that
// no command has to remember it and a new command gets it too:
//   - a flag-parsing error is a short bad-usage error naming the command (exit status 2), not
//     urfave/cli's help dump on stdout;
//   - a command with subcommands (a group) names them in its usage line, and rejects an
//     unknown one as bad usage;
//   - a command without subcommands checks its number of positional arguments against its
//     ArgsUsage before it runs, and has no "help" subcommand, so that `replay help` replays the
//     bundle tagged help.
func prepareCommands(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = usageError
		if len(c.Subcommands) > 0 {
			if c.ArgsUsage == "" {
				c.ArgsUsage = "COMMAND"
			}
			if c.Action == nil {
				c.Action = runGroup
			}
			prepareCommands(c.Subcommands)
			continue
		}
		c.HideHelpCommand = true
		if action := c.Action; action != nil {
			c.Action = func(ctx *cli.Context) error {
				if err := checkArgs(ctx); err != nil {
					return err
				}
				return action(ctx)
			}
		}
	}
}

// runGroup runs a command that only groups others (the program itself is one) when no
// subcommand was named: without arguments it shows its help, with an unknown command name it is
// bad usage.
func runGroup(c *cli.Context) error {
	root := c.Command.HelpName == c.App.HelpName
	if !c.Args().Present() {
		if root {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	var names []string
	for _, sub := range c.Command.Subcommands {
		if !sub.Hidden && sub.Name != "help" {
			names = append(names, sub.Name)
		}
	}
	return usageErrorf(c, "unknown command %q: want one of %s (see --help)", c.Args().First(), strings.Join(names, ", "))
}

// argCount is how many positional arguments an ArgsUsage admits.
type argCount struct {
	min, max int // max < 0: no limit
}

// parseArgsUsage reads a command's ArgsUsage: space-separated words, each one argument (FILE,
// FILE|BUNDLE); a word in brackets is optional ([FILE]); a word ending in "..." or "…" may
// repeat (FILE..., [FILE…]).
func parseArgsUsage(usage string) (argCount, error) {
	var n argCount
	for _, w := range strings.Fields(usage) {
		optional := strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]")
		if optional {
			w = w[1 : len(w)-1]
		}
		repeats := strings.HasSuffix(w, "...") || strings.HasSuffix(w, "…")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "..."), "…")
		if w == "" || strings.ContainsAny(w, "[]") {
			return n, fmt.Errorf("ArgsUsage %q: malformed word", usage)
		}
		if n.max < 0 {
			return n, fmt.Errorf("ArgsUsage %q: an argument after a repeated one", usage)
		}
		if !optional {
			if n.max != n.min {
				return n, fmt.Errorf("ArgsUsage %q: a required argument after an optional one", usage)
			}
			n.min++
		}
		n.max++
		if repeats {
			n.max = -1
		}
	}
	return n, nil
}

// checkArgs checks the number of positional arguments against the command's ArgsUsage.
func checkArgs(c *cli.Context) error {
	n, err := parseArgsUsage(c.Command.ArgsUsage)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Command.HelpName, err) // a defect of the command's definition
	}
	got := c.NArg()
	switch {
	case n.max == 0 && got > 0:
		return argsError(c, "takes no arguments, got %q", c.Args().Slice())
	case got < n.min:
		return argsError(c, "missing %s", strings.Join(strings.Fields(c.Command.ArgsUsage)[got:n.min], " "))
	case n.max >= 0 && got > n.max:
		return argsError(c, "too many arguments: want %d, got %d", n.max, got)
	}
	return nil
}
