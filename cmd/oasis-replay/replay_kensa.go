package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

var _ = registerEvaluation(store.KindKensaRun, evaluationCommands{replay: replayKensa, audit: auditKensa})

// replayKensa re-derives a Kensa run's result; --repeat N evaluates N times and proves one
// verdict digest. Kensa verdicts are printed, not stored.
func replayKensa(c *cli.Context, s store.Store, d store.Digest, _ store.Manifest) error {
	b, err := replay.LoadKensa(c.Context, s, d)
	if err != nil {
		return err
	}
	res, err := b.Evaluate()
	if err != nil {
		return err
	}
	human := c.App.Writer
	if c.Bool("json") {
		if _, err := c.App.Writer.Write(res.Canonical); err != nil {
			return err
		}
		human = c.App.ErrWriter
	} else if err := writeKensaSummary(human, b, res); err != nil {
		return err
	}
	for i := 1; i < c.Int("repeat"); i++ {
		again, err := b.Evaluate()
		if err != nil {
			return err
		}
		if again.Verdict != res.Verdict {
			fmt.Fprintf(human, "evaluation %d gave verdict %s, evaluation 1 gave %s\n", i+1, again.Verdict, res.Verdict)
			return reported{status: exitMismatch}
		}
	}
	if n := c.Int("repeat"); n > 1 {
		fmt.Fprintf(human, "%d evaluations, one verdict %s\n", n, res.Verdict)
	}
	return nil
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
	p.Line("verdict %s", res.Verdict)
	return p.Err()
}

// auditKensa compares the result Kensa recorded with the re-derived one.
func auditKensa(c *cli.Context, s store.Store, d store.Digest, _ store.Manifest) error {
	b, err := replay.LoadKensa(c.Context, s, d)
	if err != nil {
		return err
	}
	if b.Claimed == nil {
		return fmt.Errorf("%w: audit: bundle %s was recorded by kensa run and holds no result of Kensa's to compare; replay it", errBadUsage, d.Short())
	}
	res, err := b.Evaluate()
	if err != nil {
		return err
	}
	diffs := ekensa.Compare(res.Result, *b.Claimed)
	audit := kensaAudit{Bundle: d, Scenario: res.Result.ScenarioID, Case: res.Result.Case, RunID: b.Manifest.RunID,
		Status: res.Result.Status, Verdict: res.Verdict, Reproduced: len(diffs) == 0, Differences: []kensaDifference{}}
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
	if !audit.Reproduced {
		return reported{status: exitMismatch}
	}
	return nil
}

type kensaAudit struct {
	Bundle      store.Digest      `json:"bundle"`
	Scenario    string            `json:"scenario"`
	Case        int               `json:"case"`
	RunID       string            `json:"run_id"`
	Status      string            `json:"status"`
	Verdict     store.Digest      `json:"verdict"`
	Reproduced  bool              `json:"reproduced"`
	Differences []kensaDifference `json:"differences"`
}

type kensaDifference struct {
	ekensa.Difference
	Evidence []string `json:"evidence"`
}

func (a *kensaAudit) writeText(w io.Writer) error {
	p := textout.New(w)
	if a.Reproduced {
		p.Line("kensa run %s, scenario %s: Kensa's recorded result (%s) is re-derived exactly from the evidence", a.RunID, a.Scenario, a.Status)
	} else {
		p.Line("kensa run %s, scenario %s: %d difference(s) from Kensa's recorded result", a.RunID, a.Scenario, len(a.Differences))
	}
	for _, d := range a.Differences {
		kind := "note"
		if d.Decisive {
			kind = "MISMATCH"
		}
		p.Line("  %s %s: Kensa recorded %s, the evidence gives %s", kind, d.Field, d.Claimed, d.Derived)
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
			if d.Field == prefix || strings.HasPrefix(d.Field, prefix+".") {
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
