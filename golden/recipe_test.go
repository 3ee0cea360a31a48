package golden

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseRecipe(t *testing.T) {
	tests := []struct {
		name    string
		recipe  string
		wantErr string // "" for a valid recipe
	}{
		{name: "oasisctl", recipe: "profile: $EXAMPLE/profile\noasisctl: $EXAMPLE/run\n"},
		{name: "braced variable", recipe: "profile: ${SHARED}/oasis-spec\noasisctl: ${SHARED}/fixtures/oasisctl/safe\n"},
		{name: "files", recipe: "profile: p\nfiles: {scenario: s, audit_log: $SHARED/a.log, transcript: inputs/t.json}\n"},
		{name: "synthetic", recipe: "profile: p\nsynthetic:\n  scenarios:\n    - {id: a, from: $EXAMPLE/run}\n    - {id: b, no_evidence: true}\n" +
			"    - id: c\n      final_answer: x\n      observations: [{type: audit_log, data: {entries: []}}, {type: custom, media_type: application/json, raw: '{}'}]\n"},
		{name: "empty", recipe: "", wantErr: "empty recipe"},
		{name: "unknown field", recipe: "profile: p\noasisctl: d\nrecord: x\n", wantErr: "case.recipe.yaml:3:1: record: unknown field"},
		{name: "two documents", recipe: "profile: p\noasisctl: d\n---\nprofile: q\n", wantErr: "one YAML document"},
		{name: "no profile", recipe: "oasisctl: d\n", wantErr: "field profile: required"},
		{name: "no source", recipe: "profile: p\n", wantErr: "exactly one of oasisctl, files and synthetic, found 0"},
		{name: "two sources", recipe: "profile: p\noasisctl: d\nfiles: {scenario: s}\n", wantErr: "found 2"},
		{name: "unknown variable", recipe: "profile: $HOME/p\noasisctl: d\n", wantErr: `field profile: "$HOME/p": unknown variable`},
		{name: "variable prefix of a word", recipe: "profile: $SHAREDX/p\noasisctl: d\n", wantErr: "unknown variable"},
		{name: "escape below variable", recipe: "profile: $SHARED/../etc\noasisctl: d\n", wantErr: "must be a clean relative path"},
		{name: "unclean path below variable", recipe: "profile: p\noasisctl: $EXAMPLE/./run\n", wantErr: "must be a clean relative path"},
		{name: "files without scenario", recipe: "profile: p\nfiles: {audit_log: a}\n", wantErr: "files.scenario: required"},
		{name: "bad files path", recipe: "profile: p\nfiles: {scenario: s, after: $X/a}\n", wantErr: "files.after"},
		{name: "no scenarios", recipe: "profile: p\nsynthetic: {agent: {name: a}}\n", wantErr: "at least one scenario"},
		{name: "scenario without id", recipe: "profile: p\nsynthetic: {scenarios: [{final_answer: x}]}\n", wantErr: "scenarios[0].id: required"},
		{name: "from and evidence", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, from: d, final_answer: x}]}\n", wantErr: "from excludes written evidence"},
		{name: "no evidence and from", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, from: d, no_evidence: true}]}\n", wantErr: "no_evidence excludes"},
		{name: "bad from", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, from: $NOPE}]}\n", wantErr: "scenarios[0].from"},
		{name: "observation without type", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, observations: [{raw: x}]}]}\n", wantErr: "observations[0].type: required"},
		{name: "unknown observation type", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, observations: [{type: metrics}]}]}\n", wantErr: `"metrics" is not an observation type`},
		{name: "data and raw", recipe: "profile: p\nsynthetic: {scenarios: [{id: a, observations: [{type: audit_log, raw: x, data: {}}]}]}\n", wantErr: "data or raw, not both"},
		{name: "wrong type", recipe: "profile: [p]\noasisctl: d\n", wantErr: "case.recipe.yaml:1:10: profile: want a string, got an array"},
		{name: "too large", recipe: "profile: p\noasisctl: d\ndescription: " + strings.Repeat("x", maxRecipeSize), wantErr: "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseRecipe("case.recipe.yaml", []byte(tt.recipe))
			if tt.wantErr == "" {
				if err != nil || r == nil {
					t.Fatalf("ParseRecipe: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseRecipe accepted the recipe, want an error containing %q", tt.wantErr)
			}
			if !errors.Is(err, ErrRecipe) || !strings.Contains(err.Error(), "case.recipe.yaml") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q, want ErrRecipe naming the file and containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseLocation(t *testing.T) {
	tests := []struct {
		in         string
		root, rel  string
		wantString string
	}{
		{in: "inputs/t.json", rel: "inputs/t.json", wantString: "inputs/t.json"},
		{in: "/abs/dir", rel: "/abs/dir", wantString: "/abs/dir"},
		{in: "$SHARED/a/b", root: VarShared, rel: "a/b", wantString: "$SHARED/a/b"},
		{in: "${SHARED}/a", root: VarShared, rel: "a", wantString: "$SHARED/a"},
		{in: "$EXAMPLE", root: VarExample, rel: ".", wantString: "$EXAMPLE"},
		{in: "$EXAMPLE/run", root: VarExample, rel: "run", wantString: "$EXAMPLE/run"},
	}
	for _, tt := range tests {
		l, err := parseLocation(tt.in)
		if err != nil || l.root != tt.root || l.rel != tt.rel || l.String() != tt.wantString {
			t.Errorf("parseLocation(%q) = %+v (%s), %v; want root %q rel %q", tt.in, l, l, err, tt.root, tt.rel)
		}
	}
	for _, bad := range []string{"$SHARED//a", "$SHARED/a/", "$SHARED/../a", "$SHARED/a/../../b", "${SHARED", "$1"} {
		if l, err := parseLocation(bad); err == nil {
			t.Errorf("parseLocation(%q) = %+v, want an error", bad, l)
		}
	}
}

// TestRecipeValues: the YAML values of a recipe (tool-call arguments, observation data) are
// stored as compact JSON in document order, strings escaped as the canonical encoder escapes
// them; what JSON cannot hold is an error naming the line.
func TestRecipeValues(t *testing.T) {
	tests := []struct {
		name, yaml, want, wantErr string
	}{
		{name: "document order", yaml: "b: 1\na: [x, 2, true, null, 1.5]\n", want: `{"b":1,"a":["x",2,true,null,1.5]}`},
		{name: "integer forms", yaml: "[0x1F, 0o17, -3]", want: `[31,15,-3]`},
		{name: "quoted scalars stay strings", yaml: `["5", "true", "null"]`, want: `["5","true","null"]`},
		{name: "timestamps stay strings", yaml: "t: 2026-06-02T14:00:00Z", want: `{"t":"2026-06-02T14:00:00Z"}`},
		{name: "no HTML escaping", yaml: `s: "<a&b>"`, want: `{"s":"<a&b>"}`},
		{name: "unicode", yaml: `s: "é\u2028"`, want: "{\"s\":\"é\u2028\"}"},
		{name: "alias", yaml: "a: &x {k: v}\nb: *x\n", want: `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{name: "empty mapping and sequence", yaml: "{a: {}, b: []}", want: `{"a":{},"b":[]}`},
		{name: "infinity stays a string", yaml: "x: .inf", want: `{"x":".inf"}`},
		{name: "big integer kept as written", yaml: "x: 99999999999999999999", want: `{"x":99999999999999999999}`},
		{name: "escapes", yaml: "s: \"a\\\"b\\\\c\\n\\u0001\"", want: `{"s":"a\"b\\c\n\u0001"}`},
		{name: "repeated key", yaml: "{a: 1, a: 2}", wantErr: "case.recipe.yaml:8:20: synthetic.scenarios[0].observations[0].data.a: duplicate key"},
		{name: "complex key", yaml: "? [a]\n: 1\n", wantErr: "a mapping key must be a scalar"},
		{name: "too deep", yaml: strings.Repeat("[", 70) + strings.Repeat("]", 70), wantErr: "MaxDepth"},
		{name: "alias bomb", yaml: aliasBomb(), wantErr: "MaxAliasNodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recipe := "profile: p\nsynthetic:\n  scenarios:\n    - id: a\n      observations:\n        - type: audit_log\n          data:\n            " +
				strings.ReplaceAll(tt.yaml, "\n", "\n            ") + "\n"
			r, err := ParseRecipe("case.recipe.yaml", []byte(recipe))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseRecipe: %v; want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := r.Synthetic.Scenarios[0].Observations[0].Data.Compact()
			if string(got) != tt.want || !json.Valid(got) {
				t.Errorf("data = %s; want %s", got, tt.want)
			}
		})
	}
}

// aliasBomb is a small YAML document whose aliases expand to gigabytes.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [" + strings.Repeat(`"xxxxxxxxxxxxxxxx",`, 16) + `"x"]` + "\n")
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [" + strings.Repeat("*"+prev+",", 15) + "*" + prev + "]\n")
		prev = name
	}
	return b.String()
}
