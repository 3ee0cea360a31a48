package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/attest"
	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

var _ = registerEvaluation(store.KindKensaRun, evaluationCommands{replay: replayKensa, audit: auditKensa, expect: expectKensa})

// replayKensa re-derives a Kensa run's result, as replay does for an OASIS run: --repeat N
// proves one verdict digest over N loads and evaluations, the verdict and its receipt are
// stored unless --no-store, and --sign writes the signed receipt, whose definition is the
// scenario's definition tree.
func replayKensa(c *cli.Context, s store.Store, d store.Digest, _ store.Manifest) error {
	signer, err := loadSigner(c)
	if err != nil {
		return err
	}
	b, res, divergence, err := replay.RepeatKensa(c.Context, s, d, c.Int("repeat"))
	if err != nil {
		return err
	}
	// Human output goes to stdout; with --json, stdout carries only the verdict bytes.
	human := c.App.Writer
	if c.Bool("json") {
		human = c.App.ErrWriter
	}
	if divergence != nil {
		if err := replay.WriteKensaRepeat(human, c.Int("repeat"), res, divergence); err != nil {
			return err
		}
		return reported{status: exitMismatch}
	}
	if c.Bool("json") {
		_, err = c.App.Writer.Write(res.Canonical)
	} else {
		err = writeKensaSummary(human, b, res)
	}
	if err != nil {
		return err
	}
	if n := c.Int("repeat"); n > 1 {
		if err := replay.WriteKensaRepeat(human, n, res, nil); err != nil {
			return err
		}
	}
	if err := finishReplay(c, s, human, res.Canonical, res.Receipt, c.Bool("no-store")); err != nil {
		return err
	}
	return writeSignedReceipt(c, human, signer, res.Predicate)
}

// expectKensa is what a signed receipt of the Kensa bundle d must name.
func expectKensa(c *cli.Context, s store.Store, d store.Digest) (attest.Expect, store.EvaluatorInfo, error) {
	b, err := replay.LoadKensa(c.Context, s, d)
	if err != nil {
		return attest.Expect{}, store.EvaluatorInfo{}, err
	}
	res, err := b.Evaluate()
	if err != nil {
		return attest.Expect{}, store.EvaluatorInfo{}, err
	}
	return res.Receipt.Expect(), res.Receipt.Evaluator, nil
}

func writeKensaSummary(w io.Writer, b *replay.KensaBundle, res *replay.KensaResult) error {
	p := textout.New(w)
	r := res.Result
	subject := r.ScenarioID
	if r.Case > 0 {
		subject += fmt.Sprintf(" (dataset row %d)", r.Case)
	}
	p.Line("kensa run %s of scenario %s: %s", b.Manifest.RunID, subject, strings.ToUpper(r.Status))
	for _, c := range r.CheckResults {
		mark := "pass"
		if !c.Passed {
			mark = "FAIL"
		}
		p.Line("  %-4s %s: %s", mark, c.Check, c.Detail)
	}
	switch {
	case r.Judge == nil && b.Evidence.Scenario.NeedsJudge() && r.Status == ekensa.StatusFail:
		p.Line("  judge: skipped (a check failed)")
	case r.Judge != nil && r.Judge.Status == "pending":
		p.Line("  judge: pending — the scenario has criteria and no judgement was recorded")
	case r.Judge != nil:
		verdict := "none"
		if r.Judge.Verdict != nil {
			verdict = *r.Judge.Verdict
		}
		p.Line("  judge: recorded judgement used, not re-run (source %s, verdict %s)", r.Judge.Source, verdict)
	}
	if r.Error != nil {
		p.Line("  error: %s", *r.Error)
	}
	p.Line("evidence %s", b.Manifest.Evidence)
	p.Line("verdict %s", res.Verdict)
	return p.Err()
}

// auditKensa compares the result Kensa recorded with the re-derived one.
func auditKensa(c *cli.Context, s store.Store, d store.Digest, _ store.Manifest) error {
	if c.String("report") != "" {
		return argsError(c, "--report: bundle %s is a Kensa run, audited against the result Kensa recorded in it", d.Short())
	}
	trusted, err := loadTrusted(c)
	if err != nil {
		return err
	}
	b, err := replay.LoadKensa(c.Context, s, d)
	if err != nil {
		return err
	}
	claimed, err := replay.KensaClaimed(c.Context, s, b.Manifest)
	if err != nil {
		return err
	}
	if claimed == nil && trusted == nil {
		return fmt.Errorf("%w: audit: bundle %s was recorded by kensa run and holds no result of Kensa's to compare; replay it, or audit a signed receipt of it with --require-signature", errBadUsage, d.Short())
	}
	res, err := b.Evaluate()
	if err != nil {
		return err
	}
	if err := requireSignature(c, c.App.ErrWriter, trusted, res.Receipt.Expect()); err != nil {
		return err
	}
	if claimed == nil {
		// The signed receipt was the only claim, and it holds.
		fmt.Fprintf(c.App.Writer, "kensa run %s, scenario %s: recorded by kensa run; the signed receipt vouches for the verdict re-derived (%s)\nverdict %s\n",
			b.Manifest.RunID, res.Result.ScenarioID, res.Result.Status, res.Verdict)
		return nil
	}
	diffs := ekensa.Compare(res.Result, *claimed)
	audit := kensaAudit{Bundle: d, Scenario: res.Result.ScenarioID, Case: res.Result.Case, RunID: b.Manifest.RunID,
		Status: res.Result.Status, Verdict: res.Verdict, Reproduced: ekensa.Reproduced(diffs), Outcome: ekensa.Outcome(diffs),
		Differences: []kensaDifference{}}
	for _, df := range diffs {
		audit.Differences = append(audit.Differences, kensaDifference{Difference: df,
			Evidence: ekensa.Cite(b.Evidence, res.Result.CheckType(df.Field))})
	}
	switch c.String("format") {
	case "json":
		err = writeCanonical(c.App.Writer, audit)
	case "junit":
		err = audit.writeJUnit(c.App.Writer, res.Result)
	default:
		err = audit.writeText(c.App.Writer)
	}
	if err != nil {
		return err
	}
	switch audit.Outcome {
	case ekensa.OutcomeMismatch:
		return reported{status: exitMismatch}
	case ekensa.OutcomeNotReDerivable:
		return reported{status: exitNotReDerivable}
	}
	return nil
}

