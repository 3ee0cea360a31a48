package kensastats

import (
	"strings"
	"unicode/utf8"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// reasonRunes is how long a reason may be: a run list keeps one line per run, and the whole
// story is in replay BUNDLE.
const reasonRunes = 100

// Reason is the first cause of a run's not passing, one short line for run lists (kensa run,
// kensa stats); "" for a run that passed. It is a function of the recorded exit and the
// result replay derives, nothing else, so the same bundle always gets the same reason:
//
//   - error: a timeout or a signal the exit records (the result says only "exited with code
//     -1"), else the check that could not be evaluated, else the first line of the result's
//     error (Kensa's words: "… produced no traces.", "… subprocess crashed (exit=3).",
//     "Judge error: …");
//   - fail: the first failing check, "check: detail" (an output check of a trace with no LLM
//     span says so: Kensa reads the output from the last LLM span, never stdout), else the
//     judge's verdict and reasoning;
//   - uncertain: the judge's reasoning;
//   - pending: the criteria await a judgement.
func Reason(exit store.KensaExit, r *ekensa.Result) string {
	switch r.Status {
	case ekensa.StatusPass:
		return ""
	case ekensa.StatusPending:
		return "criteria not judged: no judgement recorded (kensa run --judge-cmd)"
	case ekensa.StatusError:
		return short(errorReason(exit, r))
	}
	for _, c := range r.CheckResults {
		if !c.Passed {
			return checkReason(c, r.Trace)
		}
	}
	if j := r.Judge; j != nil {
		verdict := r.Status
		if j.Verdict != nil {
			verdict = *j.Verdict
		}
		if j.Reasoning != "" {
			return short("judge: " + verdict + ": " + firstLine(j.Reasoning))
		}
		return "judge: " + verdict
	}
	return r.Status
}

func errorReason(exit store.KensaExit, r *ekensa.Result) string {
	msg := ""
	if r.Error != nil {
		msg = firstLine(*r.Error)
	}
	// The result of a run that timed out or was killed after sending spans says only "exited
	// with code -1": the exit says why. A run without spans has it in its error already.
	switch {
	case exit.TimedOut && !strings.Contains(msg, "timed out"):
		return join("timed out (killed with its process group)", msg)
	case exit.Signal != "" && !strings.Contains(msg, exit.Signal):
		return join("killed by signal "+exit.Signal, msg)
	}
	// The result's error says only that "a check" could not be evaluated: name it.
	for _, c := range r.CheckResults {
		if c.Unsupported {
			return c.Check + " could not be evaluated as Kensa would: " + firstLine(c.Detail)
		}
	}
	if msg == "" {
		return "error"
	}
	return msg
}

// noLLMSpan is what an output check's reason adds when the trace has no LLM span: Kensa's
// agent output is the last LLM span's output (utils.get_agent_output), empty without one,
// whatever the agent printed.
const noLLMSpan = " (no LLM span: output is read from the last LLM span, not stdout)"

func checkReason(c ekensa.CheckResult, t *ekensa.TraceSummary) string {
	s := c.Check + ": " + firstLine(c.Detail)
	if (c.Check == "output_contains" || c.Check == "output_matches") && t != nil && t.LLMCalls == 0 {
		// The hint is kept whole; the detail is what is cut.
		return shortTo(s, reasonRunes-utf8.RuneCountInString(noLLMSpan)) + noLLMSpan
	}
	return short(s)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// short cuts s to reasonRunes runes, marking the cut; tabs and carriage returns become
// spaces so that a reason stays one column of one line.
func short(s string) string { return shortTo(s, reasonRunes) }

func shortTo(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	runes := []rune(s)
	return string(runes[:n-1]) + "…"
}
