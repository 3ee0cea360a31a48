package evallib

import (
	"fmt"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// TestCompareRecorded generates every combination of what a recorded receipt may share with
// the result derived now (evaluator name, version, rules digest; verdict digest) and checks
// the outcome: equal verdicts reproduce, a different verdict of this very evaluator is a
// mismatch, a different verdict of any other evaluator is not re-derivable, with a cause
// naming both evaluators.
func TestCompareRecorded(t *testing.T) {
	res, err := NewResult(store.Sum([]byte("bundle")), &store.EvalRun{}, &RunVerdict{Scenario: "s", Variation: "baseline", Run: 1})
	if err != nil {
		t.Fatal(err)
	}
	other := store.Sum([]byte("another verdict"))
	for mask := range 16 {
		sameName, sameVersion, sameRules, sameVerdict := mask&1 != 0, mask&2 != 0, mask&4 != 0, mask&8 != 0
		recorded := res.Receipt
		if !sameName {
			recorded.Evaluator.Name = "an evaluator of another project"
		}
		if !sameVersion {
			recorded.Evaluator.Version = "0"
		}
		if !sameRules {
			recorded.Evaluator.RulesDigest = store.Sum([]byte("other metric definitions"))
		}
		if !sameVerdict {
			recorded.Verdict = other
		}
		name := fmt.Sprintf("name=%v,version=%v,rules=%v,verdict=%v", sameName, sameVersion, sameRules, sameVerdict)
		t.Run(name, func(t *testing.T) {
			want := OutcomeNotReDerivable
			switch {
			case sameVerdict:
				want = OutcomeReproduced
			case sameName && sameVersion && sameRules:
				want = OutcomeMismatch
			}
			c := CompareRecorded(recorded, res)
			if c.Outcome != want {
				t.Fatalf("outcome %s, want %s", c.Outcome, want)
			}
			if (c.Cause != "") != (want == OutcomeNotReDerivable) {
				t.Fatalf("cause %q with outcome %s", c.Cause, c.Outcome)
			}
			if want == OutcomeNotReDerivable && (!strings.Contains(c.Cause, recorded.Evaluator.Version) || !strings.Contains(c.Cause, Name)) {
				t.Errorf("cause %q does not name both evaluators", c.Cause)
			}
			if c.Recorded != recorded || c.Derived != res.Receipt {
				t.Errorf("the comparison does not carry both receipts")
			}
		})
	}
}
