package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// Eval Library runs and matrices are replayed here: the evaluator re-derives match and
// distance (a run) or every cell's metrics (a matrix) from the bundle, and the verdict digest
// is compared with the one recorded when the bundle was sealed (or, for a bundle that had none,
// such as one imported from an archive, stored by its first replay).
var (
	_ = registerEvaluation(store.KindEvalRun, evaluationCommands{replay: replayEval})
	_ = registerEvaluation(store.KindEvalMatrix, evaluationCommands{replay: replayEval})
)

func replayEval(c *cli.Context, s store.Store, d store.Digest, m store.Manifest) error {
	if len(c.StringSlice("scenario")) > 0 {
		return argsError(c, "--scenario applies to OASIS runs; bundle %s is an Eval Library %s", d.Short(), m.ObjectKind())
	}
	human := c.App.Writer
	if c.Bool("json") {
		human = c.App.ErrWriter
	}
	res, err := evalmetric.Evaluate(c.Context, s, d, m)
	if err != nil {
		return err
	}
	for run := 2; run <= c.Int("repeat"); run++ {
		again, err := evalmetric.Evaluate(c.Context, s, d, m)
		if err != nil {
			return err
		}
		if again.Digest != res.Digest {
			fmt.Fprintf(human, "evaluation %d gave verdict %s, evaluation 1 gave %s\n", run, again.Digest, res.Digest)
			return reported{status: exitMismatch}
		}
	}
	if c.Bool("json") {
		if _, err := c.App.Writer.Write(res.Canonical); err != nil {
			return err
		}
	} else if err := writeEvalVerdict(human, res, m); err != nil {
		return err
	}
	if c.Int("repeat") > 1 {
		fmt.Fprintf(human, "%d evaluations, one verdict %s\n", c.Int("repeat"), res.Digest)
	}
	recorded, err := evallib.RecordedReceipt(c.Context, s, d)
	if err != nil {
		return err
	}
	fmt.Fprintf(human, "verdict %s\nreceipt: bundle %s, definition %s, evaluator %s %s (rules %s)\n", res.Digest,
		res.Receipt.Bundle.Short(), res.Receipt.Profile.Short(), res.Receipt.Evaluator.Name,
		res.Receipt.Evaluator.Version, res.Receipt.Evaluator.RulesDigest.Short())
	if recorded != nil && recorded.Verdict != res.Digest {
		fmt.Fprintf(human, "MISMATCH: the verdict recorded for this bundle is %s\n", recorded.Verdict)
		return reported{status: exitMismatch}
	}
	if recorded != nil {
		fmt.Fprintf(human, "reproduced: the recorded verdict has the same digest\n")
		return nil
	}
	if c.Bool("no-store") {
		fmt.Fprintln(human, "not stored (--no-store)")
		return nil
	}
	if err := evallib.SaveResult(c.Context, s, res); err != nil {
		return err
	}
	fmt.Fprintf(human, "stored verdict and receipt, ref %s\n", store.EvalVerdictRefName(d))
	return nil
}

func writeEvalVerdict(w io.Writer, res *evalmetric.Result, m store.Manifest) error {
	switch v := res.Verdict.(type) {
	case *evalmetric.RunVerdict:
		match := "does not match"
		if v.Matched {
			match = "matches"
		}
		fmt.Fprintf(w, "run %d of %s / %s: %s, answer %s, %s the expected behaviour\n", v.Run, v.Scenario, v.Variation, v.Status, v.Answer, match)
		if v.Reason != "" {
			fmt.Fprintf(w, "  %s\n", v.Reason)
		}
		for _, ch := range v.Checks {
			got := "(absent)"
			if ch.Got != nil {
				got = *ch.Got
			}
			mark := "≠"
			if ch.Equal {
				mark = "="
			}
			fmt.Fprintf(w, "  %-30s expected %s %s got %s\n", ch.Path, ch.Expected, mark, got)
		}
		fmt.Fprintf(w, "distance to the expected behaviour %s (%s), %d leaves\n", v.DistanceToExpected.Value, v.DistanceToExpected.Fraction, v.Leaves)
		return nil
	case *evalmetric.MatrixVerdict:
		matrix, ok := m.(*store.EvalMatrix)
		if !ok {
			return fmt.Errorf("%w: a matrix verdict for a %s", evalmetric.ErrInput, m.ObjectKind())
		}
		report := evallib.NewReport(&evallib.MatrixSummary{Bundle: res.Bundle, Verdict: v, Manifest: matrix}, nil)
		return report.WriteText(w, false)
	}
	return nil
}
