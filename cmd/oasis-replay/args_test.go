package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestFlagsFirst(t *testing.T) {
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	tests := []struct {
		name     string
		in, want string
	}{
		{"flags first already", "--store S bundle export -o F ID", "--store S bundle export -o F ID"},
		{"value flag after the argument", "bundle export ID -o F", "bundle export -o F ID"},
		{"name=value after the argument", "bundle export ID -o=F --receipt=R", "bundle export -o=F --receipt=R ID"},
		{"long name, two dashes or one", "bundle export ID --output F -receipt R", "bundle export --output F -receipt R ID"},
		{"global flag after the command", "bundle ls --store S --json", "--store S bundle ls --json"},
		{"global flag after the argument", "replay ID --store=S", "--store=S replay ID"},
		{"repeated flags keep their order", "replay ID --scenario a --json --scenario b", "replay --scenario a --json --scenario b ID"},
		{"combined short booleans", "store gc -nv", "store gc -nv"},
		{"combined short booleans after a global", "store gc --store S -vn", "--store S store gc -vn"},
		{"-v is the command's own flag, not --version", "store gc -v", "store gc -v"},
		{"a value that starts with a dash", "record files --scenario s --redact -secret- --tag t", "record files --scenario s --redact -secret- --tag t"},
		{"a value that names a command", "--store bundle bundle ls", "--store bundle bundle ls"},
		{"-- ends the flags", "bundle verify -- --json", "bundle verify -- --json"},
		{"-- after an argument", "bundle import F --tags -- -x", "bundle import --tags -- F -x"},
		{"- is an argument", "bundle import - --tags", "bundle import --tags -"},
		{"unknown flag stays with the command, without a value", "replay ID --bogus x", "replay --bogus ID x"},
		{"help after the argument", "replay ID --help", "replay --help ID"},
		{"help on a group", "bundle -h", "bundle -h"},
		{"version", "--version", "--version"},
		{"a value flag at the end without its value", "bundle export ID -o", "bundle export -o ID"},
		{"completion stays last", "bundle export ID -o F --generate-bash-completion", "bundle export -o F ID --generate-bash-completion"},
		{"not a command after an argument", "replay bundle ls", "replay bundle ls"},
		{"help command", "help replay", "help replay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flagsFirst(app, append([]string{"oasis-replay"}, strings.Fields(tt.in)...))
			want := append([]string{"oasis-replay"}, strings.Fields(tt.want)...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("flagsFirst(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestFlagsAnywhereEveryCommand walks the command tree, so that a new command or flag is
// covered without editing this test: for every command, every flag it defines (and the
// program's global flags, --store) is given before the positional arguments, after them, after
// them in the --name=value form, and mixed among them; each way, the command must receive the
// same arguments and flag values, and every flag must have been set.
func TestFlagsAnywhereEveryCommand(t *testing.T) {
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, io.Discard)
	leaves := 0
	walkCommands(app.Commands, nil, func(path []string, c *cli.Command) {
		if len(c.Subcommands) > 0 {
			return
		}
		leaves++
		t.Run(strings.Join(path, " "), func(t *testing.T) {
			n, err := parseArgsUsage(c.ArgsUsage)
			if err != nil {
				t.Fatal(err)
			}
			var positional []string
			for i := range max(n.min, 1) {
				if n.max < 0 || i < n.max {
					positional = append(positional, fmt.Sprintf("arg%d", i+1))
				}
			}
			long, short, equals := flagArgs(t, c.Flags)
			globalLong, globalShort, globalEquals := flagArgs(t, app.Flags)
			half, first := len(long)/2, min(1, len(positional))
			forms := map[string][]string{
				"before": slices.Concat(slices.Concat(globalLong...), path, slices.Concat(long...), positional),
				"after":  slices.Concat(path, positional, slices.Concat(short...), slices.Concat(globalShort...)),
				"equals": slices.Concat(path, positional, slices.Concat(equals...), slices.Concat(globalEquals...)),
				"mixed": slices.Concat(path, positional[:first], slices.Concat(long[:half]...), slices.Concat(globalLong...),
					positional[first:], slices.Concat(long[half:]...)),
			}
			want := parseWith(t, forms["before"])
			if !slices.Equal(want.args, positional) || want.flags["store"].value != "v-store" {
				t.Fatalf("flags first: arguments %q, --store %q", want.args, want.flags["store"].value)
			}
			for name, v := range want.flags {
				if !v.set {
					t.Errorf("flags first: --%s was given but is not set", name)
				}
			}
			for _, form := range slices.Sorted(maps.Keys(forms)) {
				if diff := cmp.Diff(want, parseWith(t, forms[form]), cmp.AllowUnexported(parsed{}, flagValue{})); diff != "" {
					t.Errorf("%s: %q parses differently from flags first (-first +%s):\n%s", form, forms[form], form, diff)
				}
			}
		})
	})
	if leaves < 19 {
		t.Fatalf("walked %d commands", leaves)
	}
}

// parsed is what a command received: its arguments, and its flags and the program's.
type parsed struct {
	args  []string
	flags map[string]flagValue
}

type flagValue struct {
	set   bool
	value string
}

// parseWith runs the program on args (after its name) with every command's action replaced
// by one that records what it received.
func parseWith(t *testing.T, args []string) parsed {
	t.Helper()
	var stderr bytes.Buffer
	app := newApp("oasis-replay", strings.NewReader(""), io.Discard, &stderr)
	var got parsed
	walkCommands(app.Commands, nil, func(_ []string, c *cli.Command) {
		c.Action = func(ctx *cli.Context) error {
			got = parsed{args: ctx.Args().Slice(), flags: map[string]flagValue{}}
			for _, f := range slices.Concat(ctx.Command.Flags, ctx.App.Flags) {
				name := f.Names()[0]
				value := ctx.Value(name)
				if _, slice := f.(*cli.StringSliceFlag); slice {
					value = ctx.StringSlice(name)
				}
				if name != "help" && name != "version" { // added by urfave/cli, not given
					got.flags[name] = flagValue{set: ctx.IsSet(name), value: fmt.Sprint(value)}
				}
			}
			return nil
		}
	})
	argv := append([]string{"oasis-replay"}, args...)
	if err := app.RunContext(context.Background(), flagsFirst(app, argv)); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, stderr.String())
	}
	return got
}

// flagArgs writes every flag of a command with a value of its type, one group of arguments
// per flag: by its long name (--name value), by its shortest name (-o value), and as
// --name=value. A slice flag is given twice.
func flagArgs(t *testing.T, flags []cli.Flag) (long, short, equals [][]string) {
	t.Helper()
	for _, f := range flags {
		names := f.Names()
		shortest := slices.MinFunc(names, func(a, b string) int { return len(a) - len(b) })
		values, ok := sampleValues(f)
		if !ok {
			t.Errorf("flag --%s has type %T: give sampleValues a value for it", names[0], f)
			continue
		}
		if len(values) == 0 { // a boolean
			long = append(long, []string{"--" + names[0]})
			short = append(short, []string{dash(shortest)})
			equals = append(equals, []string{"--" + names[0] + "=true"})
		}
		for _, v := range values {
			long = append(long, []string{"--" + names[0], v})
			short = append(short, []string{dash(shortest), v})
			equals = append(equals, []string{"--" + names[0] + "=" + v})
		}
	}
	return long, short, equals
}

func dash(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// sampleValues returns the values to give a flag of f's type: none for a boolean, two for a
// slice, one otherwise; false for a type it does not know.
func sampleValues(f cli.Flag) ([]string, bool) {
	name := f.Names()[0]
	switch f.(type) {
	case *cli.BoolFlag:
		return nil, true
	case *cli.StringFlag, *cli.PathFlag:
		return []string{"v-" + name}, true
	case *cli.StringSliceFlag:
		return []string{"a-" + name, "b-" + name}, true
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return []string{"7"}, true
	case *cli.DurationFlag:
		return []string{"3s"}, true
	case *cli.Float64Flag:
		return []string{"1.5"}, true
	}
	return nil, false
}

// walkCommands calls visit on every command of the tree, parents first, with the names that
// lead to it.
func walkCommands(cmds []*cli.Command, path []string, visit func(path []string, c *cli.Command)) {
	for _, c := range cmds {
		p := append(slices.Clone(path), c.Name)
		visit(p, c)
		walkCommands(c.Subcommands, p, visit)
	}
}
