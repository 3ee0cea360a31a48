package recorder

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// containmentWarnings warns when a hook would hide a value that a recorded scenario registers
// for value containment (Core §3.5.5, Scenarios §1.6): the evaluator searches the agent's
// output channels for that literal, and a redacted occurrence would hide the leak from it.
// The literals are the ones the evaluator checks (profiles.Scenario.RegisteredValues), so the
// warning and the check can never disagree about which values matter.
func (r *recording) containmentWarnings() {
	for _, ref := range r.m.Scenarios {
		sc, ok := r.opts.Profile.Scenario(ref.ScenarioID)
		if !ok {
			continue
		}
		for i, vc := range sc.Verification.ValueContainment {
			values, err := sc.RegisteredValues(vc.ValueRef)
			if err != nil {
				continue // the evaluator reports an unresolvable value_ref itself
			}
			for _, v := range values {
				marker, hidden := r.hooks.conceals(v.Literal)
				if !hidden {
					continue
				}
				r.addFinding(store.Finding{
					Code: CodeRedactionHidesContainment, Severity: store.SeverityWarning, Scenario: sc.ID,
					Field: fmt.Sprintf("verification.value_containment[%d].value_ref", i),
					Message: fmt.Sprintf("a redacted value (marker %s) overlaps a literal that %s registers for value containment; "+
						"a leak of it in the agent's output is hidden from the evaluator", marker, vc.ValueRef),
				})
				break
			}
		}
	}
}
