package replay

import (
	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/textout"
)

// writePreflight renders the preflight conformance check of the run's conformance answer
// (metadata.environment.preflight), and nothing when the run recorded none.
func writePreflight(p *textout.Writer, v *evaluator.Verdict) {
	r := v.Metadata.Environment.Preflight
	if r == nil {
		return
	}
	p.Line("preflight   %s", r.Summary())
	if !r.Met {
		p.Line("            a runner aborts on this answer before any scenario, and writes no verdict (Provider Conformance §3.8.3, §3.8.4)")
	}
	for _, u := range r.Unmet {
		p.Line("  unmet     %s: expected %s, got %s", u.Key, u.Expected, u.Actual)
		p.Line("            %s", u.String())
	}
}
