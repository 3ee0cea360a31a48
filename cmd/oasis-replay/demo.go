package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/demo"
	"github.com/oasis-replay/oasis-replay/store"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "record, replay and audit built-in examples of all three kinds, offline, and explain each step",
		ArgsUsage: "[oasis|kensa|eval]",
		Description: "Runs, on the store, one walkthrough per kind of evaluation (or the one named), and prints\n" +
			"what each step did and the commands to try next. It needs no network and no file but the store.\n\n" +
			"  oasis  records the example run embedded in this binary (seven scenarios of the example profile\n" +
			"         oasis-replay-example-profile, as the reference runner oasisctl writes them), tagged\n" +
			"         " + demo.DefaultTag + ", replays it with the pure evaluator, stores the verdict and its receipt, and\n" +
			"         audits the run's claimed report. Running it again changes nothing.\n" +
			"  kensa  runs a two-scenario Kensa project as kensa run does, the program itself acting as the\n" +
			"         scripted agent (" + demo.ProgramName + " demo-agent -- kensa), each scenario " + fmt.Sprint(demo.KensaRuns) + " times; one\n" +
			"         scenario is flaky. Each run is replayed to the status it was recorded with, and kensa\n" +
			"         stats shows the variance. Each time adds " + fmt.Sprint(2*demo.KensaRuns) + " runs (tag " + demo.KensaTag + "-<scenario>).\n" +
			"  eval   adds two Eval Library scenarios and runs the matrix of baseline, " + strings.Join(demo.EvalVariations, ", ") + "\n" +
			"         with the program as the scripted agent (" + demo.EvalAgentCommand + "), which gives in to\n" +
			"         authority bias on the critical scenario: that cell is flagged and queued for review. The\n" +
			"         matrix is replayed; runs are reused, so running it again changes nothing.\n\n" +
			"Exit status: 0 every walkthrough reproduces; 1 one does not, or the store's content does not\n" +
			"match its digests; 2 bad usage or any other error.",
		Action: runDemo,
	}
}

// demoKinds are the walkthroughs, in the order demo without an argument runs them.
var demoKinds = []string{"oasis", "kensa", "eval"}

func runDemo(c *cli.Context) error {
	kinds := demoKinds
	if arg := c.Args().First(); arg != "" {
		if !slices.Contains(demoKinds, arg) {
			return argsError(c, "unknown walkthrough %q: want oasis, kensa or eval", arg)
		}
		kinds = []string{arg}
	}
	return withStore(c, readWrite, func(s store.Store) error {
		work, err := os.MkdirTemp("", "oasis-replay-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(work)
		program, err := os.Executable()
		if err != nil {
			return err
		}
		reproduced := true
		for i, kind := range kinds {
			if i > 0 {
				fmt.Fprintf(c.App.Writer, "\n%s\n\n", strings.Repeat("─", 78))
			}
			ok, err := runDemoKind(c, s, kind, filepath.Join(work, kind), program)
			if err != nil {
				return err
			}
			reproduced = reproduced && ok
		}
		if len(kinds) > 1 {
			fmt.Fprintf(c.App.Writer, "\nEach walkthrough runs alone too: %s demo oasis|kensa|eval\n", invocation(c))
		}
		if !reproduced {
			return reported{status: exitMismatch}
		}
		return nil
	})
}

// runDemoKind runs one walkthrough and prints it; it reports whether it reproduced.
func runDemoKind(c *cli.Context, s store.Store, kind, work, program string) (bool, error) {
	if err := os.MkdirAll(work, 0o700); err != nil {
		return false, err
	}
	switch kind {
	case "kensa":
		res, err := demo.RunKensa(c.Context, s, demo.KensaOptions{Program: program, Work: work, Version: version()})
		if err != nil {
			return false, err
		}
		return res.Reproduced(), demo.WriteKensaWalkthrough(c.App.Writer, res, invocation(c))
	case "eval":
		res, err := demo.RunEval(c.Context, s, demo.EvalOptions{Program: program, Work: work, Version: version()})
		if err != nil {
			return false, err
		}
		return res.Reproduced, demo.WriteEvalWalkthrough(c.App.Writer, res, invocation(c))
	}
	res, err := demo.Run(c.Context, s, demo.Options{Version: version()})
	if err != nil {
		return false, err
	}
	return res.Reproduced(), demo.WriteWalkthrough(c.App.Writer, res, c.String("store"), invocation(c))
}

// programKey is the key of the App's Metadata that holds the program's name as invoked.
const programKey = "program"

// invocation is how to run this program again on the store the command used, for commands the
// output suggests: the program as it was invoked (oasis-replay from PATH, ./bin/oasis-replay
// in a clone after make build), followed by --store DIR unless the store is the one the next
// command finds by itself (the default, or $OASIS_REPLAY_STORE).
func invocation(c *cli.Context) string {
	program, _ := c.App.Metadata[programKey].(string)
	if program == "" {
		program = c.App.Name
	}
	cmd := shellQuote(program)
	if dir := c.String("store"); dir != defaultStoreDir() && dir != os.Getenv(storeEnvVar) {
		cmd += " --store " + shellQuote(dir)
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain path characters.
func shellQuote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
