package doc

import (
	"fmt"
	"strings"
	"testing"
)

func renderDiffs(diffs []Difference, truncated bool) string {
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "%s [%s]\n", d, d.Kind)
	}
	if truncated {
		b.WriteString("(truncated)\n")
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"equal whatever the member order and number spelling",
			`{"a": 1, "b": [1.0, {"x": "y"}]}`, `{"b": [10e-1, {"x": "y"}], "a": 1.00}`, ""},
		{"scalars, types and one-sided members",
			`{"s": "x", "n": 1, "t": true, "gone": 1, "k": [1]}`, `{"s": "y", "n": 2, "t": "true", "new": {"z": 1}, "k": {}}`,
			"/gone: 1 → (absent) [only-a]\n/k: [1] → {} [type]\n/n: 1 → 2 [changed]\n/new: (absent) → {\"z\":1} [only-b]\n/s: \"x\" → \"y\" [changed]\n/t: true → \"true\" [type]\n"},
		{"indices sort as numbers, items are not aligned",
			`[0,1,2,3,4,5,6,7,8,9,10,11]`, `[0,1,2,3,4,5,6,7,8,9,10,12,13]`,
			"/11: 11 → 12 [changed]\n/12: (absent) → 13 [only-b]\n"},
		{"names in byte order, pointer escapes",
			`{"b": 1, "a/b": 1, "a~": 1, "é": 1, "\ud83d\ude00": 1, "\ue000": 1}`, `{"b": 2, "a/b": 2, "a~": 2, "é": 2, "\ud83d\ude00": 2, "\ue000": 2}`,
			"/a~1b: 1 → 2 [changed]\n/a~0: 1 → 2 [changed]\n/b: 1 → 2 [changed]\n/é: 1 → 2 [changed]\n/\ue000: 1 → 2 [changed]\n/\U0001F600: 1 → 2 [changed]\n"},
		{"the whole document", `[1]`, `{"a": [1]}`, "(document): [1] → {\"a\":[1]} [type]\n"},
		{"rendering sorts members by bytes and keeps number literals",
			`{"x": {"b": 1.50, "a": [1e2]}}`, `{"x": null}`, "/x: {\"a\":[1e2],\"b\":1.50} → null [type]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := mustJSON(t, tc.a), mustJSON(t, tc.b)
			got := renderDiffs(Diff(a, b, DiffOptions{}))
			if got != tc.want {
				t.Errorf("got\n%swant\n%s", got, tc.want)
			}
			if Equal(a, b) != (tc.want == "") {
				t.Errorf("Equal disagrees with Diff")
			}
			if d, _ := Diff(a, a, DiffOptions{}); len(d) != 0 {
				t.Errorf("Diff(a, a) = %v", d)
			}
		})
	}
}

func TestDiffLimits(t *testing.T) {
	a := mustJSON(t, `[0,1,2,3,4,5,6,7,8,9,10,11]`)
	b := mustJSON(t, `[10,11,12,13,14,15,16,17,18,19,20,21]`)
	for _, tc := range []struct {
		max       int
		n         int
		truncated bool
	}{{0, 12, false}, {12, 12, false}, {11, 11, true}, {3, 3, true}, {1, 1, true}} {
		diffs, truncated := Diff(a, b, DiffOptions{MaxDifferences: tc.max})
		if len(diffs) != tc.n || truncated != tc.truncated {
			t.Errorf("max %d: %d differences, truncated %v; want %d, %v", tc.max, len(diffs), truncated, tc.n, tc.truncated)
		}
		for i, d := range diffs {
			if d.Path != fmt.Sprintf("/%d", i) {
				t.Errorf("max %d: difference %d at %s: the first ones must be kept, in order", tc.max, i, d.Path)
			}
		}
	}
	long := mustJSON(t, `["`+strings.Repeat("é", 20)+`"]`)
	diffs, _ := Diff(long, mustJSON(t, `[]`), DiffOptions{MaxValueBytes: 10})
	if len(diffs) != 1 || diffs[0].A != `"éééé…` || diffs[0].B != Absent {
		t.Errorf("a long value is cut on a character boundary: %q", diffs)
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		equal bool
	}{
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{`{"a":1,"b":2}`, `{"b":2,"c":1}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`[1,[2]]`, `[1.0,[2e0]]`, true},
		{`"1"`, `1`, false},
		{`null`, `null`, true},
		{`true`, `false`, false},
	} {
		if got := Equal(mustJSON(t, tc.a), mustJSON(t, tc.b)); got != tc.equal {
			t.Errorf("Equal(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
	if !Equal(nil, nil) || Equal(nil, mustJSON(t, "null")) {
		t.Error("Equal with nil")
	}
	if !Equal(mustJSON(t, `{"a": [1, "x"], "b": null}`), mustYAML(t, "b: ~\na: [1.0, x]\n")) {
		t.Error("a JSON and a YAML document of the same value are not Equal")
	}
}

func TestLeaves(t *testing.T) {
	n := mustJSON(t, `{"b": [1, [2, 3], {}], "a": {"x": "y", "e": []}, "s": ["p", "q"], "m": [1, {"k": 2}]}`)
	render := func(leaves []Leaf) string {
		var parts []string
		for _, l := range leaves {
			parts = append(parts, l.Pointer+"="+string(l.Node.Compact()))
		}
		return strings.Join(parts, " ")
	}
	if got, want := render(Leaves(n, LeafOptions{})),
		`/a/e=[] /a/x="y" /b/0=1 /b/1/0=2 /b/1/1=3 /b/2={} /m/0=1 /m/1/k=2 /s/0="p" /s/1="q"`; got != want {
		t.Errorf("Leaves:\n got %s\nwant %s", got, want)
	}
	if got, want := render(Leaves(n, LeafOptions{ScalarArrays: true})),
		`/a/e=[] /a/x="y" /b/0=1 /b/1=[2,3] /b/2={} /m/0=1 /m/1/k=2 /s=["p","q"]`; got != want {
		t.Errorf("Leaves with ScalarArrays:\n got %s\nwant %s", got, want)
	}
	if got := render(Leaves(mustJSON(t, `5`), LeafOptions{})); got != "=5" {
		t.Errorf("a scalar document: %s", got)
	}
}
