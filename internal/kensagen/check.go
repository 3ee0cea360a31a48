package kensagen

import (
	"slices"
	"strings"
)

var checkTypes = []string{"output_contains", "output_matches", "tools_called", "tools_not_called", "tool_order",
	"trajectory", "max_cost", "max_turns", "max_duration", "no_repeat_calls"}

// check makes one check: YAML, and whether it is the trajectory check. Every check it makes is
// one Kensa accepts and evaluates without raising (a check that raises would stop kensa judge
// for every scenario of the project): string values where Kensa calls string methods, numbers
// where it compares.
func (g *gen) check(fields []string, hasTrajectory bool) (string, bool) {
	typ := pick(g, checkTypes)
	for typ == "trajectory" && (hasTrajectory || slices.Contains(g.cfg.Exclude, FeatureTrajectory)) ||
		typ == "output_matches" && slices.Contains(g.cfg.Exclude, FeatureRegex) {
		typ = pick(g, checkTypes)
	}
	dataset := len(fields) > 0
	if typ != "trajectory" && typ != "tools_called" && typ != "tools_not_called" && typ != "tool_order" &&
		g.allow(FeatureCheckDefaults, 0.08) {
		return checkYAML(typ, nil), false
	}
	p := obj{}
	switch typ {
	case "output_contains":
		p = p.with("value", g.containsValue(dataset))
		switch {
		case g.allow(FeatureTruthyParam, 0.1):
			p = p.with("case_sensitive", pick(g, []any{"false", "no", "", 0, 1, nil}))
		case dataset && g.allow(FeatureTruthyParam, 0.05):
			p = p.with("case_sensitive", "{{n}}")
		case g.chance(0.4):
			p = p.with("case_sensitive", g.chance(0.5))
		}
	case "output_matches":
		p = p.with("pattern", g.pattern(dataset))
	case "tools_called", "tools_not_called", "tool_order":
		key := "tools"
		if typ == "tool_order" {
			key = "order"
		}
		p = p.with(key, g.toolList(dataset))
	case "trajectory":
		g.use(FeatureTrajectory)
		p = g.trajectory(dataset)
	case "max_cost":
		key := "max_usd"
		if g.chance(0.15) {
			key = "max"
		}
		p = p.with(key, g.number(dataset, []any{0, 1, pyFloat(0.0), pyFloat(0.001), pyFloat(0.005), pyFloat(0.01), pyFloat(0.05), pyFloat(1.0)}))
	case "max_turns":
		p = p.with("max", g.number(dataset, []any{0, 1, 2, 3, 4, 5, pyFloat(2.5), pyFloat(0.0)}))
	case "max_duration":
		p = p.with("max_seconds", g.number(dataset, []any{0, 1, 2, 5, pyFloat(0.5), pyFloat(1.0), pyFloat(2.5), pyFloat(10.0), 100000000}))
	case "no_repeat_calls":
		if g.chance(0.5) {
			p = nil
		}
	}
	if g.allow(FeatureUnknownParam, 0.08) {
		p = p.with(pick(g, []string{"note", "cases_sensitive", "weight", "max_usd_typo"}), pick(g, []any{"x", true, 3}))
	}
	if p != nil && len(p) == 0 && g.chance(0.5) {
		p = nil
	}
	text := checkYAML(typ, p)
	if g.chance(0.15) {
		text += "    description: " + jsonText(g.text(2)) + "\n"
	}
	return text, typ == "trajectory"
}

// number is a threshold: one of vals, or with a dataset sometimes the row's number.
func (g *gen) number(dataset bool, vals []any) any {
	if dataset && g.chance(0.15) {
		g.use(FeatureDataset)
		return "{{n}}"
	}
	if g.allow(FeatureBoundaryParams, 0.7) {
		return pick(g, vals)
	}
	return 1000000
}

// containsValue is what output_contains looks for: often a case variant of a word an output
// holds, sometimes a placeholder, sometimes text no output holds.
func (g *gen) containsValue(dataset bool) string {
	if dataset && g.chance(0.2) {
		v := pick(g, []string{"{{word}}", "{{word}}", "x {{word}}", "{{q}}", "{{n}}x", "{{missing}}"})
		if v == "{{q}}" && g.dictRows {
			v = "{{q}} as text"
		}
		return v
	}
	if !dataset && g.allow(FeatureBracesNoDataset, 0.05) {
		return pick(g, []string{"{{word}}", "a {{b}} c", "{{"})
	}
	if g.chance(0.1) {
		return ""
	}
	out := ""
	if len(g.outputs) > 0 {
		out = pick(g, g.outputs)
	}
	fields := strings.Fields(out)
	if len(fields) == 0 || g.chance(0.2) {
		return pick(g, words)
	}
	w := pick(g, fields)
	if vs, ok := variants[w]; ok && g.allow(FeatureUnicodeCase, 0.8) {
		return pick(g, vs)
	}
	for _, base := range words {
		if vs, ok := variants[base]; ok && strings.Contains(w, base) && g.allow(FeatureUnicodeCase, 0.5) {
			return strings.Replace(w, base, pick(g, vs), 1)
		}
	}
	if g.chance(0.3) {
		return strings.ToUpper(w)
	}
	return w
}

// toolList is a tools or order param: names called, names not called, placeholders.
func (g *gen) toolList(dataset bool) any {
	if dataset && g.chance(0.1) {
		return "{{tool}}" // a bare placeholder for the whole list: the row's value must be a list
	}
	if !dataset && g.allow(FeatureBracesNoDataset, 0.03) {
		return "{{tools}}"
	}
	n := 1 + g.intn(3)
	var out []any
	for range n {
		switch {
		case dataset && g.chance(0.15):
			out = append(out, pick(g, []string{"{{tool}}", "{{tool}}", "{{n}}"}))
		case !dataset && g.allow(FeatureBracesNoDataset, 0.02):
			out = append(out, "{{tool}}")
		case len(g.tools) > 0 && g.chance(0.6):
			out = append(out, pick(g, g.tools))
		default:
			out = append(out, pick(g, toolNames))
		}
	}
	return out
}

func (g *gen) trajectory(dataset bool) obj {
	n := 1 + g.intn(3)
	var steps []any
	for range n {
		s := obj{}
		switch {
		case dataset && g.chance(0.15):
			s = s.with("tool", "{{tool}}")
		case len(g.tools) > 0 && g.chance(0.7):
			s = s.with("tool", pick(g, g.tools))
		default:
			s = s.with("tool", pick(g, toolNames))
		}
		if g.chance(0.6) {
			s = s.with("args", g.args())
		}
		steps = append(steps, s)
	}
	p := obj{}.with("steps", steps)
	if g.chance(0.6) {
		p = p.with("ordering", pick(g, []string{"exact", "any_order"}))
	}
	if g.chance(0.5) {
		p = p.with("args", pick(g, []string{"exact", "ignore"}))
	}
	if g.chance(0.6) {
		p = p.with("min_accuracy", pick(g, []any{0, 1, pyFloat(0.0), pyFloat(0.5), pyFloat(0.34), pyFloat(0.6666666666666666), pyFloat(1.0)}))
	}
	if g.chance(0.3) {
		p = p.with("max_steps", g.intn(6))
	}
	if g.chance(0.2) {
		p = p.with("max_tokens", pick(g, []any{0, 100, 10000}))
	}
	if g.chance(0.2) {
		p = p.with("max_duration_seconds", pick(g, []any{0, pyFloat(0.5), pyFloat(1.5), pyFloat(100.0)}))
	}
	return p
}
