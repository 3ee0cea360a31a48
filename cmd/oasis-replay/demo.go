package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/demo"
	"github.com/oasis-replay/oasis-replay/store"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "record, replay and audit the built-in example run, offline, and explain each step",
		Description: "Records the example run embedded in this binary (seven scenarios of the example profile\n" +
			"oasis-replay-example-profile, as the reference runner oasisctl writes them) into the store,\n" +
			"tagged " + demo.DefaultTag + ", replays it with the pure evaluator, stores the verdict and its receipt, audits\n" +
			"the run's claimed report, and prints a short walkthrough with the commands to try next\n" +
			"(bundle show, replay, audit, bundle export on the tag " + demo.DefaultTag + "). It needs no network and no file but\n" +
			"the store, and running it again changes nothing: same bundle, same verdict, same receipt.\n\n" +
			"Exit status: 0 the audit reproduces; 1 it does not, or the store's content does not match its\n" +
			"digests; 2 bad usage or any other error.",
		Action: runDemo,
	}
}

func runDemo(c *cli.Context) error {
	return withStore(c, readWrite, func(s store.Store) error {
		res, err := demo.Run(c.Context, s, demo.Options{Version: version()})
		if err != nil {
			return err
		}
		if err := demo.WriteWalkthrough(c.App.Writer, res, c.String("store"), invocation(c)); err != nil {
			return err
		}
		if !res.Reproduced() {
			return reported{status: exitMismatch}
		}
		return nil
	})
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
