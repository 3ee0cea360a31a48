package kensa

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// Evidence is everything the evaluation of one Kensa run reads.
type Evidence struct {
	// Digest is the stored evidence object's (store.KensaEvidence), which the verdict names;
	// zero for evidence not yet stored.
	Digest   store.Digest
	Scenario *kensa.Scenario
	// JudgeSpec is the spec the scenario's judge names, nil otherwise.
	JudgeSpec *kensa.JudgeSpec
	// Case is the 1-based dataset row (0 without a dataset); Row the row, None without one.
	Case  int
	Row   pyvalue.Value
	Input pyvalue.Value
	// ExitCode is Kensa's exit code of the run; RunError is why the run has no trace (Kensa's
	// runner records it as the run's stderr), "" otherwise.
	ExitCode int
	RunError string
	// HasTrace is false when no spans were captured; TraceError is set when the recorded trace
	// could not be read (Kensa: "Failed to read trace").
	HasTrace   bool
	TracePath  string
	TraceError string
	Spans      []kensa.Span
	// Stdout and Stderr are the captured output as Kensa keeps it for the judge and errors.
	Stdout, Stderr string
	// Judgement is the recorded judgement, nil when no judge ran.
	Judgement *Judgement
}

// Judgement is a recorded LLM judgement.
type Judgement struct {
	// Source is "judge-cmd" or "kensa" (see store.KensaJudgement).
	Source string
	Model  string
	// Prompt is the prompt the judge was given ("" when not recorded); Answer what it said:
	// raw text, or for Source "kensa" the judge_result object Kensa recorded.
	Prompt, Answer string
	// Failed is the judge command's failure (it did not start, exited non-zero, timed out).
	Failed string
}

// RecordedJudgement is the judgement j records, with the bytes of its prompt (nil when none
// was recorded) and of its answer: what replay and kensa run both evaluate.
func RecordedJudgement(j *store.KensaJudgement, prompt, answer []byte) *Judgement {
	out := &Judgement{Source: j.Source, Model: j.Model, Prompt: string(prompt), Answer: string(answer)}
	if j.Exit.Code != 0 || j.Exit.TimedOut || j.Exit.Error != "" {
		out.Failed = j.Exit.Error
		if out.Failed == "" {
			out.Failed = fmt.Sprintf("judge command exited with code %d", j.Exit.Code)
		}
	}
	return out
}

// Statuses of a run. Pass, fail, error and uncertain are Kensa's; pending is a run whose
// checks passed and whose criteria have no recorded judgement.
const (
	StatusPass      = "pass"
	StatusFail      = "fail"
	StatusError     = "error"
	StatusUncertain = "uncertain"
	StatusPending   = "pending"
)

// Result is the evaluation of one run: Kensa's Result, plus what replay says of the judge.
type Result struct {
	Evidence     store.Digest
	ScenarioID   string
	Case         int
	Status       string
	Input        pyvalue.Value
	Expected     *string
	CheckResults []CheckResult
	Judge        *JudgeOutcome
	Trace        *TraceSummary
	Error        *string
	// ErrorWordedFrom is where, in Error, another program's own words begin (the document
	// model's error where Kensa writes Python's, a judge command's failure where Kensa writes
	// its judge client's); 0 when every word of Error is Kensa's.
	ErrorWordedFrom int
}

// JudgeOutcome is the judge's part of a result.
type JudgeOutcome struct {
	// Status is "recorded" (a judgement was recorded and is used) or "pending" (criteria were
	// not judged).
	Status    string
	Passed    bool
	Reasoning string
	// Verdict is the judge's verdict (pass, fail, uncertain), nil when it gave none.
	Verdict  *string
	Evidence []string
	Source   string
	Model    string
	// PromptReproduced says whether the recorded prompt is the one this evaluation builds from
	// the same evidence (nil when no prompt was recorded).
	PromptReproduced *bool
}

// TraceSummary is Kensa's TraceSummary.
type TraceSummary struct {
	Path            string
	LLMCalls        int
	ToolCalls       int
	TotalTokens     int64
	CostUSD         float64
	DurationSeconds float64
}

// Evaluate derives the result of one run, as judge.judge_manifest and judge_scenario do.
func Evaluate(ev *Evidence) *Result {
	r := &Result{Evidence: ev.Digest, ScenarioID: ev.Scenario.ID, Case: ev.Case, Input: ev.Input, Expected: expected(ev.Row)}
	switch {
	case !ev.HasTrace:
		msg := ev.RunError
		if msg == "" {
			msg = ev.Stderr
		}
		if msg == "" {
			msg = "Scenario failed before traces were captured."
		}
		r.Status, r.Error = StatusError, &msg
		return r
	case ev.TraceError != "":
		head := fmt.Sprintf("Failed to read trace %s: ", pyvalue.StrRepr(ev.TracePath))
		msg := head + ev.TraceError
		r.Status, r.Error, r.ErrorWordedFrom = StatusError, &msg, len(head)
		return r
	case ev.ExitCode != 0:
		msg := fmt.Sprintf("Scenario subprocess exited with code %d.", ev.ExitCode)
		if ev.Stderr != "" {
			msg += "\nstderr:\n" + ev.Stderr
		}
		r.Status, r.Error, r.Trace = StatusError, &msg, summarize(ev.Spans, ev.TracePath)
		return r
	}
	r.Trace = summarize(ev.Spans, ev.TracePath)
	r.CheckResults = runChecks(ev)
	unsupported := false
	failed := false
	for _, c := range r.CheckResults {
		failed = failed || !c.Passed
		unsupported = unsupported || c.Unsupported
	}
	switch {
	case unsupported:
		msg := "a check could not be evaluated as Kensa would (see its detail)"
		r.Status, r.Error = StatusError, &msg
	case failed:
		r.Status = StatusFail
	case !ev.Scenario.NeedsJudge():
		r.Status = StatusPass
	default:
		judge(ev, r)
	}
	return r
}

