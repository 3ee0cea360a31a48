package profiles

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

func decodeOne(t *testing.T, src string) (*doc.Node, []Diagnostic) {
	t.Helper()
	d := &diagnostics{}
	n, _ := decodeYAML("f.yaml", []byte(src), d)
	return n, d.list
}

// TestScalars: what the package reads from YAML scalars — their kind, the text they are
// written with, the text a configuration compares them as, and decimals.
func TestScalars(t *testing.T) {
	n, diags := decodeOne(t, "a: 1\nb: \"30\"\nc: 95%\nd: -0.25\ne: True\nf: ~\ng: 1.0000001\nh: 0x10\n")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	tests := []struct {
		key          string
		kind         doc.Kind
		text, config string
	}{
		{"a", doc.Number, "1", "1"}, {"b", doc.String, "30", "30"}, {"c", doc.String, "95%", "95%"},
		{"d", doc.Number, "-0.25", "-0.25"}, {"e", doc.Bool, "True", "true"}, {"f", doc.Null, "~", "~"},
		{"h", doc.Number, "0x10", "0x10"},
	}
	for _, tc := range tests {
		v := n.Get(tc.key)
		if v.Kind() != tc.kind || written(v) != tc.text || ConfigValue(v) != tc.config {
			t.Errorf("%s = %s %q (config %q), want %s %q config %q", tc.key, v.Kind(), written(v), ConfigValue(v), tc.kind, tc.text, tc.config)
		}
	}
	if d, err := decimalOf(n.Get("d")); err != nil || d != decimal.MustParse("-0.25") {
		t.Errorf("d decimal %v %v", d, err)
	}
	for _, key := range []string{"b", "g"} {
		if _, err := decimalOf(n.Get(key)); err == nil {
			t.Errorf("%s = %q read as a decimal", key, written(n.Get(key)))
		}
	}
	if i, err := intOf(n.Get("h")); err != nil || i != 16 {
		t.Errorf("h = %d %v", i, err)
	}
	if p := n.Get("a").Pos(); p.Line != 1 || p.Column != 4 {
		t.Errorf("a at %d:%d", p.Line, p.Column)
	}
}

func TestFlow(t *testing.T) {
	n, _ := decodeOne(t, "k: {a: \"30\", b: [x, \"y z\", true], c: ~, \"d:e\": '-1', f: yes, g: 1.50}\n")
	want := `{a: "30", b: [x, y z, true], c: null, "d:e": "-1", f: "yes", g: 1.50}`
	if got := Flow(n.Get("k")); got != want {
		t.Errorf("flow = %s, want %s", got, want)
	}
}

// TestMergeKeys: YAML merge keys are expanded (docs/decisions.md, "Document model").
func TestMergeKeys(t *testing.T) {
	n, diags := decodeOne(t, "a: &x {k: 1, j: 1}\nb:\n  <<: *x\n  j: 2\n")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := Flow(n.Get("b")); got != "{k: 1, j: 2}" {
		t.Errorf("b = %s", got)
	}
}

// TestYAMLLimits feeds hostile YAML: it must give errors naming the file and line, never panic
// or expand without bound.
func TestYAMLLimits(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i, prev := 'b', 'a'; i <= 'j'; i, prev = i+1, i {
		bomb += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+", ", 9) + "*" + string(prev) + "]\n"
	}
	tests := []struct {
		name, src, want string
	}{
		{"alias bomb", bomb, "yaml-limit: f.yaml:1: d[7][9][0][1]: expanding YAML aliases makes more values than the limit"},
		{"alias to its own parent", "a: &x [1, *x]\n", "f.yaml:1"},
		{"deep nesting", strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", "yaml-limit: f.yaml:1"},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `f.yaml:3: a: duplicate key "a" (first at line 1, column 1)`},
		{"non-scalar key", "? [a]\n: 1\n", "f.yaml:1: a mapping key must be a scalar"},
		{"unknown anchor", "a: *nope\n", "unknown anchor 'nope' referenced"},
		{"two documents", "a: 1\n---\nb: 2\n", "want exactly one YAML document, found 2"},
		{"custom tag", "a: !Ref x\n", "f.yaml:1: a: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := decodeOne(t, tc.src)
			if len(diags) != 1 || !strings.Contains(diags[0].Code+": "+diags[0].String(), tc.want) || diags[0].File != "f.yaml" {
				t.Errorf("diagnostics %v, want one containing %q", diags, tc.want)
			}
		})
	}
}

func TestYAMLDocumentCap(t *testing.T) {
	d := &diagnostics{}
	docs := decodeYAMLStream("f.yaml", []byte(strings.Repeat("---\na: 1\n", maxDocumentsPerFile+1)), d)
	if len(docs) != maxDocumentsPerFile || len(d.list) != 1 || d.list[0].Code != "yaml-limit" {
		t.Errorf("%d documents, diagnostics %v", len(docs), d.list)
	}
}

func TestYAMLParserErrorLines(t *testing.T) {
	tests := []struct {
		src  string
		line int
	}{
		{"a: 1\nb: 2\nc: [1\nd: 4\n", 3}, // parser error, reported 0-based by yaml.v3
		{"a: 1\nb:\n  - x\n  y: 2\n", 3}, // parser error
		{"a: 1\nb: 2\nc: d: e\n", 3},     // scanner error, reported 1-based
		{"a: 1\nb: 2\nc: @x\n", 3},       // scanner error
		{"a: 1\nb: 2\n- x\n", 3},         // parser error without context line
		{"a: 1\nb: \"unterminated\n", 2}, // scanner error
		{"x: 1\n---\n[1\n", 3},           // parser error in a later document
	}
	for _, tc := range tests {
		d := &diagnostics{}
		decodeYAMLStream("f.yaml", []byte(tc.src), d)
		if len(d.list) != 1 || d.list[0].Line != tc.line {
			t.Errorf("%q: diagnostics %v, want line %d", tc.src, d.list, tc.line)
		}
	}
}
