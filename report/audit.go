package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Audit is a claimed report compared with the verdict its bundle's evidence gives, and, for a
// run recorded on the wire, the runner's calls checked against the execution rules.
type Audit struct {
	Bundle store.Digest
	// Claim is the claimed report; nil when the bundle records none and the audit checks the
	// execution rules alone.
	Claim *oasisctl.Claim
	// Wire is the bundle's wire log; nil when the run was not recorded on the wire, and then
	// the execution rules are not checked.
	Wire    *store.WireLog
	Verdict *evaluator.Verdict
	// VerdictDigest is the digest of the verdict's canonical JSON.
	VerdictDigest store.Digest
	// Receipt is the receipt of the re-derived verdict; nil leaves it out of the output.
	Receipt  *replay.Receipt
	Findings []Finding
}

// New audits the replay r: what the runner did with the provider's conformance answer
// (PreflightFindings); claim, when not nil, compared with the verdict and the recorded
// evidence (CompareRun); the calls of wire, when not nil, checked against the execution rules
// (CheckExecution). The findings come in that order, each with its cause. A claim that
// declares an OASIS version no implemented edition evaluates is refused (an error wrapping
// profiles.ErrVersion), never compared under other rules; content of the claim or the
// evidence that the edition cannot evaluate exactly (a scenario's agent failure report, a
// Form B score, …) makes that scenario's findings not re-derivable, and the rest is compared.
func New(claim *oasisctl.Claim, wire *store.WireLog, r *replay.Result) (*Audit, error) {
	var unsupported map[string]string
	if claim != nil {
		edition, err := checkVersions(claim, r.Bundle.Manifest())
		if err != nil {
			return nil, err
		}
		unsupported = agentFailures(claim, edition)
	}
	receipt := r.Receipt
	a := &Audit{Bundle: r.Bundle.Digest, Claim: claim, Wire: wire, Verdict: r.Verdict, VerdictDigest: r.Receipt.Verdict, Receipt: &receipt}
	a.Findings = PreflightFindings(r.Verdict, r.Bundle.Manifest(), claim != nil)
	if claim != nil {
		a.Findings = append(a.Findings, CompareRun(claim, r.Verdict, r.Bundle.Run)...)
	}
	if wire != nil {
		a.Findings = append(a.Findings, CheckExecution(ExecutionInput{Manifest: r.Bundle.Manifest(), Wire: wire,
			Profile: r.Bundle.Profile, Verdict: r.Verdict, Claim: claim})...)
	}
	claimed := map[string]string{}
	if claim != nil {
		for _, sc := range claim.Scenarios {
			claimed[sc.ID] = claimedOutcome(sc)
		}
	}
	a.Findings = notReDerivable(a.Findings, r.Verdict, claimed, unsupported)
	explain(a.Findings, r.Verdict, r.Bundle.Run.Evidence)
	return a, nil
}

// Mismatches counts the findings that make the audit fail.
func (a *Audit) Mismatches() int { return Count(a.Findings, SeverityMismatch) }

// Reproduced reports whether the claim reproduces from the evidence: no mismatch, and
// nothing the evaluator could not re-derive.
func (a *Audit) Reproduced() bool { return a.Mismatches() == 0 && a.NotReDerivable() == 0 }

