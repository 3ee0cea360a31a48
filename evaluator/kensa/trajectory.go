package kensa

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// trajectoryParams is Kensa's TrajectoryParams after pydantic's coercion: max_steps and
// max_tokens are ints, min_accuracy and max_duration_seconds floats.
type trajectoryParams struct {
	steps       []call
	anyOrder    bool
	ignoreArgs  bool
	minAccuracy float64
	maxSteps    *int64
	maxTokens   *int64
	maxDuration *float64
}

func readTrajectory(params pyvalue.Value) trajectoryParams {
	p := trajectoryParams{minAccuracy: 1}
	steps, _ := params.Get("steps")
	for _, s := range steps.Items() {
		tool, _ := s.Get("tool")
		args, ok := s.Get("args")
		if !ok || args.Kind() != pyvalue.KindDict {
			args = pyvalue.NewDict(nil, nil)
		}
		p.steps = append(p.steps, call{name: pyvalue.Str(tool), args: args})
	}
	p.anyOrder = strParam(params, "ordering") == "any_order"
	p.ignoreArgs = strParam(params, "args") == "ignore"
	if v, ok := params.Get("min_accuracy"); ok {
		p.minAccuracy, _ = v.AsNumber()
	}
	intOf := func(name string) *int64 {
		v, ok := params.Get(name)
		if !ok || v.IsNull() {
			return nil
		}
		f, _ := v.AsNumber()
		i := int64(f)
		return &i
	}
	p.maxSteps, p.maxTokens = intOf("max_steps"), intOf("max_tokens")
	if v, ok := params.Get("max_duration_seconds"); ok && !v.IsNull() {
		f, _ := v.AsNumber()
		p.maxDuration = &f
	}
	return p
}

func (p *trajectoryParams) matches(expected, actual call) bool {
	return expected.name == actual.name && (p.ignoreArgs || expected.args.Equal(actual.args))
}

// stepPayload is trajectory._step_payload.
func stepPayload(index int, c call) pyvalue.Value {
	return pyvalue.NewDict([]string{"index", "tool", "args"}, []pyvalue.Value{pyvalue.NewInt(int64(index)), pyvalue.NewStr(c.name), c.args})
}

func mismatch(ei, ai int, expected, actual call) pyvalue.Value {
	return pyvalue.NewDict([]string{"expected_index", "actual_index", "tool", "expected_args", "actual_args"},
		[]pyvalue.Value{pyvalue.NewInt(int64(ei)), pyvalue.NewInt(int64(ai)), pyvalue.NewStr(expected.name), expected.args, actual.args})
}

type trajectoryDiagnostics struct {
	missing, unexpected, mismatches, violations, warnings []pyvalue.Value
}

// matchExact is trajectory._match_exact.
func (p *trajectoryParams) matchExact(actual []call) (int, trajectoryDiagnostics) {
	var d trajectoryDiagnostics
	matched := 0
	for i := range max(len(p.steps), len(actual)) {
		switch {
		case i >= len(p.steps):
			d.unexpected = append(d.unexpected, stepPayload(i, actual[i]))
		case i >= len(actual):
			d.missing = append(d.missing, stepPayload(i, p.steps[i]))
		case p.matches(p.steps[i], actual[i]):
			matched++
		case !p.ignoreArgs && p.steps[i].name == actual[i].name:
			d.mismatches = append(d.mismatches, mismatch(i, i, p.steps[i], actual[i]))
		default:
			d.missing = append(d.missing, stepPayload(i, p.steps[i]))
			d.unexpected = append(d.unexpected, stepPayload(i, actual[i]))
		}
	}
	return matched, d
}

// matchAnyOrder is trajectory._match_any_order: exact matches first, then same-tool matches.
func (p *trajectoryParams) matchAnyOrder(actual []call) (int, trajectoryDiagnostics) {
	var d trajectoryDiagnostics
	remaining := make([]int, len(actual))
	for i := range remaining {
		remaining[i] = i
	}
	take := func(ok func(call) bool) (int, bool) {
		for pos, ai := range remaining {
			if ok(actual[ai]) {
				remaining = append(remaining[:pos:pos], remaining[pos+1:]...)
				return ai, true
			}
		}
		return 0, false
	}
	matched := 0
	var unmatched []int
	for ei, expected := range p.steps {
		if _, ok := take(func(a call) bool { return p.matches(expected, a) }); ok {
			matched++
		} else {
			unmatched = append(unmatched, ei)
		}
	}
	for _, ei := range unmatched {
		expected := p.steps[ei]
		if !p.ignoreArgs {
			if ai, ok := take(func(a call) bool { return a.name == expected.name }); ok {
				d.mismatches = append(d.mismatches, mismatch(ei, ai, expected, actual[ai]))
				continue
			}
		}
		d.missing = append(d.missing, stepPayload(ei, expected))
	}
	for _, ai := range remaining {
		d.unexpected = append(d.unexpected, stepPayload(ai, actual[ai]))
	}
	return matched, d
}

// totalTokens is trajectory._total_tokens: known only when every LLM span has tokens.
func totalTokens(spans []kensa.Span) (int64, bool) {
	var total int64
	n := 0
	for i := range spans {
		if spans[i].Kind != "llm" {
			continue
		}
		n++
		if spans[i].Tokens == nil {
			return 0, false
		}
		total += spans[i].Tokens.Total
	}
	return total, n > 0
}

