package main

import (
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
	if err := wantArgs(c, 0); err != nil {
		return err
	}
	return withStore(c, readWrite, func(s store.Store) error {
		res, err := demo.Run(c.Context, s, demo.Options{Version: version()})
		if err != nil {
			return err
		}
		if err := demo.WriteWalkthrough(c.App.Writer, res, c.String("store")); err != nil {
			return err
		}
		if !res.Reproduced() {
			return reported{status: exitMismatch}
		}
		return nil
	})
}
