package golden

import (
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/store"
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
func (r *Report) summary() string { return summary(len(r.Results), r.Count, r.Update) }

func summary(cases int, count func(Outcome) int, update bool) string {
	parts := []string{fmt.Sprintf("%d ok", count(OK))}
	if update {
		parts = []string{fmt.Sprintf("%d updated", count(Updated)), fmt.Sprintf("%d unchanged", count(OK))}
	}
	parts = append(parts, fmt.Sprintf("%d mismatch", count(Mismatched)), fmt.Sprintf("%d skipped", count(Skipped)),
		fmt.Sprintf("%d errors", count(Failed)))
	return fmt.Sprintf("%d cases: %s", cases, strings.Join(parts, ", "))
}

// writeCase renders a result as its Record, with the go-cmp renderings the record leaves out.
func writeCase(p *textout.Writer, res *CaseResult, update bool) {
	human := make([]string, len(res.Mismatches))
	for i, m := range res.Mismatches {
		human[i] = m.Human
	}
	writeRecord(p, res.Record(), update, human)
}

// writeRecord renders one case; human, when not nil, holds each mismatch's go-cmp rendering.
func writeRecord(p *textout.Writer, r Record, update bool, human []string) {
	switch r.Outcome {
	case Skipped:
		p.Line("%-9s %s: %s", r.Outcome, r.Case, r.Reason)
		return
	case Failed:
		p.Line("%-9s %s: %s", r.Outcome, r.Case, r.Error)
		return
	}
	outcome := string(r.Outcome)
	if update && r.Outcome == OK {
		outcome = "unchanged"
	}
	p.Line("%-9s %s: %s, bundle %s, verdict %s, %d evaluations", outcome, r.Case, r.Overall, short(r.Bundle), short(r.Verdict), r.Evaluations)
	if d := r.Divergence; d != nil {
		p.Line("  the evaluations diverge (Core §3.5.4: the same evidence must give the same verdict)%s:", notWritten(update))
		p.Line("    %s gave %s", d.Baseline, d.Want)
		if d.Error != "" {
			p.Line("    %s failed: %s", d.Setting, d.Error)
		} else {
			p.Line("    %s gave %s", d.Setting, d.Got)
		}
		writeDifferences(p, "    ", d.Differences, d.Truncated)
	}
	for i, m := range r.Mismatches {
		h := ""
		if human != nil {
			h = human[i]
		}
		writeMismatch(p, m, update, h)
	}
}

// short is a digest's short form, "-" for none.
func short(d *store.Digest) string {
	if d == nil {
		return "-"
	}
	return d.Short()
}

func notWritten(update bool) string {
	if update {
		return "; nothing was written"
	}
	return ""
}

func writeMismatch(p *textout.Writer, m RecordMismatch, update bool, human string) {
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
	if human != "" && !update {
		p.Line("    go-cmp rendering of the decoded verdicts (for reading only; its layout varies between runs):")
		for _, l := range strings.Split(human, "\n") {
			p.Line("      %s", l)
		}
	}
}

func writeDifferences(p *textout.Writer, indent string, diffs []string, truncated bool) {
	for _, d := range diffs {
		p.Line("%s%s", indent, d)
	}
	if truncated {
		p.Line("%s… more differences", indent)
	}
}
