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
//     bundle tagged help;
//   - its usage line names its required flags and its arguments (usageText), and a missing
//     required flag is a bad-usage error naming every one missing (takeRequired);
//   - a path it reads that is a named pipe, a device or a socket is refused before it runs
//     (checkSpecialInputs: its path inputs are read from its definition).
//
// parent is the program's name and the names of the groups above cmds.
func prepareCommands(parent string, cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = usageError
		if len(c.Subcommands) > 0 {
			if c.ArgsUsage == "" {
				c.ArgsUsage = "COMMAND"
			}
			if c.Action == nil {
				c.Action = runGroup
			}
			prepareCommands(parent+" "+c.Name, c.Subcommands)
			continue
		}
		c.UsageText = usageText(parent+" "+c.Name, c)
		c.HideHelpCommand = true
		needed := takeRequired(c)
		_, name, _ := strings.Cut(parent+" "+c.Name, " ") // "record files"
		if action := c.Action; action != nil {
			c.Action = func(ctx *cli.Context) error {
				if err := checkArgs(ctx); err != nil {
					return err
				}
				if err := checkRequired(ctx, needed); err != nil {
					return err
				}
				if err := checkSpecialInputs(ctx, name); err != nil { // the input policy (inputs.go)
					return err
				}
				return action(ctx)
			}
		}
	}
}

// takeRequired takes the Required mark off c's flags, marks their usage "(required)" instead
// (as flags the commands check themselves are marked), and returns them, for checkRequired.
// urfave/cli checks required flags itself, but on a miss it prints the help of whatever command
// the first positional argument names (`bundle export demo` without -o printed demo's help),
// on stdout, before its error. Only the flag types the commands mark Required are handled.
func takeRequired(c *cli.Command) []cli.Flag {
	var needed []cli.Flag
	for _, f := range c.Flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			if f.Required {
				f.Required, f.Usage = false, markRequired(f.Usage)
				needed = append(needed, f)
			}
		case *cli.StringSliceFlag:
			if f.Required {
				f.Required, f.Usage = false, markRequired(f.Usage)
				needed = append(needed, f)
			}
		}
	}
	return needed
}

func markRequired(usage string) string {
	if strings.HasSuffix(usage, "(required)") {
		return usage
	}
	return usage + " (required)"
}

// checkRequired reports, as one bad-usage error, every flag of needed the command line lacks.
func checkRequired(ctx *cli.Context, needed []cli.Flag) error {
	var missing []string
	for _, f := range needed {
		set := false
		for _, n := range f.Names() {
			set = set || ctx.IsSet(n)
		}
		if !set {
			missing = append(missing, flagUsage(f))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return usageErrorf(ctx, "missing required %s %s (see --help)", plural(len(missing), "flag", "flags"), strings.Join(missing, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// usageText is the usage line of the command c, named name: its required flags, each with the
// placeholder of its value, the other options, and its arguments, as in
//
//	oasis-replay receipt verify --key KEY.pub [command options] FILE
func usageText(name string, c *cli.Command) string {
	line := name
	for _, f := range c.Flags {
		if required(f) {
			line += " " + flagUsage(f)
		}
	}
	line += " [command options]"
	if c.ArgsUsage != "" {
		line += " " + c.ArgsUsage
	}
	return line
}

// usageLine is the usage line of a command without subcommands, as its --help shows it.
func usageLine(c *cli.Command) string { return c.UsageText }

// required reports whether a command needs flag f: urfave/cli checks it (Required), or the
// command does, saying so at the end of the flag's usage, "(required)", because its error
// names what goes with it.
func required(f cli.Flag) bool {
	if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
		return true
	}
	d, ok := f.(cli.DocGenerationFlag)
	return ok && strings.HasSuffix(d.GetUsage(), "(required)")
}

// flagUsage writes a flag with the placeholder of its value, the word its usage quotes in
// backquotes (as --help shows it): "--scenario ID", "-o KEY". A flag with a one-letter name is
// written with it.
func flagUsage(f cli.Flag) string {
	name := f.Names()[0]
	for _, n := range f.Names() {
		if len(n) == 1 {
			name = n
		}
	}
	dash := "--"
	if len(name) == 1 {
		dash = "-"
	}
	if d, ok := f.(cli.DocGenerationFlag); ok && d.TakesValue() {
		return dash + name + " " + placeholder(d.GetUsage())
	}
	return dash + name
}

// placeholder is the word a flag's usage quotes in backquotes, which urfave/cli's --help shows
// as the flag's value; "value", as it shows, when there is none.
func placeholder(usage string) string {
	if _, rest, ok := strings.Cut(usage, "`"); ok {
		if word, _, ok := strings.Cut(rest, "`"); ok {
			return word
		}
	}
	return "value"
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
	typed := c.Args().First()
	return usageErrorf(c, "unknown command %q%s: want one of %s (see --help)", typed,
		didYouMean(typed, commandNames(c.Command.Subcommands)), strings.Join(names, ", "))
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
