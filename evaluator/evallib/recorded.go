package evallib

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// Outcome is what comparing a re-derived verdict with a recorded one concludes.
type Outcome string

// Outcomes of CompareRecorded, the same three as Kensa's and OASIS audits.
const (
	// OutcomeReproduced: the re-derived verdict has the recorded digest.
	OutcomeReproduced Outcome = "reproduced"
	// OutcomeMismatch: this evaluator, under the rules that made the recorded verdict, derives
	// another one from the same evidence: the recorded verdict is contradicted.
	OutcomeMismatch Outcome = "mismatch"
	// OutcomeNotReDerivable: the recorded verdict was made by an evaluator whose rules this one
	// does not implement (another name, version or rules digest), and the verdicts differ. The
	// difference may be the rules' and not the evidence's, so the recorded verdict is neither
	// confirmed nor contradicted.
	OutcomeNotReDerivable Outcome = "not-re-derivable"
)

// Comparison is a recorded verdict compared with the one derived now.
type Comparison struct {
	Outcome  Outcome
	Recorded store.Receipt
	Derived  store.Receipt
	// Cause says why the verdict is not re-derivable; "" for the other outcomes.
	Cause string
}

// CompareRecorded compares the receipt recorded for a bundle with the result derived now.
// Equal verdict digests reproduce whatever evaluator made the recorded one (the verdict is
// the same bytes). Otherwise a recorded receipt of this evaluator (Info: name, version and
// rules digest all equal) is contradicted, a mismatch; one of any other evaluator cannot be
// re-derived here: its metric definitions are not the ones this evaluator implements, so a
// different verdict is no evidence against it (docs/decisions.md, "Audit: not re-derivable
// in OASIS and Eval Library audits").
func CompareRecorded(recorded store.Receipt, res *Result) Comparison {
	c := Comparison{Recorded: recorded, Derived: res.Receipt}
	switch {
	case recorded.Verdict == res.Digest:
		c.Outcome = OutcomeReproduced
	case recorded.Evaluator == res.Receipt.Evaluator:
		c.Outcome = OutcomeMismatch
	default:
		c.Outcome = OutcomeNotReDerivable
		c.Cause = fmt.Sprintf("the recorded verdict was derived by %s; this evaluator is %s, whose metric definitions differ",
			describe(recorded.Evaluator), describe(res.Receipt.Evaluator))
	}
	return c
}

// describe names an evaluator for people.
func describe(e store.EvaluatorInfo) string {
	return fmt.Sprintf("%q version %q (rules %s)", e.Name, e.Version, e.RulesDigest.Short())
}
