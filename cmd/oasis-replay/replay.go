package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "re-derive the verdict of a bundle from its evidence, and store its receipt",
		ArgsUsage: "BUNDLE",
		Description: "Evaluates the bundle's evidence against the profile it pins (loaded from the store) with the\n" +
			"pure evaluator, prints the verdict and its receipt, and stores both (the verdict object, the\n" +
			"receipt object and the ref receipts/<hex>) unless --no-store is given.\n\n" +
			"--json prints exactly the canonical verdict bytes on stdout, with no trailing newline, so\n" +
			"that `oasis-replay replay --json BUNDLE | sha256sum` is the verdict digest; the receipt then\n" +
			"goes to stderr. --scenario makes the verdict partial, and it says so.\n\n" +
			"--sign KEY --receipt FILE also writes the receipt signed with KEY (receipt keygen) to FILE: a\n" +
			"DSSE envelope around an in-toto statement about the bundle, which `receipt verify`, `audit\n" +
			"--require-signature` and independent DSSE tools check.\n\n" +
			"--repeat N evaluates N times, cycling GOMAXPROCS 1, 2, 4, 8, one worker or GOMAXPROCS\n" +
			"workers, and seeded permutations of the scenario evaluation order, and proves that every\n" +
			"run gives the same verdict digest, or reports the first divergence (exit status 1).\n\n" +
			"Exit status: 0 the verdict was derived (whatever it is); 1 the evaluations diverged, or the\n" +
			"store's content does not match its digests; 2 bad usage, unknown bundle, missing profile,\n" +
			"a validation error of the evaluator, or (--sign) an unusable key or an unwritable FILE.",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "scenario", Usage: "evaluate only scenario `ID` (repeatable); the verdict is partial"},
			&cli.BoolFlag{Name: "json", Usage: "print exactly the canonical verdict bytes on stdout (receipt on stderr)"},
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "evaluate `N` times under varying settings and prove one verdict digest"},
			&cli.BoolFlag{Name: "no-store", Usage: "do not store the verdict and receipt (the store is opened read-only)"},
		}, signFlags()...),
		Action: runReplay,
	}
}

func runReplay(c *cli.Context) error {
	runs := c.Int("repeat")
	if runs < 1 {
		return argsError(c, "--repeat must be at least 1, got %d", runs)
	}
	noStore := c.Bool("no-store")
	signer, err := loadSigner(c)
	if err != nil {
		return err
	}
	return withBundle(c, accessFor(noStore), func(s store.Store, d store.Digest) error {
		other, m, err := otherEvaluation(c, s, d)
		if err != nil {
			return err
		}
		if other != nil {
			if signer != nil && other.expect == nil {
				return signingUnsupported(c, d, m)
			}
			return other.replay(c, s, d, m)
		}
		b, err := replay.Load(c.Context, s, d)
		if err != nil {
			return err
		}
		warnRedactionChanges(c.App.ErrWriter, b.Manifest())
		// Human output goes to stdout; with --json, stdout carries only the verdict bytes.
		human := c.App.Writer
		if c.Bool("json") {
			human = c.App.ErrWriter
		}
		result, repeat, err := evaluateBundle(c, b, human, runs)
		if err != nil {
			return err
		}
		if err := printVerdict(c, human, result, repeat); err != nil {
			return err
		}
		if err := finishReplay(c, s, human, result.Canonical, result.Receipt, noStore); err != nil {
			return err
		}
		return writeSignedReceipt(c, human, signer, result.Predicate())
	})
}

// evaluateBundle evaluates the bundle once, or runs times proving a single verdict; a
// divergence is reported on w and is exit status 1.
func evaluateBundle(c *cli.Context, b *replay.Bundle, w io.Writer, runs int) (*replay.Result, *replay.RepeatResult, error) {
	only := c.StringSlice("scenario")
	if runs == 1 {
		result, err := b.Evaluate(c.Context, replay.Options{Only: only, Workers: runtime.GOMAXPROCS(0)})
		return result, nil, err
	}
	repeat, err := b.Repeat(c.Context, replay.RepeatOptions{Runs: runs, Only: only})
	if err != nil {
		return nil, nil, err
	}
	if repeat.Divergence != nil {
		if err := replay.WriteRepeat(w, repeat); err != nil {
			return nil, nil, err
		}
		return nil, nil, reported{status: exitMismatch}
	}
	return repeat.First, repeat, nil
}

// printVerdict writes the canonical verdict bytes (--json) or the summary, then the proof of
// --repeat.
func printVerdict(c *cli.Context, human io.Writer, result *replay.Result, repeat *replay.RepeatResult) error {
	if c.Bool("json") {
		if _, err := c.App.Writer.Write(result.Canonical); err != nil {
			return err
		}
	} else {
		if err := replay.WriteSummary(human, result); err != nil {
			return err
		}
		fmt.Fprintln(human)
	}
	if repeat == nil {
		return nil
	}
	return replay.WriteRepeat(human, repeat)
}

// finishReplay stores the verdict (its canonical bytes) and receipt unless told not to, and
// prints the receipt.
func finishReplay(c *cli.Context, s replay.Writer, w io.Writer, verdict []byte, receipt replay.Receipt, noStore bool) error {
	if err := replay.WriteReceipt(w, receipt); err != nil {
		return err
	}
	if noStore {
		fmt.Fprintln(w, "not stored (--no-store)")
		return nil
	}
	ref, err := replay.SaveReceipt(c.Context, s, verdict, receipt)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "stored verdict and receipt, ref %s\n", ref)
	return nil
}