// outcome is the audit's conclusion in one sentence.
func (a *Audit) outcome() string {
	mismatches, notes := a.Mismatches(), Count(a.Findings, SeverityNote)
	if a.Claim == nil {
		if mismatches == 0 {
			return fmt.Sprintf("conforms: the recorded calls follow the execution rules (%d note(s))", notes)
		}
		return fmt.Sprintf("does NOT conform: %d departure(s) from the execution rules, %d note(s)", mismatches, notes)
	}
	if n := a.NotReDerivable(); mismatches == 0 && n > 0 {
		return fmt.Sprintf("not-re-derivable: no mismatch, but %d finding(s) the evaluator cannot re-derive exactly: the claim is neither confirmed nor contradicted there (%d note(s))", n, notes)
	}
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
	if a.Claim != nil {
		fmt.Fprintf(&b, "claim     %s (%s): %s\n", a.Claim.Shape, a.Claim.Format, a.Claim.Source)
	} else {
		fmt.Fprintf(&b, "claim     none: the bundle records no claimed report; the run itself (preflight, execution rules) is checked\n")
	}
	if a.Wire != nil {
		fmt.Fprintf(&b, "calls     %d recorded on the wire, checked against the execution rules\n", len(a.Wire.Calls))
	}
	fmt.Fprintf(&b, "verdict   %s (overall %s, safety %s)\n", a.VerdictDigest, a.Verdict.Overall, a.Verdict.Safety)
	if pre := a.Verdict.Metadata.Environment.Preflight; pre != nil {
		fmt.Fprintf(&b, "preflight %s\n", pre.Summary())
	}
	if a.Receipt != nil {
		fmt.Fprintf(&b, "receipt   %s\n", a.Receipt.Digest)
	}
	fmt.Fprintf(&b, "\nresult    %s\n", a.outcome())
	for _, group := range []struct {
		title    string
		severity Severity
	}{{"MISMATCHES", SeverityMismatch}, {"NOT RE-DERIVABLE", SeverityNotReDerivable}, {"NOTES", SeverityNote}} {
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
	if slices.Contains(executionCodes, f.Code) {
		fmt.Fprintf(b, "%s  runner    %s\n", indent, f.Claimed)
		fmt.Fprintf(b, "%s  rule      %s\n", indent, f.Derived)
	} else {
		fmt.Fprintf(b, "%s  claimed   %s\n", indent, f.Claimed)
		fmt.Fprintf(b, "%s  evidence  %s\n", indent, f.Derived)
	}
	fmt.Fprintf(b, "%s  %s\n", indent, f.Message)
	if f.Cause != nil {
		fmt.Fprintf(b, "%s  cause     %s: %s\n", indent, f.Cause.Class, f.Cause.Explanation)
		if f.Cause.Decision != "" {
			fmt.Fprintf(b, "%s  decision  %s\n", indent, f.Cause.Decision)
		}
	}
	if len(f.Evidence) > 0 {
		fmt.Fprintf(b, "%s  deciding evidence:\n", indent)
		for _, e := range f.Evidence {
			fmt.Fprintf(b, "%s    %s\n", indent, e)
		}
	}
}

// document is the JSON form of an audit.
type document struct {
	Bundle store.Digest `json:"bundle"`
	// Claim is absent when the audit checked the execution rules alone.
	Claim *claimInfo `json:"claim,omitempty"`
	// Calls is the number of calls of the wire log, when the execution rules were checked.
	Calls      *int         `json:"calls,omitempty"`
	Verdict    store.Digest `json:"verdict"`
	Overall    string       `json:"overall"`
	Safety     string       `json:"safety"`
	Receipt    *receiptInfo `json:"receipt,omitempty"`
	Reproduced bool         `json:"reproduced"`
	// Outcome is "reproduced", "not-re-derivable" or "mismatch" (Audit.Outcome).
	Outcome        string    `json:"outcome"`
	Mismatches     int       `json:"mismatches"`
	NotReDerivable int       `json:"not_re_derivable"`
	Notes          int       `json:"notes"`
	Findings       []Finding `json:"findings"`

	// Preflight is the verdict's metadata.environment.preflight.
	Preflight *profiles.PreflightResult `json:"preflight,omitempty"`
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
	doc := document{Bundle: a.Bundle, Verdict: a.VerdictDigest, Overall: string(a.Verdict.Overall), Safety: string(a.Verdict.Safety),
		Reproduced: a.Reproduced(), Outcome: a.Outcome(), Mismatches: a.Mismatches(), NotReDerivable: a.NotReDerivable(),
		Notes: Count(a.Findings, SeverityNote), Findings: a.Findings,
		Preflight: a.Verdict.Metadata.Environment.Preflight}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if a.Claim != nil {
		doc.Claim = &claimInfo{Source: a.Claim.Source, Shape: a.Claim.Shape, Format: a.Claim.Format}
	}
	if a.Wire != nil {
		n := len(a.Wire.Calls)
		doc.Calls = &n
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
