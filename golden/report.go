package golden

import (
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/textout"
)

// WriteText renders the report for people: a summary line, then one line per case and, under
// it, what differs or went wrong. Everything but the go-cmp renderings is deterministic.
func (r *Report) WriteText(w io.Writer) error {
	p := textout.New(w)
	verb := "check"
	if r.Update {
		verb = "update"
	}
	p.Line("golden %s %s: %s", verb, r.Dir, r.summary())
	for _, res := range r.Results {
		writeCase(p, res, r.Update)
	}
	return p.Err()
}

// summary counts the outcomes: "21 cases: 18 ok, 1 mismatch, 2 skipped, 0 errors".
func (r *Report) summary() string {
	parts := []string{fmt.Sprintf("%d ok", r.Count(OK))}
	if r.Update {
		parts = []string{fmt.Sprintf("%d updated", r.Count(Updated)), fmt.Sprintf("%d unchanged", r.Count(OK))}
	}
	parts = append(parts, fmt.Sprintf("%d mismatch", r.Count(Mismatched)), fmt.Sprintf("%d skipped", r.Count(Skipped)),
		fmt.Sprintf("%d errors", r.Count(Failed)))
	return fmt.Sprintf("%d cases: %s", len(r.Results), strings.Join(parts, ", "))
}

func writeCase(p *textout.Writer, res *CaseResult, update bool) {
	name := res.Case.Name
	switch res.Outcome {
	case Skipped:
		p.Line("%-9s %s: %s", res.Outcome, name, res.Reason)
		return
	case Failed:
		p.Line("%-9s %s: %v", res.Outcome, name, res.Err)
		return
	}
	outcome := string(res.Outcome)
	if update && res.Outcome == OK {
		outcome = "unchanged"
	}
	p.Line("%-9s %s: %s, bundle %s, verdict %s, %d evaluations", outcome, name, res.Overall, res.Bundle.Short(), res.Verdict.Short(), res.Runs)
	if d := res.Divergence; d != nil {
		p.Line("  the evaluations diverge (Core §3.5.4: the same evidence must give the same verdict)%s:", notWritten(update))
		p.Line("    %s gave %s", d.Baseline, d.Want)
		if d.Err != nil {
			p.Line("    %s failed: %v", d.Setting, d.Err)
		} else {
			p.Line("    %s gave %s", d.Setting, d.Got)
		}
		writeDifferences(p, "    ", d.Differences, d.Truncated)
	}
	for _, m := range res.Mismatches {
		writeMismatch(p, m, update)
	}
}

func notWritten(update bool) string {
	if update {
		return "; nothing was written"
	}
	return ""
}

func writeMismatch(p *textout.Writer, m Mismatch, update bool) {
	verb := "differs from the case"
	if update {
		verb = "rewritten"
		if m.Want == absent {
			verb = "created"
		}
	}
	p.Line("  %s %s: golden %s, case gives %s", m.File, verb, m.Want, m.Got)
	if m.Note != "" {
		p.Line("    %s", m.Note)
	}
	writeDifferences(p, "    ", m.Differences, m.Truncated)
	if m.Human != "" && !update {
		p.Line("    go-cmp rendering of the decoded verdicts (for reading only; its layout varies between runs):")
		for _, l := range strings.Split(m.Human, "\n") {
			p.Line("      %s", l)
		}
	}
}

func writeDifferences[D fmt.Stringer](p *textout.Writer, indent string, diffs []D, truncated bool) {
	for _, d := range diffs {
		p.Line("%s%s", indent, d)
	}
	if truncated {
		p.Line("%s… more differences", indent)
	}
}
