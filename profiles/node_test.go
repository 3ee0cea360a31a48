package profiles

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
)

func decodeOne(t *testing.T, src string) (Node, []Diagnostic) {
	t.Helper()
	d := &diagnostics{}
	n, _ := decodeYAML("f.yaml", []byte(src), d)
	return n, d.list
}

func TestNodeScalars(t *testing.T) {
	n, diags := decodeOne(t, "a: 1\nb: \"30\"\nc: 95%\nd: -0.25\ne: True\nf: ~\ng: 1.0000001\nh: 0x10\n")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	tests := []struct {
		key, tag, text, config string
	}{
		{"a", TagInt, "1", "1"}, {"b", TagStr, "30", "30"}, {"c", TagStr, "95%", "95%"},
		{"d", TagFloat, "-0.25", "-0.25"}, {"e", TagBool, "True", "true"}, {"f", TagNull, "~", "~"},
	}
	for _, tc := range tests {
		v, ok := n.Get(tc.key)
		if !ok || v.Tag != tc.tag || v.Text != tc.text || v.ConfigValue() != tc.config {
			t.Errorf("%s = %+v (config %q), want tag %s text %q config %q", tc.key, v, v.ConfigValue(), tc.tag, tc.text, tc.config)
		}
	}
	if d, _ := n.Get("d"); mustDecimal(t, d) != decimal.MustParse("-0.25") {
		t.Error("d decimal")
	}
	for _, key := range []string{"b", "g", "h"} {
		v, _ := n.Get(key)
		if _, err := v.Decimal(); err == nil {
			t.Errorf("%s = %q read as a decimal", key, v.Text)
		}
	}
	if v, _ := n.Get("a"); v.Line != 1 || v.Column != 4 {
		t.Errorf("a at %d:%d", v.Line, v.Column)
	}
}

func mustDecimal(t *testing.T, n *Node) decimal.Decimal {
	t.Helper()
	d, err := n.Decimal()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestNodeString(t *testing.T) {
	n, _ := decodeOne(t, "k: {a: \"30\", b: [x, \"y z\", true], c: ~, \"d:e\": '-1', f: yes}\n")
	v, _ := n.Get("k")
	want := `{a: "30", b: [x, y z, true], c: null, "d:e": "-1", f: "yes"}`
	if got := v.String(); got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	if got := v.Keys(); strings.Join(got, ",") != "a,b,c,d:e,f" {
		t.Errorf("Keys() = %v", got)
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
		{"alias bomb", bomb, "document expands to more than 100000 values"},
		{"alias to its own parent", "a: &x [1, *x]\n", "nesting deeper than 64 levels"},
		{"deep nesting", strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", "nesting deeper than 64 levels"},
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `f.yaml:3: duplicate key "a" (first at line 1)`},
		{"non-scalar key", "? [a]\n: 1\n", "f.yaml:1: mapping key is not a scalar"},
		{"unknown anchor", "a: *nope\n", "unknown anchor 'nope' referenced"},
		{"two documents", "a: 1\n---\nb: 2\n", "want exactly one YAML document, found 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := decodeOne(t, tc.src)
			if len(diags) != 1 || !strings.Contains(diags[0].String(), tc.want) || diags[0].File != "f.yaml" {
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
