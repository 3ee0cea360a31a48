package kensa

import (
	"fmt"
	"math"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// CheckResult is Kensa's CheckResult. Scores and Diagnostics keep Python values (floats
// included); the verdict renders them (Verdict).
type CheckResult struct {
	Check       string
	Passed      bool
	Detail      string
	Scores      []Score
	Diagnostics pyvalue.Value // a dict (empty for every check but trajectory)
	// Unsupported is set when the check could not be evaluated as Kensa would (a pattern RE2
	// cannot express); Passed is then false and the run is an error.
	Unsupported bool
	// WordedFrom is where, in Detail, another engine's own words begin (Go's regexp error where
	// Kensa writes Python's re error); 0 when every word of Detail is Kensa's.
	WordedFrom int
}

// Score is one named score of a check, in Kensa's order.
type Score struct {
	Name  string
	Value float64
}

// checkFunc evaluates one check over the spans with its (substituted) params.
type checkFunc func(spans []kensa.Span, params pyvalue.Value) CheckResult

// checkFuncs is checks.CHECK_REGISTRY.
var checkFuncs = map[string]checkFunc{
	kensa.CheckOutputContains: outputContains,
	kensa.CheckOutputMatches:  outputMatches,
	kensa.CheckToolsCalled:    toolsCalled,
	kensa.CheckToolsNotCalled: toolsNotCalled,
	kensa.CheckToolOrder:      toolOrder,
	kensa.CheckTrajectory:     trajectory,
	kensa.CheckMaxCost:        maxCost,
	kensa.CheckMaxTurns:       maxTurns,
	kensa.CheckMaxDuration:    maxDuration,
	kensa.CheckNoRepeatCalls:  noRepeatCalls,
}

func result(check string, passed bool, detail string) CheckResult {
	return CheckResult{Check: check, Passed: passed, Detail: detail, Diagnostics: pyvalue.NewDict(nil, nil)}
}

func param(params pyvalue.Value, name string) (pyvalue.Value, bool) { return params.Get(name) }

func strParam(params pyvalue.Value, name string) string {
	v, _ := params.Get(name)
	s, _ := v.AsStr()
	return s
}

func strListParam(params pyvalue.Value, name string) []string {
	v, _ := params.Get(name)
	out := make([]string, 0, v.Len())
	for _, item := range v.Items() {
		s, _ := item.AsStr()
		out = append(out, s)
	}
	return out
}

// limit reads a numeric limit: its value, its str() for details, and +inf when absent.
func limit(params pyvalue.Value, names ...string) (float64, string) {
	for _, n := range names {
		if v, ok := params.Get(n); ok {
			f, _ := v.AsNumber()
			return f, pyvalue.Str(v)
		}
	}
	return math.Inf(1), "inf"
}

// checks.check_output_contains: case-insensitive unless case_sensitive.
func outputContains(spans []kensa.Span, params pyvalue.Value) CheckResult {
	value := strParam(params, "value")
	cs, _ := param(params, "case_sensitive")
	caseSensitive := pyvalue.Truthy(cs) // Python's `if case_sensitive`
	output := agentOutput(spans)
	var found bool
	if caseSensitive {
		found = strings.Contains(output, value)
	} else {
		found = strings.Contains(pyLower(output), pyLower(value))
	}
	word := "Not found"
	if found {
		word = "Found"
	}
	return result(kensa.CheckOutputContains, found, word+": "+pyvalue.StrRepr(value))
}

// checks.check_output_matches: re.search; an invalid pattern fails the check.
func outputMatches(spans []kensa.Span, params pyvalue.Value) CheckResult {
	pattern := strParam(params, "pattern")
	output := agentOutput(spans)
	matched, err := searchPython(pattern, output)
	if err != nil {
		head := fmt.Sprintf("Invalid regex %s: ", pyvalue.StrRepr(pattern))
		r := result(kensa.CheckOutputMatches, false, head+err.Error())
		r.WordedFrom = len(head)
		if isUnsupported(err) {
			r.WordedFrom = 0
			r.Unsupported = true
			r.Detail = fmt.Sprintf("Unsupported regex %s: %v", pyvalue.StrRepr(pattern), err)
		}
		return r
	}
	word := "No match"
	if matched {
		word = "Matched"
	}
	return result(kensa.CheckOutputMatches, matched, fmt.Sprintf("%s: /%s/", word, pattern))
}

// checks.check_tools_called.
func toolsCalled(spans []kensa.Span, params pyvalue.Value) CheckResult {
	expected := strListParam(params, "tools")
	actual := callNames(toolCalls(spans, false))
	var missing []string
	for _, name := range expected {
		if !containsName(actual, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return result(kensa.CheckToolsCalled, true, "All expected tools called: "+pyvalue.StrList(expected))
	}
	return result(kensa.CheckToolsCalled, false, fmt.Sprintf("Missing tools: %s (called: %s)", pyvalue.StrList(missing), pyvalue.StrList(actual)))
}

// checks.check_tools_not_called.
func toolsNotCalled(spans []kensa.Span, params pyvalue.Value) CheckResult {
	forbidden := strListParam(params, "tools")
	actual := callNames(toolCalls(spans, false))
	var present []string
	for _, name := range forbidden {
		if containsName(actual, name) {
			present = append(present, name)
		}
	}
	if len(present) == 0 {
		return result(kensa.CheckToolsNotCalled, true, "None of the forbidden tools called: "+pyvalue.StrList(forbidden))
	}
	return result(kensa.CheckToolsNotCalled, false, "Forbidden tools called: "+pyvalue.StrList(present))
}

func containsName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// checks.check_tool_order: the expected names as a subsequence of the ordered calls.
func toolOrder(spans []kensa.Span, params pyvalue.Value) CheckResult {
	expected := strListParam(params, "order")
	actual := callNames(toolCalls(spans, true))
	next, matched := 0, true
	for _, name := range expected {
		found := false
		for next < len(actual) {
			next++
			if actual[next-1] == name {
				found = true
				break
			}
		}
		if !found {
			matched = false
			break
		}
	}
	return result(kensa.CheckToolOrder, matched, fmt.Sprintf("Expected order %s, actual: %s", pyvalue.StrList(expected), pyvalue.StrList(actual)))
}

// checks.check_max_cost: vacuous (passing, with a warning) when no span has a cost.
func maxCost(spans []kensa.Span, params pyvalue.Value) CheckResult {
	limitUSD, _ := limit(params, "max_usd", "max")
	total, anyCost := 0.0, false
	for i := range spans {
		if spans[i].Cost != nil {
			total += spans[i].Cost.Total
			anyCost = true
		}
	}
	if total == 0 && !anyCost {
		return result(kensa.CheckMaxCost, true, "WARNING: No cost data — check is vacuous. Ensure the SDK instrumentor populates cost info.")
	}
	passed := total <= limitUSD
	return result(kensa.CheckMaxCost, passed, fmt.Sprintf("Total cost $%s %s $%s", pyvalue.Fixed(total, 4), cmp(passed), pyvalue.Fixed(limitUSD, 4)))
}

func cmp(passed bool) string {
	if passed {
		return "<="
	}
	return ">"
}

// checks.check_max_turns: LLM spans.
func maxTurns(spans []kensa.Span, params pyvalue.Value) CheckResult {
	maxN, text := limit(params, "max")
	n := llmSpans(spans)
	passed := float64(n) <= maxN
	return result(kensa.CheckMaxTurns, passed, fmt.Sprintf("%d LLM calls %s %s", n, cmp(passed), text))
}

// checks.check_max_duration: span duration; no spans passes.
func maxDuration(spans []kensa.Span, params pyvalue.Value) CheckResult {
	maxS, text := limit(params, "max_seconds")
	if len(spans) == 0 {
		return result(kensa.CheckMaxDuration, true, "No spans")
	}
	d := durationSeconds(spans)
	passed := d <= maxS
	return result(kensa.CheckMaxDuration, passed, fmt.Sprintf("%ss %s %ss", pyvalue.Fixed(d, 1), cmp(passed), text))
}

// checks.check_no_repeat_calls.
func noRepeatCalls(spans []kensa.Span, _ pyvalue.Value) CheckResult {
	dups := repeatedNames(spans, true)
	if len(dups) == 0 {
		return result(kensa.CheckNoRepeatCalls, true, "No duplicates")
	}
	return result(kensa.CheckNoRepeatCalls, false, "Duplicates: "+pyvalue.StrList(dups))
}
