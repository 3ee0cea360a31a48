package kensa

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Cite lists the evidence that decides a check of the given type (for a status, every
// check's), one line each: the agent output, the canonical tool calls, the turns, the cost
// and the duration a check reads.
func Cite(ev *Evidence, checkType string) []string {
	out := agentOutput(ev.Spans)
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	all := checkType == ""
	if all || checkType == kensa.CheckOutputContains || checkType == kensa.CheckOutputMatches {
		add("agent output (last LLM span by end time): %s", pyvalue.StrRepr(out))
	}
	if all || strings.HasPrefix(checkType, "tool") || checkType == kensa.CheckTrajectory || checkType == kensa.CheckNoRepeatCalls {
		var calls []string
		for _, c := range toolCalls(ev.Spans, true) {
			calls = append(calls, c.name+pyvalue.DumpsSorted(c.args))
		}
		add("tool calls in start order: %s", strings.Join(calls, ", "))
	}
	if all || checkType == kensa.CheckMaxTurns {
		add("LLM calls: %d", llmSpans(ev.Spans))
	}
	if all || checkType == kensa.CheckMaxCost {
		total := 0.0
		for i := range ev.Spans {
			if ev.Spans[i].Cost != nil {
				total += ev.Spans[i].Cost.Total
			}
		}
		add("total cost: %s USD", pyvalue.FloatRepr(total))
	}
	if all || checkType == kensa.CheckMaxDuration || checkType == kensa.CheckTrajectory {
		add("span duration: %s s over %d spans", pyvalue.FloatRepr(durationSeconds(ev.Spans)), len(ev.Spans))
	}
	return lines
}

// CheckType returns the type of the check a compared field belongs to ("" for run-level
// fields).
func (r *Result) CheckType(field string) string {
	var i int
	if _, err := fmt.Sscanf(field, "check_results[%d]", &i); err == nil && i < len(r.CheckResults) {
		return r.CheckResults[i].Check
	}
	return ""
}

// Observed is what statistics read of a run's spans: Kensa's analysis inputs (analyzer.py)
// and the evidence a divergence is located in.
type Observed struct {
	// Calls are the canonical tool calls in start order, as name + sorted JSON arguments.
	Calls      []string
	CallNames  []string
	Output     string
	LLMCalls   int
	ErrorSpans bool
	Repeated   []string
	// Duration is the spans' latest end minus their earliest start in seconds, unrounded:
	// analyzer.analyze_traces flags latency outliers on it, where a result's trace summary
	// (capture.py) rounds it to 0.01 s.
	Duration float64
}

// Observe reads the spans of ev.
func Observe(ev *Evidence) Observed {
	o := Observed{Output: agentOutput(ev.Spans), LLMCalls: llmSpans(ev.Spans), Repeated: repeatedNames(ev.Spans, true),
		Duration: durationSeconds(ev.Spans)}
	for _, c := range toolCalls(ev.Spans, true) {
		o.Calls = append(o.Calls, c.name+pyvalue.DumpsSorted(c.args))
		o.CallNames = append(o.CallNames, c.name)
	}
	for i := range ev.Spans {
		o.ErrorSpans = o.ErrorSpans || ev.Spans[i].Status == "error"
	}
	return o
}
