package main

import (
	"errors"
	"runtime"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/report"
	"github.com/oasis-replay/oasis-replay/store"
)

// auditFormats are the output formats of audit, the first the default.
var auditFormats = []string{"text", "json", "junit"}

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "re-derive a bundle's verdict and compare it with the claimed report",
		ArgsUsage: "BUNDLE",
		Description: "Re-derives the verdict as replay does (the store is only read; nothing is stored) and compares\n" +
			"it with the claimed report: the one recorded in the bundle, or --report FILE. Both the\n" +
			"verdict object of OASIS Reporting §1 and oasisctl's report are read, in JSON or YAML.\n" +
			"Every difference is a finding with a stable code: a mismatch (the report claims what the\n" +
			"evidence contradicts or cannot support) or a note.\n\n" +
			"A run recorded on the wire (record proxy) keeps the order of the runner's calls; its audit\n" +
			"also checks them against the execution rules (preflight first, identity once, provision →\n" +
			"task → observe → teardown, every environment torn down and never reused, Phase 1 run\n" +
			"through, nothing after an abort, no Phase 2 without a Phase 1 PASS), each departure an\n" +
			"execution-* finding naming the calls by sequence number. Without a claimed report, such a\n" +
			"bundle is audited on these rules alone.\n\n" +
			"A Kensa run is compared with the result Kensa recorded in it: every check, status and number\n" +
			"must agree; a difference of wording only (Python's error text where the evaluator has Go's,\n" +
			"Kensa's judge error for a pending run) is a note. Where the evaluator cannot evaluate a check\n" +
			"exactly as Kensa would, what that check decides is a not-re-derivable finding naming the cause,\n" +
			"never a mismatch.\n\n" +
			"An Eval Library run or matrix is compared with the verdict recorded for it (eval run, eval\n" +
			"matrix and replay record one): the same digest reproduces; another verdict recorded by this\n" +
			"evaluator is a mismatch; one recorded by an evaluator of other rules (another version or\n" +
			"rules digest) is not-re-derivable, naming both. --format text or json.\n\n" +
			"--format text lists the findings by severity with their deciding evidence; json is\n" +
			"canonical JSON with the verdict digest and receipt; junit is JUnit XML with one test case\n" +
			"per scenario and one per run-level check.\n\n" +
			"--require-signature FILE --key KEY.pub also requires FILE, a signed receipt (replay --sign),\n" +
			"to be signed by KEY.pub and to name exactly this bundle, its profile, and the verdict and\n" +
			"receipt derived now; the check is reported on stderr, before the audit.\n\n" +
			"Exit status: 0 everything reproduces (notes only); 1 at least one mismatch, the store's\n" +
			"content does not match its digests, or the required signature is invalid or vouches for\n" +
			"something else; 2 bad usage, unknown bundle, missing profile, an unreadable or\n" +
			"unrecognised report, a bundle or report declaring an OASIS core or profile version no\n" +
			"implemented edition evaluates, a validation error of the evaluator, or an unreadable key or\n" +
			"FILE; 3 no mismatch, but at least one not-re-derivable finding (the claim is neither\n" +
			"confirmed nor contradicted there).\n\n" +
			"An OASIS scenario whose content is valid for its version but cannot be evaluated exactly here\n" +
			"(an agent failure report in the report or the evidence, a Form B capability score, a prose\n" +
			"entry without a reading, evidence past a bound of the evaluator) is one not-re-derivable\n" +
			"finding naming the cause; what rests on it (its status, its category, the run's figures) is\n" +
			"not-re-derivable too, and every other scenario is compared.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "report", Usage: "compare with the report in `FILE` instead of the bundle's claimed report"},
			&cli.StringFlag{Name: "format", Value: auditFormats[0], Usage: "output `FORMAT`: text, json or junit"},
		}, requireSignatureFlags()...),
		Action: runAudit,
	}
}

func runAudit(c *cli.Context) error {
	format := c.String("format")
	if !slices.Contains(auditFormats, format) {
		return argsError(c, "--format %q: want text, json or junit", format)
	}
	if err := checkInputs(flagInput(c, "report", inputfile.File)); err != nil {
		return err
	}
	trusted, err := loadTrusted(c)
	if err != nil {
		return err
	}
	return withBundle(c, readOnly, func(s store.Store, d store.Digest) error {
		other, m, err := otherEvaluation(c, s, d)
		if err != nil {
			return err
		}
		if other != nil && other.audit == nil && isEvalBundle(m) {
			return auditEval(c, s, d, m)
		}
		if other != nil && other.audit == nil {
			return argsError(c, "bundle %s is a %s bundle, which records no result to audit", d.Short(), m.ObjectKind())
		}
		if other != nil {
			if trusted != nil && other.expect == nil {
				return signingUnsupported(c, d, m)
			}
			return other.audit(c, s, d, m)
		}
		result, err := replay.Replay(c.Context, s, d, replay.Options{Workers: runtime.GOMAXPROCS(0), MarkNotReDerivable: true})
		if err != nil {
			return err
		}
		if err := requireSignature(c, c.App.ErrWriter, trusted, result.Expect()); err != nil {
			return err
		}
		run := result.Bundle.Manifest()
		warnRedactionChanges(c.App.ErrWriter, run)
		wire, err := store.LoadWireLog(c.Context, s, run)
		if err != nil {
			return err
		}
		var claim *oasisctl.Claim
		if path := c.String("report"); path != "" {
			claim, err = oasisctl.ReadFile(path)
		} else {
			claim, err = report.LoadClaimed(c.Context, s, run)
			if errors.Is(err, report.ErrNoClaim) && wire != nil {
				claim, err = nil, nil // a live recording: the execution rules alone
			}
		}
		if err != nil {
			return err
		}
		a, err := report.New(claim, wire, result)
		if err != nil {
			return err
		}
		switch format {
		case "json":
			err = a.WriteJSON(c.App.Writer)
		case "junit":
			err = a.WriteJUnit(c.App.Writer)
		default:
			err = a.WriteText(c.App.Writer)
		}
		if err != nil {
			return err
		}
		switch {
		case a.Mismatches() > 0:
			return reported{status: exitMismatch}
		case a.NotReDerivable() > 0:
			return reported{status: exitNotReDerivable}
		}
		return nil
	})
}
