package main

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestParseArgsUsage(t *testing.T) {
	tests := []struct {
		usage    string
		min, max int
		bad      bool
	}{
		{usage: "", min: 0, max: 0},
		{usage: "BUNDLE", min: 1, max: 1},
		{usage: "FILE|BUNDLE", min: 1, max: 1},
		{usage: "SRC DST", min: 2, max: 2},
		{usage: "BUNDLE [FILE]", min: 1, max: 2},
		{usage: "FILE...", min: 1, max: -1},
		{usage: "DIR [FILE...]", min: 1, max: -1},
		{usage: "[PATH…]", min: 0, max: -1},
		{usage: "[FILE] DIR", bad: true},
		{usage: "FILE... DIR", bad: true},
		{usage: "[]", bad: true},
		{usage: "[FILE", bad: true},
	}
	for _, tt := range tests {
		n, err := parseArgsUsage(tt.usage)
		if tt.bad {
			if err == nil {
				t.Errorf("%q: no error", tt.usage)
			}
			continue
		}
		if err != nil || n.min != tt.min || n.max != tt.max {
			t.Errorf("%q: %+v, %v; want min %d max %d", tt.usage, n, err, tt.min, tt.max)
		}
	}
}

// wantUsage is the usage line of the command at path: its required flags with their values'
// placeholders, the options, its arguments. It is written here from the flags' own
// declarations, so that a command whose usage line leaves out a required flag fails.
func wantUsage(t *testing.T, path []string, c *cli.Command) string {
	t.Helper()
	line := "oasis-replay " + strings.Join(path, " ")
	for _, f := range c.Flags {
		d, ok := f.(cli.DocGenerationFlag)
		r, isRequiredFlag := f.(cli.RequiredFlag)
		if !ok || !(isRequiredFlag && r.IsRequired() || strings.HasSuffix(d.GetUsage(), "(required)")) {
			continue
		}
		_, quoted, hasPlaceholder := strings.Cut(d.GetUsage(), "`")
		value, _, _ := strings.Cut(quoted, "`")
		if !hasPlaceholder || value == "" {
			t.Errorf("%s: the required flag --%s names no value: quote it in its Usage (\"the `FILE` to read\")", line, f.Names()[0])
		}
		flag := "--" + f.Names()[0]
		for _, n := range f.Names() {
			if len(n) == 1 {
				flag = "-" + n
			}
		}
		line += " " + flag + " " + value
	}
	line += " [command options]"
	if c.ArgsUsage != "" {
		line += " " + c.ArgsUsage
	}
	return line
}

// TestEveryCommandNamesItsArguments walks the command tree: every ArgsUsage is well formed, a
// command whose ArgsUsage is empty rejects an argument (so one that takes arguments cannot
// leave its usage line without them), a command that takes arguments says which one is
// missing and shows its usage line, which names its required flags too, and a group names
// COMMAND.
func TestEveryCommandNamesItsArguments(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store")
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	walkCommands(app.Commands, nil, func(path []string, c *cli.Command) {
		name := strings.Join(path, " ")
		if len(c.Subcommands) > 0 {
			if c.ArgsUsage != "COMMAND" {
				t.Errorf("%s groups commands; its ArgsUsage is %q, want COMMAND", name, c.ArgsUsage)
			}
			return
		}
		n, err := parseArgsUsage(c.ArgsUsage)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		args := slices.Concat([]string{"--store", store}, path, requiredFlags(c))
		if n.max == 0 {
			status, _, stderr := runArgs(append(args, "stray")...)
			if status != exitError || !strings.Contains(stderr, name+": takes no arguments") {
				t.Errorf("%s has no ArgsUsage but accepts an argument (exit %d, %s): name its arguments in ArgsUsage",
					name, status, stderr)
			}
		}
		if n.min > 0 {
			want := name + ": missing " + strings.Join(strings.Fields(c.ArgsUsage)[:n.min], " ") + " (usage: " + wantUsage(t, path, c) + ")"
			if status, _, stderr := runArgs(args...); status != exitError || !strings.Contains(stderr, want) {
				t.Errorf("%s without arguments: exit %d, %s; want %q", name, status, stderr, want)
			}
		}
	})
}

// TestEveryCommandHelpStatesExitStatus: every command's --help, the program's own included,
// says how it exits, and its usage line names its required flags and its arguments.
func TestEveryCommandHelpStatesExitStatus(t *testing.T) {
	status, stdout, _ := runArgs("--help")
	if status != exitOK || !strings.Contains(stdout, "EXIT STATUS:") {
		t.Errorf("oasis-replay --help: exit %d, no EXIT STATUS:\n%s", status, stdout)
	}
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	walkCommands(app.Commands, nil, func(path []string, c *cli.Command) {
		name := strings.Join(path, " ")
		status, stdout, stderr := runArgs(append(slices.Clone(path), "--help")...)
		if status != exitOK {
			t.Errorf("%s --help: exit %d: %s", name, status, stderr)
			return
		}
		if !strings.Contains(stdout, "Exit status:") {
			t.Errorf("%s --help states no exit status: end its Description with \"Exit status: …\"\n%s", name, stdout)
		}
		if len(c.Subcommands) == 0 && !strings.Contains(stdout, "\n   "+wantUsage(t, path, c)+"\n") {
			t.Errorf("%s --help: the usage line is not %q:\n%s", name, wantUsage(t, path, c), stdout)
		}
		if len(c.Subcommands) > 0 && !strings.Contains(stdout, "oasis-replay "+name+" [command options] "+c.ArgsUsage) {
			t.Errorf("%s --help: the usage line does not name %s:\n%s", name, c.ArgsUsage, stdout)
		}
	})
}

// requiredFlags gives a value to each flag of c that urfave/cli requires, so that the command
// gets as far as checking its arguments.
func requiredFlags(c *cli.Command) []string {
	var args []string
	for _, f := range c.Flags {
		if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
			args = append(args, "--"+f.Names()[0], "x")
		}
	}
	return args
}

// runArgs runs the program with args after its name.
func runArgs(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = run(append([]string{"oasis-replay"}, args...), strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}
