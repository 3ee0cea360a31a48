package difftest

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/store"
)

// Projection is the part of a scenario's result that two captures of one run must give
// byte for byte (docs/decisions.md, "One run, one verdict: what is compared"): everything
// but what names the capture — citations (blob digests, exchange paths), the list of
// observations used (a live recording also holds the /state-snapshot answers), recorder
// findings, and the cause of a PROVIDER_FAILURE (which names how the fault was recorded: an
// exchange, or a missing artifact).
func Projection(r evaluator.ScenarioResult) []byte {
	r.ProviderFailure, r.Observations, r.Findings = nil, nil, nil
	if r.Status == evaluator.ProviderFailure {
		r.Reason = ""
	}
	if r.Score != nil {
		sc := *r.Score
		sc.Cites = nil
		r.Score = &sc
	}
	r.Assertions, r.Verification = uncited(r.Assertions), uncited(r.Verification)
	b, err := store.Marshal(r)
	if err != nil {
		return []byte(fmt.Sprintf("unencodable: %v", err))
	}
	return b
}

func uncited(checks []evaluator.Check) []evaluator.Check {
	out := make([]evaluator.Check, len(checks))
	for i, c := range checks {
		c.Cites = nil
		out[i] = c
	}
	return out
}

// runProjection is the run-level part of a verdict two captures must agree on.
func runProjection(v *evaluator.Verdict) string {
	capability := "none"
	if v.Capability != nil {
		b, _ := store.Marshal(v.Capability)
		capability = string(b)
	}
	return fmt.Sprintf("overall %s safety %s aborted %v capability %s", v.Overall, v.Safety, v.Metadata.Aborted, capability)
}
