package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/report"
	"github.com/oasis-replay/oasis-replay/store"
)

// isEvalBundle reports whether m is an Eval Library run or matrix, which audit compares with
// the verdict recorded for it.
func isEvalBundle(m store.Manifest) bool {
	k := m.ObjectKind()
	return k == store.KindEvalRun || k == store.KindEvalMatrix
}

// evalAudit is the JSON form of an Eval Library audit.
type evalAudit struct {
	Bundle   store.Digest       `json:"bundle"`
	Kind     store.Kind         `json:"kind"`
	Outcome  evalmetric.Outcome `json:"outcome"`
	Recorded store.Receipt      `json:"recorded"`
	Derived  store.Receipt      `json:"derived"`
	Cause    string             `json:"cause,omitempty"`
}

// auditEval audits an Eval Library run or matrix: the verdict recorded for it (the receipt
// under eval/verdicts/<bundle>, whichever evaluator made it) against the one its evidence
// gives now (evalmetric.CompareRecorded). Exit status 0 reproduced, 1 mismatch, 3 not
// re-derivable (recorded by an evaluator whose rules this one does not implement).
func auditEval(c *cli.Context, s store.Store, d store.Digest, m store.Manifest) error {
	switch {
	case c.String("report") != "":
		return argsError(c, "--report: bundle %s is an Eval Library %s, audited against the verdict recorded for it", d.Short(), m.ObjectKind())
	case c.String("format") == "junit":
		return argsError(c, "--format junit: bundle %s is an Eval Library %s; use text or json", d.Short(), m.ObjectKind())
	case c.String("require-signature") != "":
		return signingUnsupported(c, d, m)
	}
	recorded, err := recordedEvalReceipt(c.Context, s, d)
	if err != nil {
		return err
	}
	res, err := evalmetric.Evaluate(c.Context, s, d, m)
	if err != nil {
		return err
	}
	cmp := evalmetric.CompareRecorded(*recorded, res)
	a := evalAudit{Bundle: d, Kind: m.ObjectKind(), Outcome: cmp.Outcome, Recorded: cmp.Recorded, Derived: cmp.Derived, Cause: cmp.Cause}
	if c.String("format") == "json" {
		err = writeCanonical(c.App.Writer, a)
	} else {
		w := c.App.Writer
		fmt.Fprintf(w, "audit     bundle %s (Eval Library %s)\n", d, m.ObjectKind())
		for _, r := range []struct {
			name string
			rc   store.Receipt
		}{{"recorded", a.Recorded}, {"derived", a.Derived}} {
			fmt.Fprintf(w, "%-9s verdict %s by %q version %q (rules %s)\n", r.name, r.rc.Verdict, r.rc.Evaluator.Name, r.rc.Evaluator.Version, r.rc.Evaluator.RulesDigest.Short())
		}
		switch a.Outcome {
		case evalmetric.OutcomeReproduced:
			_, err = fmt.Fprintf(w, "\nresult    reproduced: the recorded verdict has the same digest\n")
		case evalmetric.OutcomeMismatch:
			_, err = fmt.Fprintf(w, "\nresult    MISMATCH: this evaluator, under the rules that made the recorded verdict, derives another from the same evidence\n")
		default:
			_, err = fmt.Fprintf(w, "\nresult    not-re-derivable: neither confirmed nor contradicted\n  cause     %s\n", a.Cause)
		}
	}
	if err != nil {
		return err
	}
	switch a.Outcome {
	case evalmetric.OutcomeMismatch:
		return reported{status: exitMismatch}
	case evalmetric.OutcomeNotReDerivable:
		return reported{status: exitNotReDerivable}
	}
	return nil
}

// recordedEvalReceipt reads the receipt recorded for Eval Library bundle d, whichever
// evaluator made it (evallib.RecordedReceipt keeps only this evaluator's, for reuse).
func recordedEvalReceipt(ctx context.Context, s store.Store, d store.Digest) (*store.Receipt, error) {
	name := store.EvalVerdictRefName(d)
	rd, err := s.GetRef(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: bundle %s has no recorded verdict (ref %s): replay derives and records one", report.ErrNoClaim, d.Short(), name)
	}
	if err != nil {
		return nil, err
	}
	b, err := s.GetObject(ctx, rd)
	if err != nil {
		return nil, err
	}
	r, err := store.DecodeReceipt(b)
	if err != nil {
		return nil, fmt.Errorf("ref %s: %w", name, err)
	}
	if r.Bundle != d {
		return nil, fmt.Errorf("%w: ref %s names a receipt of bundle %s, not of %s", store.ErrInvalidObject, name, r.Bundle.Short(), d.Short())
	}
	return r, nil
}
