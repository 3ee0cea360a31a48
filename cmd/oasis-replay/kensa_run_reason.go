package main

import (
	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/kensastats"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
)

// kensaRunOutputHelp is what kensa run --help says of the output the checks read.
const kensaRunOutputHelp = "The output that output_contains and output_matches check is the text of the output of the\n" +
	"agent's last LLM span by end time (its output messages, else its output.value), as in Kensa,\n" +
	"never its stdout: an agent that sends no LLM span has an empty output, and an agent that sends\n" +
	"no span at all is an error run (\"produced no traces\").\n" +
	"examples/kensa-starter is an agent that sends one. Each run listed that did not pass says\n" +
	"why: the first cause (no traces, a timeout, an exit status, the first failing check's\n" +
	"detail, the judge's verdict); replay BUNDLE tells the rest."

// reasonColumn is the reason column of a sealed run's line: two spaces and the first cause
// of its not passing (kensastats.Reason), "" for a run that passed. The record is evaluated
// as replay evaluates its bundle, so the reason is the one kensa stats lists.
func reasonColumn(rec *rkensa.Record) string {
	if rec.Status == ekensa.StatusPass {
		return ""
	}
	ev, err := rkensa.EvidenceOf(rec)
	if err != nil {
		return "  " + rec.Status
	}
	if reason := kensastats.Reason(rec.Exit, ekensa.Evaluate(ev)); reason != "" {
		return "  " + reason
	}
	return ""
}
