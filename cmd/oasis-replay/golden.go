package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/golden"
)

// sharedEnvVar names the shared test data directory that golden recipes call $SHARED.
const sharedEnvVar = "OASIS_REPLAY_SHARED"

func goldenCommand() *cli.Command {
	return &cli.Command{
		Name:  "golden",
		Usage: "check or rewrite a determinism corpus: bundles with their golden bundle digests, verdicts and receipts",
		Description: "A corpus is a directory of cases: <name>.recipe.yaml (how to record the bundle) or\n" +
			"<name>.bundle.tar.zst (an exported bundle), with the golden outputs <name>.bundle,\n" +
			"<name>.verdict.json and <name>.receipt.json. Each case is built in a temporary in-memory store\n" +
			"(never the --store one), evaluated --runs times under varying GOMAXPROCS, worker counts and\n" +
			"scenario orders, and must give one verdict; see the documentation of package golden for the\n" +
			"recipe format. Recipes name the shared test data $SHARED (--shared) and the embedded example\n" +
			"$EXAMPLE. Without --shared or $OASIS_REPLAY_SHARED, the shared test data is looked for as the\n" +
			"project's tests look for it: a directory named shared beside the repository (the nearest\n" +
			"directory above the corpus, or else the working directory, holding a go.mod). Cases whose\n" +
			"shared inputs are unavailable are skipped, reported, and make the exit status 1 unless\n" +
			"--allow-skip.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{goldenCheckCommand(), goldenUpdateCommand()},
	}
}

// goldenFlags are the flags of both golden commands.
func goldenFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "shared", EnvVars: []string{sharedEnvVar}, Usage: "shared test data `DIR` that recipes call $SHARED (default: ../shared beside the repository holding the corpus, if present)"},
		&cli.BoolFlag{Name: "allow-skip", Usage: "exit 0 even when cases are skipped because their shared test data is unavailable"},
		&cli.StringSliceFlag{Name: "case", Usage: "run only case `NAME` (repeatable)"},
		&cli.IntFlag{Name: "runs", Value: golden.DefaultRuns, Usage: "evaluate each case `N` times (at least 2) to prove one verdict"},
	}
}

func goldenCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "replay every case and compare bundle digest, verdict and receipt with the golden files, byte for byte",
		ArgsUsage: "DIR",
		Description: "Prints one line per case and, under a mismatch, the differences as JSON Pointer paths (stable)\n" +
			"and go-cmp's rendering of the verdicts (for reading only: its layout varies between runs).\n" +
			"Nothing is written.\n\n" +
			"--key KEY.pub requires a trusted signature on every case: <name>.receipt.dsse.json, a signed\n" +
			"receipt (golden update --sign) that verifies with KEY.pub and names exactly the case's bundle,\n" +
			"profile, verdict and receipt; a case without one, or with one that does not verify, is a\n" +
			"mismatch.\n\n" + goldenShardHelp + "\n\n" +
			"Exit status: 0 every case matches (skipped cases only with --allow-skip); 1 a golden file\n" +
			"differs, a required signature is missing or invalid, the evaluations of a case diverge, or a\n" +
			"case was skipped without --allow-skip; 2 bad usage, an\n" +
			"unreadable corpus or key, or a case that cannot be built or evaluated.",
		Flags: append(append(goldenFlags(),
			&cli.StringFlag{Name: "key", Usage: "require every case's signed receipt to verify with the public key `KEY.pub`"}),
			goldenShardFlags()...),
		Action: func(c *cli.Context) error { return runGolden(c, false) },
	}
}

func goldenUpdateCommand() *cli.Command {
	return &cli.Command{
		Name:      "update",
		Usage:     "replay every case and rewrite the golden files that differ, reporting which changed",
		ArgsUsage: "DIR",
		Description: "Writes each golden file that differs atomically and lists it with what changed. Archives are\n" +
			"inputs and are never rewritten; a case whose evaluations diverge is not written. --sign KEY\n" +
			"also (re)writes each case's signed receipt, <name>.receipt.dsse.json, signed with KEY\n" +
			"(receipt keygen); signatures are deterministic, so an unchanged case keeps its file.\n\n" +
			"Exit status: 0 the corpus is up to date; 1 the evaluations of a case diverge, or a case was\n" +
			"skipped without --allow-skip; 2 bad usage, an\n" +
			"unreadable corpus, a case that cannot be built or evaluated, or a file that cannot be written.",
		Flags: append(goldenFlags(),
			&cli.StringFlag{Name: "sign", Usage: "also write each case's signed receipt, signed with the private key `KEY`"}),
		Action: func(c *cli.Context) error { return runGolden(c, true) },
	}
}

func runGolden(c *cli.Context, update bool) error {
	runs := c.Int("runs")
	if runs < 2 {
		return argsError(c, "--runs must be at least 2, got %d", runs)
	}
	corpus, err := golden.Open(c.Args().First())
	if err != nil {
		return err
	}
	opts := golden.Options{Shared: goldenShared(c), Runs: runs, Cases: c.StringSlice("case"), NewStore: openScratchStore}
	if err := goldenKeys(c, &opts); err != nil {
		return err
	}
	if !update && goldenSharded(c) {
		return runGoldenCheck(c, corpus, opts)
	}
	run := corpus.Check
	if update {
		run = corpus.Update
	}
	rep, err := run(c.Context, opts)
	if err != nil {
		return err
	}
	if err := rep.WriteText(c.App.Writer); err != nil {
		return err
	}
	switch {
	case rep.Count(golden.Failed) > 0:
		return reported{status: exitError}
	case rep.Count(golden.Mismatched) > 0:
		return reported{status: exitMismatch}
	case rep.Count(golden.Skipped) > 0 && !c.Bool("allow-skip"):
		// A skipped case proves nothing: a clean status would claim a check that did not happen.
		fmt.Fprintf(c.App.ErrWriter, "golden %s: %d cases skipped (their shared test data is unavailable; --shared DIR supplies it, --allow-skip accepts the skips)\n",
			c.Command.Name, rep.Count(golden.Skipped))
		return reported{status: exitMismatch}
	}
	return nil
}

// goldenShared is the shared test data directory: --shared or $OASIS_REPLAY_SHARED, else the
// "shared" directory beside the repository holding the corpus (or the working directory), as
// the project's tests find it. A directory found that way is named on stderr.
func goldenShared(c *cli.Context) string {
	if dir := c.String("shared"); dir != "" {
		return dir
	}
	dir := golden.FindShared(c.Args().First(), ".")
	if dir != "" {
		fmt.Fprintf(c.App.ErrWriter, "golden %s: shared test data: %s (beside the repository)\n", c.Command.Name, dir)
	}
	return dir
}