// budgets is trajectory._budget_violations.
func (p *trajectoryParams) budgets(spans []kensa.Span, actualSteps int, d *trajectoryDiagnostics) {
	budget := func(name string, limit, actual pyvalue.Value) pyvalue.Value {
		return pyvalue.NewDict([]string{"budget", "limit", "actual"}, []pyvalue.Value{pyvalue.NewStr(name), limit, actual})
	}
	if p.maxSteps != nil && int64(actualSteps) > *p.maxSteps {
		d.violations = append(d.violations, budget("max_steps", pyvalue.NewInt(*p.maxSteps), pyvalue.NewInt(int64(actualSteps))))
	}
	if p.maxTokens != nil {
		total, known := totalTokens(spans)
		switch {
		case !known:
			msg := "No LLM spans — token budget not applicable."
			if llmSpans(spans) > 0 {
				msg = "Incomplete token data — budget not enforced."
			}
			d.warnings = append(d.warnings, pyvalue.NewDict([]string{"budget", "message"}, []pyvalue.Value{pyvalue.NewStr("max_tokens"), pyvalue.NewStr(msg)}))
		case total > *p.maxTokens:
			d.violations = append(d.violations, budget("max_tokens", pyvalue.NewInt(*p.maxTokens), pyvalue.NewInt(total)))
		}
	}
	if p.maxDuration != nil {
		if dur := durationSeconds(spans); dur > *p.maxDuration {
			d.violations = append(d.violations, budget("max_duration_seconds", pyvalue.NewFloat(*p.maxDuration), pyvalue.NewFloat(pyvalue.Round(dur, 3))))
		}
	}
}

// accuracy is trajectory._trajectory_accuracy: F1 of precision and recall.
func accuracy(matched, expected, actual int) float64 {
	if expected == 0 && actual == 0 {
		return 1
	}
	precision, recall := 0.0, 1.0
	if actual > 0 {
		precision = float64(matched) / float64(actual)
	}
	if expected > 0 {
		recall = float64(matched) / float64(expected)
	}
	if precision+recall == 0 {
		return 0
	}
	return pyvalue.Mul(pyvalue.Mul(2, precision), recall) / (precision + recall)
}

// efficiency is trajectory._step_efficiency.
func efficiency(matched, actual, expected int) float64 {
	switch {
	case actual == 0 && expected == 0:
		return 1
	case actual == 0:
		return 0
	}
	return float64(matched) / float64(actual)
}

// trajectory is trajectory.check_trajectory.
func trajectory(spans []kensa.Span, params pyvalue.Value) CheckResult {
	p := readTrajectory(params)
	actual := toolCalls(spans, true)
	var matched int
	var d trajectoryDiagnostics
	if p.anyOrder {
		matched, d = p.matchAnyOrder(actual)
	} else {
		matched, d = p.matchExact(actual)
	}
	p.budgets(spans, len(actual), &d)
	acc := accuracy(matched, len(p.steps), len(actual))
	eff := efficiency(matched, len(actual), len(p.steps))
	scores := []Score{{"trajectory_accuracy", pyvalue.Round(acc, 6)}, {"step_efficiency", pyvalue.Round(eff, 6)}}
	list := func(items []pyvalue.Value) pyvalue.Value {
		if items == nil {
			items = []pyvalue.Value{}
		}
		return pyvalue.NewList(items)
	}
	diagnostics := pyvalue.NewDict(
		[]string{"missing_steps", "unexpected_steps", "argument_mismatches", "budget_violations", "budget_warnings"},
		[]pyvalue.Value{list(d.missing), list(d.unexpected), list(d.mismatches), list(d.violations), list(d.warnings)})
	return CheckResult{
		Check:       kensa.CheckTrajectory,
		Passed:      acc >= p.minAccuracy && len(d.violations) == 0,
		Detail:      trajectoryDetail(matched, len(p.steps), len(actual), d, scores),
		Scores:      scores,
		Diagnostics: diagnostics,
	}
}

// trajectoryDetail is trajectory._build_detail.
func trajectoryDetail(matched, expected, actual int, d trajectoryDiagnostics, scores []Score) string {
	parts := []string{
		fmt.Sprintf("matched %d/%d expected steps", matched, expected),
		fmt.Sprintf("actual %d steps", actual),
		"accuracy " + pyvalue.Fixed(scores[0].Value, 3),
		"efficiency " + pyvalue.Fixed(scores[1].Value, 3),
	}
	for _, c := range []struct {
		label string
		items []pyvalue.Value
	}{{"missing", d.missing}, {"unexpected", d.unexpected}, {"arg mismatches", d.mismatches}} {
		if len(c.items) > 0 {
			parts = append(parts, strconv.Itoa(len(c.items))+" "+c.label)
		}
	}
	if len(d.violations) > 0 {
		var texts []string
		for _, v := range d.violations {
			name, _ := v.Get("budget")
			lim, _ := v.Get("limit")
			act, _ := v.Get("actual")
			texts = append(texts, budgetText(pyvalue.Str(name), lim, act))
		}
		parts = append(parts, "budget violations: "+strings.Join(texts, ", "))
	}
	if len(d.warnings) > 0 {
		var texts []string
		for _, w := range d.warnings {
			m, _ := w.Get("message")
			texts = append(texts, pyvalue.Str(m))
		}
		parts = append(parts, "warnings: "+strings.Join(texts, ", "))
	}
	return strings.Join(parts, "; ")
}

// budgetText is trajectory._format_budget_violation.
func budgetText(name string, limit, actual pyvalue.Value) string {
	l, _ := limit.AsNumber()
	a, _ := actual.AsNumber()
	if name == "max_duration_seconds" {
		return fmt.Sprintf("%s %ss > %ss", name, pyvalue.Fixed(a, 1), pyvalue.Fixed(l, 1))
	}
	return fmt.Sprintf("%s %d > %d", name, int64(a), int64(l))
}