type kensaAudit struct {
	Bundle     store.Digest `json:"bundle"`
	Scenario   string       `json:"scenario"`
	Case       int          `json:"case"`
	RunID      string       `json:"run_id"`
	Status     string       `json:"status"`
	Verdict    store.Digest `json:"verdict"`
	Reproduced bool         `json:"reproduced"`
	// Outcome is reproduced, not-re-derivable or mismatch (ekensa.Outcome).
	Outcome     string            `json:"outcome"`
	Differences []kensaDifference `json:"differences"`
}

type kensaDifference struct {
	ekensa.Difference
	Evidence []string `json:"evidence"`
}

// writeText lists every difference: MISMATCH for one that changes an outcome, "differs" for a
// text or number beside it (both fail the audit), "note" for words only (Difference.Wording),
// which does not.
func (a *kensaAudit) writeText(w io.Writer) error {
	p := textout.New(w)
	notes, cannot := 0, 0
	for _, d := range a.Differences {
		switch {
		case d.Wording != "":
			notes++
		case d.NotReDerivable != "":
			cannot++
		}
	}
	status := a.Status
	if status == ekensa.StatusPending {
		status = "error: criteria not judged; pending here"
	}
	switch {
	case a.Reproduced && notes > 0:
		p.Line("kensa run %s, scenario %s: Kensa's recorded result (%s) is re-derived exactly from the evidence; %d difference(s) of wording only, noted below, decide nothing",
			a.RunID, a.Scenario, status, notes)
	case a.Reproduced:
		p.Line("kensa run %s, scenario %s: Kensa's recorded result (%s) is re-derived exactly from the evidence", a.RunID, a.Scenario, status)
	case a.Outcome == ekensa.OutcomeNotReDerivable:
		p.Line("kensa run %s, scenario %s: Kensa's recorded result cannot be re-derived here: %d difference(s) are about what this evaluator cannot evaluate as Kensa would; none contradicts the evidence",
			a.RunID, a.Scenario, cannot)
	default:
		p.Line("kensa run %s, scenario %s: %d difference(s) from Kensa's recorded result, %d of them of wording only, %d not re-derivable", a.RunID, a.Scenario, len(a.Differences), notes, cannot)
	}
	for _, d := range a.Differences {
		kind := "differs"
		switch {
		case d.NotReDerivable != "":
			kind = "not-re-derivable"
		case d.Decisive:
			kind = "MISMATCH"
		case d.Wording != "":
			kind = "note"
		}
		p.Line("  %s %s: Kensa recorded %s, the evidence gives %s", kind, d.Field, d.Claimed, d.Derived)
		if d.Wording != "" {
			p.Line("      wording only: %s", d.Wording)
			continue
		}
		if d.NotReDerivable != "" {
			p.Line("      cause: %s", d.NotReDerivable)
			continue
		}
		for _, e := range d.Evidence {
			p.Line("      evidence: %s", e)
		}
	}
	p.Line("verdict %s", a.Verdict)
	return p.Err()
}

func (a *kensaAudit) writeJUnit(w io.Writer, r *ekensa.Result) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "kensa " + a.Scenario + " run " + a.RunID}
	byField := func(prefix string) *failure {
		var msgs []string
		for _, d := range a.Differences {
			if d.Wording == "" && d.NotReDerivable == "" && (d.Field == prefix || strings.HasPrefix(d.Field, prefix+".")) {
				msgs = append(msgs, fmt.Sprintf("%s: Kensa recorded %s, the evidence gives %s", d.Field, d.Claimed, d.Derived))
			}
		}
		if msgs == nil {
			return nil
		}
		return &failure{Message: msgs[0], Text: strings.Join(msgs, "\n")}
	}
	s.Cases = append(s.Cases, testcase{Name: "status", Classname: a.Scenario, Failure: byField("status")})
	for i, c := range r.CheckResults {
		s.Cases = append(s.Cases, testcase{Name: fmt.Sprintf("%d %s", i, c.Check), Classname: a.Scenario, Failure: byField(fmt.Sprintf("check_results[%d]", i))})
	}
	s.Cases = append(s.Cases, testcase{Name: "trace", Classname: a.Scenario, Failure: byField("trace")})
	s.Tests = len(s.Cases)
	for _, tc := range s.Cases {
		if tc.Failure != nil {
			s.Failures++
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
