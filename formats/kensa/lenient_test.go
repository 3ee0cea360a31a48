package kensa

import (
	"strings"
	"testing"
)

// Scenarios Kensa v0.7.0 accepts (its Scenario and Check models: pydantic ignores unknown
// fields, Check._validate_params validates only the list checks and trajectory, a bare
// placeholder passes with or without a dataset) are read, with a warning for what a stricter
// reader would refuse; what Kensa refuses stays an error.
func TestParseScenarioLenient(t *testing.T) {
	const head = "id: a\nname: b\nrun_command: [x]\n"
	cases := []struct {
		name, doc string
		// warning is a part of the one warning expected, "" for none.
		warning string
	}{
		{"unknown top-level field", "bogus: 1\n", "s.yaml:4:8: bogus: unknown field, ignored as Kensa ignores it"},
		{"unknown check field", "checks:\n  - type: max_turns\n    params: {max: 3}\n    weight: 2\n", "checks[0].weight: unknown field"},
		{"unknown check param", "checks:\n  - type: output_contains\n    params: {value: ok, ignore_case: true}\n", `unknown param "ignore_case", ignored as Kensa ignores it`},
		{"placeholder without a dataset", "checks:\n  - type: output_contains\n    params: {value: \"{{answer}}\"}\n", `placeholder '{{answer}}' but the scenario has no dataset`},
		{"bare list placeholder without a dataset", "checks:\n  - type: tools_called\n    params: {tools: \"{{tools}}\"}\n", `placeholder '{{tools}}'`},
		{"trajectory args placeholder without a dataset", "checks:\n  - type: trajectory\n    params: {steps: [{tool: t, args: \"{{args}}\"}]}\n", ""},
		{"output_contains without params", "checks:\n  - type: output_contains\n", `missing param "value": Kensa's default applies`},
		{"max_turns without params", "checks:\n  - type: max_turns\n", `missing param "max": Kensa's default applies (no limit)`},
		{"max_cost without params", "checks:\n  - type: max_cost\n    params: {}\n", `missing param "max_usd": Kensa's default applies (no limit)`},
		{"no_repeat_calls", "checks:\n  - type: no_repeat_calls\n", ""},
		{"case_sensitive by truth", "checks:\n  - type: output_contains\n    params: {value: a, case_sensitive: \"false\"}\n", `param "case_sensitive" is str 'false', not true or false: Kensa reads it by Python's truth (true)`},
	}
	for _, c := range cases {
		sc, err := ParseScenario("s.yaml", []byte(head+c.doc))
		if err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
			continue
		}
		switch {
		case c.warning == "" && len(sc.Warnings) > 0:
			t.Errorf("%s: warnings %v", c.name, sc.Warnings)
		case c.warning == "" && sc.StrictError() != nil:
			t.Errorf("%s: strict error without a warning", c.name)
		case c.warning == "":
		case len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0].Error(), c.warning):
			t.Errorf("%s: warnings %v, want one with %q", c.name, sc.Warnings, c.warning)
		case sc.StrictError() == nil || !strings.Contains(sc.StrictError().Error(), "--strict"):
			t.Errorf("%s: strict error %v", c.name, sc.StrictError())
		}
	}
	for doc, want := range map[string]string{"": "run_command: missing: Kensa accepts", "run_command: []\n": "run_command: empty: Kensa accepts"} {
		if sc, err := ParseScenario("s.yaml", []byte("id: a\nname: b\n"+doc)); err != nil || len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0].Error(), want) {
			t.Errorf("%q: %v %v", doc, err, sc)
		}
	}
	refused := map[string]string{
		"tools_called without tools":  "checks:\n  - type: tools_called\n    params: {}\n",
		"trajectory without steps":    "checks:\n  - type: trajectory\n",
		"embedded list placeholder":   "checks:\n  - type: tool_order\n    params: {order: \"a {{b}}\"}\n",
		"dataset without input_field": "dataset: d.jsonl\n",
	}
	for name, doc := range refused {
		if _, err := ParseScenario("s.yaml", []byte(head+doc)); err == nil {
			t.Errorf("%s: accepted; Kensa refuses it", name)
		}
	}
}
