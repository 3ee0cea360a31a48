package kensa

import (
	"fmt"

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
}

// Compare lists the differences between the result Kensa recorded (a results file element)
// and r, field by field in Kensa's order. The judge's part is compared as recorded: replay
// does not re-judge.
func Compare(r *Result, claimed pyvalue.Value) []Difference {
	var diffs []Difference
	add := func(field string, c, d pyvalue.Value, decisive bool) {
		if !c.Equal(d) || c.Kind() != d.Kind() && !(isNumber(c) && isNumber(d)) {
			diffs = append(diffs, Difference{Field: field, Claimed: pyvalue.Repr(c), Derived: pyvalue.Repr(d), Decisive: decisive})
		}
	}
	get := func(v pyvalue.Value, k string) pyvalue.Value { x, _ := v.Get(k); return x }
	add("scenario_id", get(claimed, "scenario_id"), pyvalue.NewStr(r.ScenarioID), true)
	add("status", get(claimed, "status"), pyvalue.NewStr(kensaStatus(r.Status)), true)
	add("expected", get(claimed, "expected"), optStr(r.Expected), false)
	add("error", get(claimed, "error"), optStr(r.Error), false)
	claimedChecks := get(claimed, "check_results").Items()
	if len(claimedChecks) != len(r.CheckResults) {
		diffs = append(diffs, Difference{Field: "check_results", Claimed: fmt.Sprintf("%d checks", len(claimedChecks)),
			Derived: fmt.Sprintf("%d checks", len(r.CheckResults)), Decisive: true})
	}
	for i := range min(len(claimedChecks), len(r.CheckResults)) {
		c, d := claimedChecks[i], r.CheckResults[i]
		f := fmt.Sprintf("check_results[%d]", i)
		add(f+".check", get(c, "check"), pyvalue.NewStr(d.Check), true)
		add(f+".passed", get(c, "passed"), pyvalue.NewBool(d.Passed), true)
		add(f+".detail", get(c, "detail"), pyvalue.NewStr(d.Detail), false)
		add(f+".scores", get(c, "scores"), scoresValue(d.Scores), false)
		add(f+".diagnostics", get(c, "diagnostics"), d.Diagnostics, false)
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

func isNumber(v pyvalue.Value) bool {
	_, ok := v.AsNumber()
	return ok
}

// kensaStatus is the status Kensa would have recorded: a pending run is one Kensa could not
// judge (no judge model), which it records as an error.
func kensaStatus(s string) string {
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
