package demo

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/kensastats"
)

// WriteKensaWalkthrough explains what RunKensa did: the runs recorded with the program as its
// own agent, each replayed to the status it was recorded with, the variance kensa stats
// finds, and the commands to try next. command is how to run the program on the store again.
func WriteKensaWalkthrough(w io.Writer, r *KensaResult, command string) error {
	p := textout.New(w)
	p.Line("oasis-replay demo kensa: a Kensa project run, recorded, replayed and measured offline.")
	p.Line("")
	p.Line("Two Kensa scenarios whose agent is this program acting as a scripted support agent")
	p.Line("(`%s demo-agent -- kensa`), run %d times each as `kensa run` runs them: the agent's output", ProgramName, KensaRuns)
	p.Line("and its OpenTelemetry spans, sent to kensa run's OTLP receiver, sealed as one bundle per run.")
	p.Line("")
	p.Line("1. Recorded: kensa run %s, %d runs", r.RunID, len(r.Runs))
	for _, run := range r.Runs {
		p.Line("   %s  %-14s run %d  %s", run.Bundle.Short(), run.Scenario, run.Repeat, run.Recorded)
	}
	p.Line("")
	p.Line("2. Replayed and audited: each run's checks re-derived from its bundle alone, receipts stored,")
	p.Line("   and the status compared with the one kensa run gave the run while recording")
	same := 0
	for _, run := range r.Runs {
		if run.Recorded == run.Replayed {
			same++
		}
	}
	if r.Reproduced() {
		p.Line("   result      reproduced: %d of %d runs replay to the status kensa run gave them", same, len(r.Runs))
	} else {
		p.Line("   result      NOT reproduced: %d of %d runs replay to another status", len(r.Runs)-same, len(r.Runs))
	}
	p.Line("")
	p.Line("3. Variance: kensa stats over every run of these scenarios in the store")
	for _, sc := range r.Stats.Scenarios {
		writeKensaScenario(p, sc)
	}
	p.Line("")
	p.Line("Next, explore the runs:")
	writeCommands(p, command, [][2]string{
		{"kensa stats", "pass rates, Wilson intervals, pass^k, flakiness, flags"},
		{"kensa stats --html kensa.html", "the same as a self-contained page"},
		{"replay " + KensaTag + "-refund-policy", "the last refund-policy run: each check and its detail"},
		{"kensa replay", "re-derive every recorded Kensa run in one process"},
		{"bundle show " + KensaTag + "-order-status", "what a Kensa run's bundle holds"},
	})
	return p.Err()
}

func writeKensaScenario(p *textout.Writer, sc *kensastats.Scenario) {
	flaky := "not flaky"
	if sc.Flaky {
		flaky = "FLAKY"
	}
	p.Line("   %-14s %d runs, pass rate %s (95%% %s–%s), %s, variance from %s", sc.ID, sc.Runs, sc.PassRate,
		sc.Wilson95[0], sc.Wilson95[1], flaky, orNone(sc.VarianceSource))
	if d := sc.Divergence; d != nil {
		p.Line("   %-14s first difference of a passing and a failing run: call %d, %s", "", d.Index, divergenceKinds[d.Kind])
		p.Line("   %-14s   failing %s", "", d.FailingSide)
		p.Line("   %-14s   passing %s", "", d.PassingSide)
	}
}

// divergenceKinds say the kinds of kensastats.Divergence in words.
var divergenceKinds = map[string]string{
	"tool_call":  "another tool",
	"argument":   "the same tool with other arguments",
	"extra_call": "a call only one of them made",
	"output":     "the same calls, another output",
	"none":       "none in what the checks read",
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// WriteEvalWalkthrough explains what RunEval did: the scenarios added, the matrix run with the
// program as its own agent, its heatmap, the verdict re-derived, the review queue, and the
// commands to try next.
func WriteEvalWalkthrough(w io.Writer, r *EvalResult, command string) error {
	p := textout.New(w)
	p.Line("oasis-replay demo eval: an Eval Library matrix, recorded, replayed and reviewed offline.")
	p.Line("")
	p.Line("The agent is this program acting as a scripted agent (`%s`): it answers both", EvalAgentCommand)
	p.Line("scenarios as expected, but gives in when told the CEO wants to proceed (authority bias).")
	p.Line("")
	p.Line("1. Scenarios added to the library")
	for _, a := range r.Scenarios {
		state := "added"
		if !a.Created {
			state = "already in the library"
		}
		p.Line("   %-16s version %d, %s", a.ID, a.Version, state)
	}
	p.Line("")
	m := r.Matrix
	runs := 0
	for i := range m.Verdict.Cells {
		runs += m.Verdict.Cells[i].Runs
	}
	p.Line("2. Matrix: every scenario × (baseline + %s), %d runs per cell", strings.Join(EvalVariations, ", "), EvalRuns)
	p.Line("   bundle      %s (%d runs, %d reused from an earlier demo)", m.Bundle, runs, r.Reused)
	var grid bytes.Buffer
	report := evallib.NewReport(&evallib.MatrixSummary{Bundle: m.Bundle, Manifest: m.Manifest, Verdict: m.Verdict}, nil)
	if err := report.WriteText(&grid, false); err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimRight(grid.String(), "\n"), "\n") {
		if l == "" {
			p.Line("")
			continue
		}
		p.Line("   %s", l)
	}
	p.Line("")
	p.Line("3. Replayed and audited: every number re-derived from the run bundles, and the verdict's")
	p.Line("   digest compared with the one recorded when the matrix was sealed")
	if r.Reproduced {
		p.Line("   result      reproduced: verdict %s, as recorded when the matrix was sealed", r.Replayed.Digest)
	} else {
		p.Line("   result      NOT reproduced: verdict %s differs from the one recorded", r.Replayed.Digest)
	}
	p.Line("")
	p.Line("4. Review queue: a shift above 0.5 on a critical scenario is routed to a human")
	if len(r.Review) == 0 {
		p.Line("   no open item (acknowledged or resolved already)")
	}
	for _, it := range r.Review {
		p.Line("   %s  %s / %s  shift %s > %s  %s", it.Item, it.Scenario, it.Variation, it.Shift, it.Threshold, it.State)
	}
	p.Line("")
	p.Line("Next, explore the matrix:")
	next := [][2]string{
		{"eval report --html eval.html", "the heatmap as a self-contained page"},
		{"replay " + m.Bundle.Short(), "the matrix's verdict, re-derived"},
		{"eval review ls", "the review queue"},
	}
	if len(r.Review) > 0 {
		next = append(next, [2]string{fmt.Sprintf("eval review ack %s --note 'looking'", r.Review[0].Item), "take the flagged cell"})
	}
	writeCommands(p, command, next)
	return p.Err()
}

// writeCommands lists commands to try, each after command, with what it shows.
func writeCommands(p *textout.Writer, command string, next [][2]string) {
	width := 54
	for _, c := range next {
		width = max(width, len(command)+1+len(c[0]))
	}
	for _, c := range next {
		p.Line("  %-*s  %s", width, command+" "+c[0], c[1])
	}
}
