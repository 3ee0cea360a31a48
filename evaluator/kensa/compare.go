package kensa

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Difference is one place where a result Kensa recorded differs from the derived one.
type Difference struct {
	// Field is the path in Kensa's result ("status", "check_results[1].passed").
	Field string `json:"field"`
	// Claimed and Derived are the two values in Python's repr.
	Claimed string `json:"claimed"`
	Derived string `json:"derived"`
	// Decisive is true when the difference changes an outcome (a status, a check's passed, the
	// judge's verdict), false for text and numbers reported beside them.
	Decisive bool `json:"decisive"`
	// Wording, when set, says why the difference is one of words only — the same fact in
	// Python's words and in Go's — and such a difference is a note: the result is still
	// re-derived exactly (Reproduced). Decisive differences are never wording.
	Wording string `json:"wording,omitempty"`
	// NotReDerivable, when set, is why this evaluator cannot evaluate what the difference is
	// about exactly as Kensa would (a check it does not reproduce, a search past its step
	// budget): the claim is neither confirmed nor contradicted, so the difference is no
	// mismatch (Outcome). Wording and NotReDerivable are never both set.
	NotReDerivable string `json:"not_re_derivable,omitempty"`
}

// Outcomes of an audit of a Kensa result (Outcome).
const (
	// OutcomeReproduced: Kensa's result is re-derived exactly (differences of wording only).
	OutcomeReproduced = "reproduced"
	// OutcomeNotReDerivable: no difference contradicts Kensa's result, but some could not be
	// re-derived (Difference.NotReDerivable).
	OutcomeNotReDerivable = "not-re-derivable"
	// OutcomeMismatch: at least one difference contradicts Kensa's result.
	OutcomeMismatch = "mismatch"
)

// Outcome is what diffs say of Kensa's recorded result: a mismatch if any difference is more
// than wording and was re-derivable, not-re-derivable if some could not be, reproduced
// otherwise.
func Outcome(diffs []Difference) string {
	out := OutcomeReproduced
	for _, d := range diffs {
		switch {
		case d.Wording != "":
		case d.NotReDerivable != "":
			out = OutcomeNotReDerivable
		default:
			return OutcomeMismatch
		}
	}
	return out
}

// Reproduced reports whether diffs leave Kensa's recorded result re-derived exactly: none of
// them is more than a difference of wording.
func Reproduced(diffs []Difference) bool {
	for _, d := range diffs {
		if d.Wording == "" {
			return false
		}
	}
	return true
}

// wordingNoJudge is why Kensa's error for criteria it could not judge and a pending run differ
// in words only.
const wordingNoJudge = "no judgement was recorded: Kensa's text says why its judge could not run, this evaluation leaves the criteria pending"

// wordingOf is why two texts that agree up to head differ in words only.
func wordingOf(head string) string {
	return fmt.Sprintf("the same message up to %s; what follows is the error in this evaluator's words where Kensa quotes Python's", pyvalue.StrRepr(head))
}

// Compare lists the differences between the result Kensa recorded (a results file element)
// and r, field by field in Kensa's order. The judge's part is compared as recorded: replay
// does not re-judge. A text whose only difference is in the words of another engine (see
// CheckResult.WordedFrom, Result.ErrorWordedFrom), and Kensa's error for criteria it could
// not judge where r is pending, are differences of wording (Difference.Wording).
func Compare(r *Result, claimed pyvalue.Value) []Difference {
	var diffs []Difference
	add := func(field string, c, d pyvalue.Value, decisive bool) *Difference {
		if !c.Equal(d) || c.Kind() != d.Kind() && !(isNumber(c) && isNumber(d)) {
			diffs = append(diffs, Difference{Field: field, Claimed: pyvalue.Repr(c), Derived: pyvalue.Repr(d), Decisive: decisive})
			return &diffs[len(diffs)-1]
		}
		return nil
	}
	get := func(v pyvalue.Value, k string) pyvalue.Value { x, _ := v.Get(k); return x }
	add("scenario_id", get(claimed, "scenario_id"), pyvalue.NewStr(r.ScenarioID), true)
	sameStatus := add("status", get(claimed, "status"), pyvalue.NewStr(AsKensa(r.Status)), true) == nil
	add("expected", get(claimed, "expected"), optStr(r.Expected), false)
	if d := add("error", get(claimed, "error"), optStr(r.Error), false); d != nil && sameStatus {
		d.Wording = errorWording(r, get(claimed, "error"))
	}
	cause := notReDerivable(r)
	if cause != "" {
		// The status and the error follow from a check this evaluator could not evaluate.
		for i := range diffs {
			if diffs[i].Field == "status" || diffs[i].Field == "error" {
				diffs[i].Wording, diffs[i].NotReDerivable = "", cause
			}
		}
	}
	claimedChecks := get(claimed, "check_results").Items()
	if len(claimedChecks) != len(r.CheckResults) {
		diffs = append(diffs, Difference{Field: "check_results", Claimed: fmt.Sprintf("%d checks", len(claimedChecks)),
			Derived: fmt.Sprintf("%d checks", len(r.CheckResults)), Decisive: true})
	}
	for i := range min(len(claimedChecks), len(r.CheckResults)) {
		c, d := claimedChecks[i], r.CheckResults[i]
		f := fmt.Sprintf("check_results[%d]", i)
		add(f+".check", get(c, "check"), pyvalue.NewStr(d.Check), true)
		samePassed := add(f+".passed", get(c, "passed"), pyvalue.NewBool(d.Passed), true) == nil
		if df := add(f+".detail", get(c, "detail"), pyvalue.NewStr(d.Detail), false); df != nil && samePassed {
			df.Wording = sameHead(get(c, "detail"), d.Detail, d.WordedFrom)
		}
		add(f+".scores", get(c, "scores"), scoresValue(d.Scores), false)
		add(f+".diagnostics", get(c, "diagnostics"), d.Diagnostics, false)
		if d.Unsupported {
			for j := range diffs {
				if strings.HasPrefix(diffs[j].Field, f+".") && diffs[j].Field != f+".check" {
					diffs[j].Wording, diffs[j].NotReDerivable = "", d.Detail
				}
			}
		}
	}
	add("metrics", get(claimed, "metrics"), metricsValue(r), false)
	ct, haveTrace := claimed.Get("trace")
	switch {
	case (ct.IsNull() || !haveTrace) != (r.Trace == nil):
		add("trace", ct, traceValue(r.Trace), false)
	case r.Trace != nil:
		dt := traceValue(r.Trace)
		for _, k := range []string{"path", "llm_calls", "tool_calls", "total_tokens", "cost_usd", "duration_seconds"} {
			add("trace."+k, get(ct, k), get(dt, k), false)
		}
	}
	return diffs
}

