package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the flag a shell's completion script appends as the last argument; urfave/cli
// looks for it there.
const completionFlag = "--generate-bash-completion"

// flagsFirst returns the command line args (args[0] is the program) with every flag moved
// before the positional arguments, next to the command that defines it, so that flags may be
// written anywhere: `bundle export BUNDLE -o FILE` becomes `bundle export -o FILE BUNDLE`, and
// `bundle ls --store DIR` becomes `--store DIR bundle ls`. urfave/cli v2 stops reading flags at
// the first positional argument (its issues #976 and #1177); this puts them where it reads them.
//
// It is driven by the command tree's own flag definitions: a flag belongs to the innermost
// command on the path that defines it (the global --store to the program), and takes the next
// argument as its value unless it is a boolean or is written --name=value. Relative order is
// kept within each command, so repeated flags (--tag a --tag b) keep theirs. "--" ends the
// flags: everything after it is positional and keeps its "--". A flag no command defines stays
// with the innermost command, which reports it; combined short flags (-nv) are split as
// urfave/cli splits them.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	rest := args[1:]
	complete := rest[len(rest)-1] == completionFlag
	if complete {
		rest = rest[:len(rest)-1]
	}
	path := []*argLevel{{flags: rootFlags(app), commands: app.Commands}}
	var positional []string
	endOfFlags := false
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		switch {
		case endOfFlags:
			positional = append(positional, arg)
		case arg == "--":
			endOfFlags = true
		case isFlag(arg):
			level, takesValue := lookupFlag(path, arg, app.UseShortOptionHandling)
			level.args = append(level.args, arg)
			if takesValue && i+1 < len(rest) {
				i++
				level.args = append(level.args, rest[i])
			}
		default:
			if sub := path[len(path)-1].subcommand(arg); sub != nil && len(positional) == 0 {
				path = append(path, &argLevel{name: arg, flags: commandFlags(sub), commands: sub.Subcommands})
				continue
			}
			positional = append(positional, arg)
		}
	}
	out := []string{args[0]}
	for i, level := range path {
		if i > 0 {
			out = append(out, level.name)
		}
		out = append(out, level.args...)
	}
	if endOfFlags {
		out = append(out, "--")
	}
	out = append(out, positional...)
	if complete {
		out = append(out, completionFlag)
	}
	return out
}

// argLevel is the program or one command on the path of the command line: the flags it
// defines and the flag arguments given for it.
type argLevel struct {
	name     string // as written on the command line; "" for the program
	flags    []cli.Flag
	commands []*cli.Command
	args     []string
}

func (l *argLevel) subcommand(name string) *cli.Command {
	for _, c := range l.commands {
		if slices.Contains(c.Names(), name) {
			return c
		}
	}
	return nil
}

// rootFlags are the program's flags, with the --help and --version urfave/cli adds.
func rootFlags(app *cli.App) []cli.Flag {
	flags := slices.Clone(app.Flags)
	if !app.HideHelp {
		flags = append(flags, cli.HelpFlag)
	}
	if !app.HideVersion {
		flags = append(flags, cli.VersionFlag)
	}
	return flags
}

// commandFlags are a command's flags, with the --help urfave/cli adds.
func commandFlags(c *cli.Command) []cli.Flag {
	if c.HideHelp {
		return c.Flags
	}
	return append(slices.Clone(c.Flags), cli.HelpFlag)
}

// isFlag reports whether a command-line argument is a flag ("-" alone is an argument: stdin).
func isFlag(arg string) bool { return len(arg) > 1 && arg[0] == '-' }

// lookupFlag finds the innermost level on path that defines the flag arg, and whether arg is
// followed by a value of its own. An undefined flag goes to the innermost level, without value.
func lookupFlag(path []*argLevel, arg string, shortOptions bool) (*argLevel, bool) {
	name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	for i := len(path) - 1; i >= 0; i-- {
		if f := findFlag(path[i].flags, name); f != nil {
			return path[i], !hasValue && takesValue(f)
		}
	}
	if shortOptions && !hasValue && !strings.HasPrefix(arg, "--") {
		for i := len(path) - 1; i >= 0; i-- {
			if ok, value := shortCombination(path[i].flags, name); ok {
				return path[i], value
			}
		}
	}
	return path[len(path)-1], false
}

// shortCombination reports whether name is several one-letter flags written together (-nv), as
// urfave/cli splits them, and whether the last one takes the next argument as its value.
func shortCombination(flags []cli.Flag, name string) (ok, value bool) {
	if len(name) < 2 {
		return false, false
	}
	for i, r := range name {
		f := findFlag(flags, string(r))
		if f == nil {
			return false, false
		}
		value = takesValue(f)
		if value && i != len(name)-1 {
			return false, false
		}
	}
	return true, value
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// takesValue reports whether a flag reads a value (every flag but a boolean does).
func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return !ok || d.TakesValue()
}
