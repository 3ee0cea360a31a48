package kensa

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// BuildJudgePrompt is Kensa's judge.build_judge_prompt: the scenario, its criteria, a summary
// of the trace and the agent's stdout, and the answer format. The runner sends it to a judge
// command; replay rebuilds it to show that a recorded prompt belongs to the recorded evidence.
func BuildJudgePrompt(ev *Evidence) string {
	s := ev.Scenario
	calls := toolCalls(ev.Spans, false)
	var lines []string
	for i := range ev.Spans {
		sp := &ev.Spans[i]
		line := fmt.Sprintf("[%d] %s: %s", i, sp.Kind, sp.Name)
		if sp.Model != nil && *sp.Model != "" {
			line += fmt.Sprintf(" (model=%s)", *sp.Model)
		}
		if len(sp.Tools) > 0 {
			names := make([]string, len(sp.Tools))
			for j, t := range sp.Tools {
				names[j] = t.Name
			}
			line += " [tools: " + strings.Join(names, ", ") + "]"
		}
		if sp.Status == "error" {
			line += " [ERROR]"
		}
		if out := outputText(sp); out != "" {
			if len([]rune(out)) > 500 {
				out = firstRunes(out, 500) + "..."
			}
			line += "\n    Output: " + out
		}
		lines = append(lines, line)
	}
	toolsLine := fmt.Sprintf(", %d tool calls", len(calls))
	if len(calls) > 0 {
		unique := slices.Compact(slices.Sorted(slices.Values(callNames(calls))))
		toolsLine += ": " + strings.Join(unique, ", ")
	}
	inputSection := ""
	if !ev.Input.IsNull() {
		in := pyvalue.Str(ev.Input)
		if ev.Input.Kind() == pyvalue.KindDict {
			in = pyvalue.Dumps(ev.Input)
		}
		if len([]rune(in)) > 2000 {
			in = firstRunes(in, 2000) + "\n... (truncated)"
		}
		inputSection = "\n## Scenario Input\n" + in + "\n"
	}
	expectedSection := ""
	if e := expected(ev.Row); e != nil {
		expectedSection = "\n## Expected Output\n" + *e + "\n"
	}
	stdoutSection := ""
	if out := strings.TrimSpace(ev.Stdout); out != "" {
		truncated := firstRunes(out, 2000)
		if len([]rune(out)) > 2000 {
			truncated += "\n... (truncated)"
		}
		stdoutSection = "\n\n## Agent Output (stdout)\n" + truncated + "\n"
	}
	criteria := "No specific criteria provided."
	switch {
	case s.Judge != nil && ev.JudgeSpec != nil:
		criteria = structuredCriteria(ev.JudgeSpec)
	case s.Criteria != nil && *s.Criteria != "":
		criteria = *s.Criteria
	}
	return "You are evaluating an AI agent's execution against specific criteria.\n\n" +
		"## Scenario\nName: " + s.Name + "\nDescription: " + s.Description + "\nExpected Outcome: " + s.ExpectedOutcome + "\n" +
		inputSection + expectedSection + "\n## Evaluation Criteria\n" + criteria + "\n\n" +
		fmt.Sprintf("## Execution Trace (%d LLM calls%s)\n", llmSpans(ev.Spans), toolsLine) + strings.Join(lines, "\n") + "\n" +
		stdoutSection + "\n## Task\n" +
		"Evaluate whether the agent's execution meets the criteria above.\n" +
		"Focus on whether the agent accomplished its goal correctly, not on implementation details.\n\n" +
		"Respond with ONLY a JSON object (no markdown, no backticks):\n" +
		"{\"verdict\": \"pass\" or \"fail\" or \"uncertain\",\n  \"reasoning\": \"your detailed reasoning\",\n" +
		"  \"evidence\": [\"key observation 1\", \"key observation 2\"]}\n\n" +
		"Use \"uncertain\" when evidence is ambiguous or insufficient to determine pass/fail."
}

// structuredCriteria is judge._format_structured_criteria.
func structuredCriteria(spec *kensa.JudgeSpec) string {
	parts := []string{"Criterion: " + spec.Criterion, "\nPASS: " + spec.PassDefinition, "\nFAIL: " + spec.FailDefinition}
	if len(spec.Examples) > 0 {
		parts = append(parts, "\nExamples:")
		for i, ex := range spec.Examples {
			parts = append(parts, fmt.Sprintf("\n  Example %d [%s]:", i+1, strings.ToUpper(ex.Label)),
				"  Output: "+ex.Output, "  Critique: "+ex.Critique)
		}
	}
	return strings.Join(parts, "\n")
}
