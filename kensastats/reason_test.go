package kensastats

import (
	"strings"
	"testing"
	"unicode/utf8"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// Reason is the first cause of a run's not passing, one short line: what kensa run and kensa
// stats list beside a run's status, where the status alone ("error") says nothing of why.
func TestReason(t *testing.T) {
	str := func(s string) *string { return &s }
	traced := &ekensa.TraceSummary{LLMCalls: 1}
	noLLM := &ekensa.TraceSummary{LLMCalls: 0, ToolCalls: 1}
	failed := func(check, detail string) ekensa.CheckResult {
		return ekensa.CheckResult{Check: check, Detail: detail}
	}
	passed := ekensa.CheckResult{Check: "max_turns", Passed: true, Detail: "1 turns"}
	tests := []struct {
		name   string
		exit   store.KensaExit
		result ekensa.Result
		want   string
	}{
		{"pass", store.KensaExit{}, ekensa.Result{Status: "pass", Trace: traced}, ""},
		{"no traces, first line of Kensa's error", store.KensaExit{Code: -1},
			ekensa.Result{Status: "error", Error: str("Scenario 'plain' ran successfully but produced no traces.\nstderr:\nhello")},
			"Scenario 'plain' ran successfully but produced no traces."},
		{"timed out without spans: the error says so", store.KensaExit{Code: -1, TimedOut: true},
			ekensa.Result{Status: "error", Error: str("Scenario 'hang' timed out after 1s.")},
			"Scenario 'hang' timed out after 1s."},
		{"timed out after its spans: the exit says so", store.KensaExit{Code: -1, TimedOut: true},
			ekensa.Result{Status: "error", Error: str("Scenario subprocess exited with code -1."), Trace: traced},
			"timed out (killed with its process group); Scenario subprocess exited with code -1."},
		{"killed by a signal", store.KensaExit{Code: -1, Signal: "SIGKILL"},
			ekensa.Result{Status: "error", Error: str("Scenario subprocess exited with code -1.\nstderr:\nx"), Trace: traced},
			"killed by signal SIGKILL; Scenario subprocess exited with code -1."},
		{"exit status", store.KensaExit{Code: 3},
			ekensa.Result{Status: "error", Error: str("Scenario subprocess exited with code 3.\nstderr:\nboom"), Trace: traced},
			"Scenario subprocess exited with code 3."},
		{"a check that cannot be evaluated", store.KensaExit{},
			ekensa.Result{Status: "error", Error: str("a check could not be evaluated as Kensa would (see its detail)"), Trace: traced,
				CheckResults: []ekensa.CheckResult{passed, {Check: "output_matches", Detail: "pattern (?=x) is not supported", Unsupported: true}}},
			"output_matches could not be evaluated as Kensa would: pattern (?=x) is not supported"},
		{"judge command failed", store.KensaExit{},
			ekensa.Result{Status: "error", Error: str("Judge error: judge command exited with code 4"), Trace: traced},
			"Judge error: judge command exited with code 4"},
		{"first failing check", store.KensaExit{},
			ekensa.Result{Status: "fail", Trace: traced, CheckResults: []ekensa.CheckResult{passed,
				failed("tools_called", "Missing tools: ['lookup_order']"), failed("max_cost", "over")}},
			"tools_called: Missing tools: ['lookup_order']"},
		{"an output check with no LLM span says where the output comes from", store.KensaExit{},
			ekensa.Result{Status: "fail", Trace: noLLM, CheckResults: []ekensa.CheckResult{failed("output_contains", "Not found: 'paris'")}},
			"output_contains: Not found: 'paris' (no LLM span: output is read from the last LLM span, not stdout)"},
		{"judge verdict", store.KensaExit{},
			ekensa.Result{Status: "fail", Trace: traced, CheckResults: []ekensa.CheckResult{passed},
				Judge: &ekensa.JudgeOutcome{Status: "recorded", Verdict: str("fail"), Reasoning: "Rude.\nVery."}},
			"judge: fail: Rude."},
		{"uncertain", store.KensaExit{},
			ekensa.Result{Status: "uncertain", Trace: traced, Judge: &ekensa.JudgeOutcome{Status: "recorded", Verdict: str("uncertain")}},
			"judge: uncertain"},
		{"pending", store.KensaExit{}, ekensa.Result{Status: "pending", Trace: traced, Judge: &ekensa.JudgeOutcome{Status: "pending"}},
			"criteria not judged: no judgement recorded (kensa run --judge-cmd)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Reason(tt.exit, &tt.result); got != tt.want {
				t.Errorf("Reason = %q, want %q", got, tt.want)
			}
		})
	}
}

// A reason is one line of at most reasonRunes runes; a long output check's detail is cut, its
// hint about where the output comes from kept.
func TestReasonIsShort(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, r := range []ekensa.Result{
		{Status: "error", Error: &long},
		{Status: "fail", Trace: &ekensa.TraceSummary{}, CheckResults: []ekensa.CheckResult{{Check: "output_contains", Detail: "Not found: '" + long + "'"}}},
		{Status: "fail", Trace: &ekensa.TraceSummary{LLMCalls: 1}, CheckResults: []ekensa.CheckResult{{Check: "output_matches", Detail: "a\tb\r" + long}}},
	} {
		got := Reason(store.KensaExit{}, &r)
		if n := utf8.RuneCountInString(got); n != reasonRunes || !strings.Contains(got, "…") || strings.ContainsAny(got, "\t\r\n") {
			t.Errorf("%d runes: %q", n, got)
		}
		if r.Trace != nil && r.Trace.LLMCalls == 0 && !strings.HasSuffix(got, noLLMSpan) {
			t.Errorf("hint cut: %q", got)
		}
	}
}
