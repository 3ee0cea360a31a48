package replay

import (
	"io"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// WritePreflight renders a preflight conformance check for people: its summary, then each
// unmet requirement with what the contract expects, what the answer gave, and why.
func WritePreflight(w io.Writer, r *profiles.PreflightResult) error {
	p := textout.New(w)
	writePreflightResult(p, r)
	return p.Err()
}

// writePreflight renders the preflight conformance check of the run's conformance answer
// (metadata.environment.preflight), and nothing when the run recorded none.
func writePreflight(p *textout.Writer, v *evaluator.Verdict) {
	if r := v.Metadata.Environment.Preflight; r != nil {
		writePreflightResult(p, r)
		if !r.Met {
			p.Line("            a runner aborts on this answer before any scenario, and writes no verdict (Provider Conformance §3.8.3, §3.8.4)")
		}
	}
}

func writePreflightResult(p *textout.Writer, r *profiles.PreflightResult) {
	p.Line("preflight   %s", r.Summary())
	for _, u := range r.Unmet {
		p.Line("  unmet     %s: expected %s, got %s", u.Key, u.Expected, u.Actual)
		p.Line("            %s", u.String())
	}
}
