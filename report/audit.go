package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Audit is a claimed report compared with the verdict its bundle's evidence gives.
type Audit struct {
	Bundle  store.Digest
	Claim   *oasisctl.Claim
	Verdict *evaluator.Verdict
	// VerdictDigest is the digest of the verdict's canonical JSON.
	VerdictDigest store.Digest
	// Receipt is the receipt of the re-derived verdict; nil leaves it out of the output.
	Receipt  *replay.Receipt
	Findings []Finding
}

// New compares claim with the replay r. A claim that declares an OASIS version, or carries
// content, no implemented edition evaluates is refused (an error wrapping
// profiles.ErrVersion), never compared under other rules.
func New(claim *oasisctl.Claim, r *replay.Result) (*Audit, error) {
	if err := checkVersions(claim, r.Bundle.Manifest()); err != nil {
		return nil, err
	}
	receipt := r.Receipt
	return &Audit{Bundle: r.Bundle.Digest, Claim: claim, Verdict: r.Verdict, VerdictDigest: r.Receipt.Verdict, Receipt: &receipt,
		Findings: CompareRun(claim, r.Verdict, r.Bundle.Run)}, nil
}

// Mismatches counts the findings that make the audit fail.
func (a *Audit) Mismatches() int { return Count(a.Findings, SeverityMismatch) }

// Reproduced reports whether the claim reproduces from the evidence: no mismatch.
func (a *Audit) Reproduced() bool { return a.Mismatches() == 0 }

// outcome is the audit's conclusion in one sentence.
func (a *Audit) outcome() string {
	mismatches, notes := a.Mismatches(), Count(a.Findings, SeverityNote)
	if mismatches == 0 {
		return fmt.Sprintf("reproduced: the claimed report agrees with the evidence (%d note(s))", notes)
	}
	return fmt.Sprintf("NOT reproduced: %d mismatch(es), %d note(s): the claimed report departs from what the evidence gives", mismatches, notes)
}

// WriteText writes the audit for people: a header, then the findings grouped by severity,
// mismatches first, each with what the report claims, what the evidence gives, the rule, and
// the evidence that decides it.
func (a *Audit) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "audit     bundle %s\n", a.Bundle)
	fmt.Fprintf(&b, "claim     %s (%s): %s\n", a.Claim.Shape, a.Claim.Format, a.Claim.Source)
	fmt.Fprintf(&b, "verdict   %s (overall %s, safety %s)\n", a.VerdictDigest, a.Verdict.Overall, a.Verdict.Safety)
	if a.Receipt != nil {
		fmt.Fprintf(&b, "receipt   %s\n", a.Receipt.Digest)
	}
	fmt.Fprintf(&b, "\nresult    %s\n", a.outcome())
	for _, group := range []struct {
		title    string
		severity Severity
	}{{"MISMATCHES", SeverityMismatch}, {"NOTES", SeverityNote}} {
		n := Count(a.Findings, group.severity)
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%d)\n", group.title, n)
		for _, f := range a.Findings {
			if f.Severity == group.severity {
				writeFinding(&b, f, "  ")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFinding renders one finding, every line prefixed with indent.
func writeFinding(b *strings.Builder, f Finding, indent string) {
	title := f.Subject
	if f.Scenario != "" {
		title = f.Scenario
	}
	fmt.Fprintf(b, "\n%s[%s] %s\n", indent, f.Code, title)
	if f.ReportPath != "" {
		loc := f.ReportPath
		if f.ReportLine > 0 {
			loc = fmt.Sprintf("%s, line %d", loc, f.ReportLine)
		}
		fmt.Fprintf(b, "%s  report    %s\n", indent, loc)
	}
	fmt.Fprintf(b, "%s  claimed   %s\n", indent, f.Claimed)
	fmt.Fprintf(b, "%s  evidence  %s\n", indent, f.Derived)
	fmt.Fprintf(b, "%s  %s\n", indent, f.Message)
	if len(f.Evidence) > 0 {
		fmt.Fprintf(b, "%s  deciding evidence:\n", indent)
		for _, e := range f.Evidence {
			fmt.Fprintf(b, "%s    %s\n", indent, e)
		}
	}
}

// document is the JSON form of an audit.
type document struct {
	Bundle     store.Digest `json:"bundle"`
	Claim      claimInfo    `json:"claim"`
	Verdict    store.Digest `json:"verdict"`
	Overall    string       `json:"overall"`
	Safety     string       `json:"safety"`
	Receipt    *receiptInfo `json:"receipt,omitempty"`
	Reproduced bool         `json:"reproduced"`
	Mismatches int          `json:"mismatches"`
	Notes      int          `json:"notes"`
	Findings   []Finding    `json:"findings"`
}

type claimInfo struct {
	Source string         `json:"source"`
	Shape  oasisctl.Shape `json:"shape"`
	Format string         `json:"format"`
}

type receiptInfo struct {
	Digest store.Digest `json:"digest"`
	store.Receipt
}

// WriteJSON writes the audit as canonical JSON (store.Marshal), findings in Compare's order,
// followed by a newline.
func (a *Audit) WriteJSON(w io.Writer) error {
	doc := document{Bundle: a.Bundle, Claim: claimInfo{Source: a.Claim.Source, Shape: a.Claim.Shape, Format: a.Claim.Format},
		Verdict: a.VerdictDigest, Overall: string(a.Verdict.Overall), Safety: string(a.Verdict.Safety),
		Reproduced: a.Reproduced(), Mismatches: a.Mismatches(), Notes: Count(a.Findings, SeverityNote), Findings: a.Findings}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if a.Receipt != nil {
		doc.Receipt = &receiptInfo{Digest: a.Receipt.Digest, Receipt: a.Receipt.Receipt}
	}
	b, err := store.Marshal(doc)
	if err != nil {
		return fmt.Errorf("report: encode audit: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
