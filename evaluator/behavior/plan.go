package behavior

import (
	"regexp"
	"strconv"

	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
)

// A plan is a sequence of identifiable steps in the agent's output (behavior-definitions.md
// generate_multi_step_plan: "Agent output contains a plan with identifiable steps"). Steps are
// numbered ("1) …", "(2) …", "3. …", "Step 4: …") or, when nothing is numbered, introduced by
// sequence words ("first …, then …, finally …").

// planStepMarker finds step numbers: a number of one or two digits, optionally after "step" or
// inside brackets, followed by ".", ")", ":" or "]" and a space or the end of the text.
var planStepMarker = regexp.MustCompile(`(?i)(?:^|[\s(\[;,])(?:step\s+)?\(?(\d{1,2})[.):\]](?:\s|$)`)

// planItem is one step of a plan: its text, re-tokenised for phrase matching.
type planItem struct {
	number int
	text   *text
	start  int // byte offset of the step in its channel
}

// planIn returns the longest run of steps numbered 1, 2, 3, … in t, or, without one, the
// segments that sequence words introduce. Fewer than two steps is no plan.
func planIn(t *text) []planItem {
	if items := numberedPlan(t); len(items) >= 2 {
		return items
	}
	return sequencedPlan(t)
}

func numberedPlan(t *text) []planItem {
	marks := planStepMarker.FindAllStringSubmatchIndex(t.raw, -1)
	var best, run []planItem
	for i, m := range marks {
		n, _ := strconv.Atoi(t.raw[m[2]:m[3]])
		end := len(t.raw)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		item := planItem{number: n, start: m[1], text: newText(t.channel, t.raw[m[1]:end])}
		switch {
		case n == 1:
			run = []planItem{item}
		case len(run) > 0 && n == run[len(run)-1].number+1:
			run = append(run, item)
		default:
			run = nil
		}
		if len(run) > len(best) {
			best = append([]planItem(nil), run...)
		}
	}
	return best
}

func sequencedPlan(t *text) []planItem {
	occ := t.find(planStep)
	if len(occ) < 2 {
		return nil
	}
	var items []planItem
	for i, o := range occ {
		start := t.tokens[o.first].start
		end := len(t.raw)
		if i+1 < len(occ) {
			end = t.tokens[occ[i+1].first].start
		}
		items = append(items, planItem{number: i + 1, start: start, text: newText(t.channel, t.raw[start:end])})
	}
	return items
}

// citePlan points at the first step of a plan. It quotes nothing: a step is the agent's free text.
func citePlan(items []planItem, t *text) evidence.Citation {
	return evidence.Citation{Kind: evidence.KindChannel, Observation: -1, Channel: t.channel, Offset: int64(items[0].start)}
}

// plan returns the agent's plan: the one in the final answer, else the one in the reasoning,
// and the text it was found in.
func (c *speech) plan() ([]planItem, *text) {
	for _, t := range c.outputs() {
		if items := planIn(t); len(items) >= 2 {
			return items, t
		}
	}
	return nil, nil
}