// notReDerivable is why r's status cannot be taken for Kensa's: the detail of the first check
// this evaluator could not evaluate as Kensa would, "" when there is none.
func notReDerivable(r *Result) string {
	for i, c := range r.CheckResults {
		if c.Unsupported {
			return fmt.Sprintf("check_results[%d] (%s): %s", i, c.Check, c.Detail)
		}
	}
	return ""
}

// errorWording is why the error Kensa recorded differs from r's in words only, "" when it
// differs in more. The statuses agree.
func errorWording(r *Result, claimed pyvalue.Value) string {
	text, _ := claimed.AsStr()
	switch {
	case r.Status == StatusPending && r.Error == nil && strings.HasPrefix(text, "Judge error: "):
		return wordingNoJudge
	case r.Error != nil:
		return sameHead(claimed, *r.Error, r.ErrorWordedFrom)
	}
	return ""
}

// sameHead is the wording reason when the text claimed begins with derived's words up to from,
// where another engine's words begin (from > 0): the two then say the same thing, in other
// words after that point. It is "" otherwise.
func sameHead(claimed pyvalue.Value, derived string, from int) string {
	text, ok := claimed.AsStr()
	if !ok || from == 0 || !strings.HasPrefix(text, derived[:from]) {
		return ""
	}
	return wordingOf(derived[:from])
}

func isNumber(v pyvalue.Value) bool {
	_, ok := v.AsNumber()
	return ok
}

// AsKensa is the status Kensa would have recorded for a run of status s: a pending run is one
// Kensa could not judge (no judge model), which it records as an error. Audit compares
// statuses, and statistics count them, this way.
func AsKensa(s string) string {
	if s == StatusPending {
		return StatusError
	}
	return s
}

func optStr(s *string) pyvalue.Value {
	if s == nil {
		return pyvalue.Value{}
	}
	return pyvalue.NewStr(*s)
}

func scoresValue(scores []Score) pyvalue.Value {
	keys, vals := []string{}, []pyvalue.Value{}
	for _, s := range scores {
		keys, vals = append(keys, s.Name), append(vals, pyvalue.NewFloat(s.Value))
	}
	return pyvalue.NewDict(keys, vals)
}

func metricsValue(r *Result) pyvalue.Value {
	var all []Score
	for _, c := range r.CheckResults {
		all = append(all, c.Scores...)
	}
	return scoresValue(all)
}

func traceValue(t *TraceSummary) pyvalue.Value {
	if t == nil {
		return pyvalue.Value{}
	}
	return pyvalue.NewDict([]string{"path", "llm_calls", "tool_calls", "total_tokens", "cost_usd", "duration_seconds"},
		[]pyvalue.Value{pyvalue.NewStr(t.Path), pyvalue.NewInt(int64(t.LLMCalls)), pyvalue.NewInt(int64(t.ToolCalls)),
			pyvalue.NewInt(t.TotalTokens), pyvalue.NewFloat(t.CostUSD), pyvalue.NewFloat(t.DurationSeconds)})
}