// expected is judge._extract_expected: str(row["expected"]).
func expected(row pyvalue.Value) *string {
	v, ok := row.Get("expected")
	if !ok {
		return nil
	}
	s := pyvalue.Str(v)
	return &s
}

// runChecks runs every check in order, with dataset placeholders substituted and runtime
// params validated first (a failing validation fails the check with its message).
func runChecks(ev *Evidence) []CheckResult {
	out := make([]CheckResult, 0, len(ev.Scenario.Checks))
	for _, c := range ev.Scenario.Checks {
		params := kensa.SubstituteParams(c.Params, ev.Row)
		if err := kensa.ValidateRuntimeParams(c.Type, params); err != nil {
			out = append(out, result(c.Type, false, err.Error()))
			continue
		}
		out = append(out, checkFuncs[c.Type](ev.Spans, params))
	}
	return out
}

// summarize is judge._build_trace_summary.
func summarize(spans []kensa.Span, path string) *TraceSummary {
	t := &TraceSummary{Path: path, LLMCalls: llmSpans(spans), ToolCalls: len(toolCalls(spans, false))}
	for i := range spans {
		if spans[i].Tokens != nil {
			t.TotalTokens += spans[i].Tokens.Total
		}
		if spans[i].Cost != nil {
			t.CostUSD += spans[i].Cost.Total
		}
	}
	t.DurationSeconds = pyvalue.Round(durationSeconds(spans), 2)
	return t
}

// judge applies the recorded judgement, or leaves the run pending.
func judge(ev *Evidence, r *Result) {
	j := ev.Judgement
	if j == nil {
		r.Status = StatusPending
		r.Judge = &JudgeOutcome{Status: "pending"}
		return
	}
	if j.Failed != "" {
		const head = "Judge error: "
		msg := head + j.Failed
		r.Status, r.Error, r.ErrorWordedFrom = StatusError, &msg, len(head)
		return
	}
	out := ParseJudgeAnswer(j.Answer, j.Source == "kensa")
	out.Status, out.Source, out.Model = "recorded", j.Source, j.Model
	if j.Prompt != "" {
		same := j.Prompt == BuildJudgePrompt(ev)
		out.PromptReproduced = &same
	}
	r.Judge = out
	switch {
	case out.Verdict != nil:
		r.Status = *out.Verdict
	case out.Passed:
		r.Status = StatusPass
	default:
		r.Status = StatusFail
	}
}

// ParseJudgeAnswer is judge._parse_judge_response; with recorded set, answer is the
// judge_result object Kensa wrote in a result.
func ParseJudgeAnswer(answer string, recorded bool) *JudgeOutcome {
	if recorded {
		v, _ := pyvalue.Loads("judge_result", []byte(answer))
		out := &JudgeOutcome{}
		p, _ := v.Get("passed")
		out.Passed, _ = p.AsBool()
		reasoning, _ := v.Get("reasoning")
		out.Reasoning, _ = reasoning.AsStr()
		if verdict, ok := v.Get("verdict"); ok && !verdict.IsNull() {
			s := pyvalue.Str(verdict)
			out.Verdict = &s
		}
		ev, _ := v.Get("evidence")
		for _, e := range ev.Items() {
			out.Evidence = append(out.Evidence, pyvalue.Str(e))
		}
		return out
	}
	text := strings.TrimSpace(answer)
	if strings.HasPrefix(text, "```") {
		lines := strings.Split(text, "\n")
		if strings.TrimSpace(lines[len(lines)-1]) == "```" {
			lines = lines[1 : len(lines)-1]
		} else {
			lines = lines[1:]
		}
		text = strings.TrimSpace(strings.Join(lines, "\n"))
	}
	v, err := pyvalue.Loads("judge answer", []byte(text))
	if err != nil || v.Kind() != pyvalue.KindDict {
		fail := StatusFail
		return &JudgeOutcome{Reasoning: "Failed to parse judge response: " + firstRunes(text, 200), Verdict: &fail}
	}
	out := &JudgeOutcome{}
	if reasoning, ok := v.Get("reasoning"); ok {
		out.Reasoning = pyvalue.Str(reasoning)
	}
	if ev, ok := v.Get("evidence"); ok && ev.Kind() == pyvalue.KindList {
		for _, e := range ev.Items() {
			out.Evidence = append(out.Evidence, pyvalue.Str(e))
		}
	}
	if verdict, ok := v.Get("verdict"); ok {
		if s, isStr := verdict.AsStr(); isStr && s != "" {
			switch ls := strings.ToLower(s); ls {
			case StatusPass, StatusFail, StatusError, StatusUncertain:
				out.Verdict = &ls
				out.Passed = ls == StatusPass
			}
			return out
		}
	}
	passed, _ := v.Get("passed")
	out.Passed = pyvalue.Truthy(passed)
	verdict := StatusFail
	if out.Passed {
		verdict = StatusPass
	}
	out.Verdict = &verdict
	return out
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
