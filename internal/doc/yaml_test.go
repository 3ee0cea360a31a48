package doc

import (
	"errors"
	"strings"
	"testing"
)

func mustYAML(t testing.TB, text string) *Node {
	t.Helper()
	n, err := ParseYAML("t.yaml", []byte(text), Limits{})
	if err != nil {
		t.Fatalf("ParseYAML(%q): %v", text, err)
	}
	return n
}

// TestYAMLScalars pins how every YAML scalar form maps onto the model (see doc.go).
func TestYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		kind Kind
		text string
	}{
		{`~`, Null, "null"},
		{`null`, Null, "null"},
		{`NULL`, Null, "null"},
		{`!!null ""`, Null, "null"},
		{`true`, Bool, "true"},
		{`True`, Bool, "true"},
		{`FALSE`, Bool, "false"},
		{`yes`, String, "yes"}, // YAML 1.1 booleans are strings in YAML 1.2
		{`on`, String, "on"},
		{`n`, String, "n"},
		{`12`, Number, "12"},
		{`-0`, Number, "-0"},
		{`+12`, Number, "12"},
		{`0x1F`, Number, "31"},
		{`0o17`, Number, "15"},
		{`017`, Number, "15"}, // yaml.v3 still reads YAML 1.1 octal
		{`0b101`, Number, "5"},
		{`-0b101`, Number, "-5"},
		{`1_000`, Number, "1000"},
		{`18446744073709551615`, Number, "18446744073709551615"},
		{`123456789012345678901234567890`, Number, "123456789012345678901234567890"},
		{`1.50`, Number, "1.50"},
		{`1e3`, Number, "1e3"},
		{`.5`, Number, "0.5"},
		{`-.5e-3`, Number, "-0.5e-3"},
		{`1.`, Number, "1"},
		{`+1.5E+2`, Number, "1.5e+2"},
		{`007.5`, Number, "7.5"},
		{`!!float 1`, Number, "1"},
		{`!!float 0x10`, Number, "16"},
		{`!!int "12"`, Number, "12"},
		{`"12"`, String, "12"},
		{`'true'`, String, "true"},
		{`!!str 12`, String, "12"},
		{`2024-01-31`, String, "2024-01-31"}, // a timestamp stays as written
		{`2024-01-31T10:00:00Z`, String, "2024-01-31T10:00:00Z"},
		{`!!binary aGVsbG8=`, String, "aGVsbG8="},
		{"|\n  line 1\n  line 2\n", String, "line 1\nline 2\n"},
		{"plain\n  folded", String, "plain folded"},
		{`<<`, String, "<<"},
		{`.inf`, String, ".inf"}, // the model has exact decimals only
		{`-.Inf`, String, "-.Inf"},
		{`.NaN`, String, ".NaN"},
		{`!!float .inf`, String, ".inf"},
		{`1:30`, String, "1:30"}, // YAML 1.1 sexagesimal is gone in YAML 1.2
		{`"é\u00e9"`, String, "éé"},
	} {
		n := mustYAML(t, tc.yaml)
		if n.Kind() != tc.kind || n.Text() != tc.text {
			t.Errorf("%q: %v %q, want %v %q", tc.yaml, n.Kind(), n.Text(), tc.kind, tc.text)
		}
	}
}

func TestYAMLErrors(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
		class      error
	}{
		{"", "t.yaml: no YAML document: the input is empty", ErrSyntax},
		{"# only a comment\n", "t.yaml: no YAML document: the input is empty", ErrSyntax},
		{"a: 1\n---\nb: 2\n", "t.yaml:2: a second YAML document; one is wanted", ErrSyntax},
		{"a: [1, 2\n", "t.yaml:2: did not find expected ',' or ']'", ErrSyntax},
		{"a:\n  b: 1\n c: 2\n", "t.yaml:3: did not find expected key", ErrSyntax},
		{"a: 1\n- b\n", "t.yaml:2: did not find expected key", ErrSyntax},
		{"a: 1\n\tb: 2\n", "t.yaml:2: found a tab character that violates indentation", ErrSyntax},
		{"a: b: c\n", "t.yaml: mapping values are not allowed in this context", ErrSyntax}, // yaml.v3 gives no line on line 1
		{"a:\n  b: *nope\n", "t.yaml: unknown anchor 'nope' referenced", ErrSyntax},
		{"a: !!int 1.5\n", `t.yaml:1:4: a: !!int "1.5" is not an integer`, ErrType},
		{"a: !!bool yes\n", `t.yaml:1:4: a: !!bool value "yes" is not true or false`, ErrType},
		{"a: !!null x\n", `t.yaml:1:4: a: !!null value "x" is not null`, ErrType},
		{"a: !Ref x\n", "t.yaml:1:4: a: unsupported YAML tag !Ref", ErrType},
		{"a: !!set {x}\n", "t.yaml:1:4: a: unsupported YAML tag !!set", ErrType},
		{"? [a, b]\n: 1\n", "t.yaml:1:3: a mapping key must be a scalar, got a sequence", ErrType},
		{"x:\n  a: 1\n  b: 2\n  a: 3\n", `t.yaml:4:3: x.a: duplicate key "a" (first at line 2, column 3)`, ErrDuplicateKey},
		{"1: a\n\"1\": b\n", `t.yaml:2:1: 1: duplicate key "1" (first at line 1, column 1)`, ErrDuplicateKey},
		{"a: &x 1\nb:\n  <<: *x\n", "t.yaml:3:7: b.<<: a merge key (<<) must name a mapping or a list of mappings", ErrType},
		{"a: &x [1]\nb:\n  <<: *x\n", "t.yaml:1:8: b.<<: a merge key (<<) must name a mapping or a list of mappings", ErrType},
	} {
		_, err := ParseYAML("t.yaml", []byte(tc.yaml), Limits{})
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.class) {
			t.Errorf("ParseYAML(%q):\n got %v\nwant %s (%v)", tc.yaml, err, tc.want, tc.class)
		}
	}
}

func TestYAMLKeysAndPositions(t *testing.T) {
	n := mustYAML(t, "top:\n  1: one\n  true: yes\n  ~: null\n  \"q\": é\nlist:\n  - a\n  - {k: v}\n")
	top := n.Get("top")
	var keys []string
	for _, m := range top.Members() {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, ","); got != "1,true,~,q" {
		t.Errorf("keys %q, want the scalars as written", got)
	}
	for _, tc := range []struct {
		ptr       string
		line, col int
	}{
		{"", 1, 1}, {"/top", 2, 3}, {"/top/1", 2, 6}, {"/top/q", 5, 8}, {"/list/0", 7, 5}, {"/list/1/k", 8, 9},
	} {
		v, err := n.Lookup(tc.ptr)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Pos{File: "t.yaml", Line: tc.line, Column: tc.col, Offset: -1}); v.Pos() != want {
			t.Errorf("%s: %+v, want %+v", tc.ptr, v.Pos(), want)
		}
	}
	if got, want := top.Member("q").KeyPos(), (Pos{File: "t.yaml", Line: 5, Column: 3, Offset: -1}); got != want {
		t.Errorf("KeyPos %+v, want %+v", got, want)
	}
}

func TestYAMLAliasesAndMerges(t *testing.T) {
	n := mustYAML(t, `base: &base {a: 1, b: 2}
more: &more {c: 3, a: 9}
list: &list [x, y]
copy: *list
one:
  <<: *base
  b: 20
two:
  d: 4
  <<: [*more, *base]
  c: 30
inline:
  <<: {e: 5}
`)
	for _, tc := range []struct{ ptr, compact string }{
		{"/copy", `["x","y"]`},
		{"/one", `{"a":1,"b":20}`},
		{"/two", `{"d":4,"a":9,"b":2,"c":30}`},
		{"/inline", `{"e":5}`},
	} {
		v, err := n.Lookup(tc.ptr)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(v.Compact()); got != tc.compact {
			t.Errorf("%s: %s, want %s", tc.ptr, got, tc.compact)
		}
		for _, m := range v.Members() {
			if m.Value.Parent() != v {
				t.Errorf("%s/%s: parent is not the merging mapping", tc.ptr, m.Key)
			}
		}
	}
	// An alias is positioned where it is used; what it copies, where that is written.
	copied := n.Get("copy")
	if p := copied.Pos(); p.Line != 4 || p.Column != 7 {
		t.Errorf("alias at %v, want 4:7", p)
	}
	if p := copied.Index(1).Pos(); p.Line != 3 || p.Column != 17 {
		t.Errorf("aliased item at %v, want 3:17", p)
	}
	if got := copied.Index(1).Path().Pointer(); got != "/copy/1" {
		t.Errorf("aliased item path %s, want /copy/1", got)
	}
}

func TestYAMLStream(t *testing.T) {
	docs, err := ParseYAMLStream("s.yaml", []byte("a: 1\n---\n---\n- x\n...\n---\nz\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, string(d.Compact()))
	}
	if strings.Join(got, " ") != `{"a":1} null ["x"] "z"` {
		t.Errorf("documents %v", got)
	}
	if docs, err := ParseYAMLStream("s.yaml", nil, Limits{}); err != nil || len(docs) != 0 {
		t.Errorf("empty stream: %v, %v", docs, err)
	}
}

func TestYAMLLimits(t *testing.T) {
	for _, tc := range []struct {
		yaml  string
		lim   Limits
		limit string
	}{
		{"a: [[[1]]]", Limits{MaxDepth: 3}, "MaxDepth"},
		{"abcdef: 1", Limits{MaxKeyBytes: 5}, "MaxKeyBytes"},
		{"a: abcdef", Limits{MaxStringBytes: 5}, "MaxStringBytes"},
		{"a: 123456", Limits{MaxNumberBytes: 5}, "MaxNumberBytes"},
		{"a: 123456", Limits{MaxBytes: 5}, "MaxBytes"},
		{"[1, 2, 3, 4]", Limits{MaxNodes: 12}, "MaxNodes"}, // refused by the bound before parsing
		{"a: &a [1, 2]\nb: [*a, *a, *a]", Limits{MaxAliasNodes: 8}, "MaxAliasNodes"},
		{"a: &a [1, 2]\nb: [*a, *a, *a]", Limits{MaxNodes: 30, MaxAliasNodes: 100}, "MaxNodes"},
		{"a: &a [*a]", Limits{}, "MaxDepth"}, // an alias to its own parent
	} {
		_, err := ParseYAML("t.yaml", []byte(tc.yaml), tc.lim)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "(Limits."+tc.limit+" is ") {
			t.Errorf("%q with %+v: %v, want Limits.%s", tc.yaml, tc.lim, err, tc.limit)
		}
	}
	if _, err := ParseYAML("t.yaml", []byte("a: &a [1, 2]\nb: [*a, *a, *a]"), Limits{MaxAliasNodes: 9}); err != nil {
		t.Errorf("within MaxAliasNodes: %v", err)
	}
}

func TestYAMLAliasBomb(t *testing.T) {
	_, err := ParseYAML("bomb.yaml", []byte(aliasBomb), Limits{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "Limits.MaxAliasNodes") {
		t.Errorf("alias bomb: %v", err)
	}
}

// TestYAMLValueBound checks the bound against yaml.v3's own count on inputs of every shape.
func TestYAMLValueBound(t *testing.T) {
	for _, text := range yamlBoundSeeds {
		checkYAMLBound(t, []byte(text))
	}
}

var yamlBoundSeeds = []string{
	"", "a", "---", "--- \n---\n", "a\n...\nb\n...\nc", "{a,b,c}", "{a: , : b, ? c}", "[a: , : b, ? c]",
	"[,]", "- \n- \n-\n", "? \n? \n", "a:\nb:\nc:\n", "&a x", "*a", "{a: &a [1], b: [*a, *a]}",
	"\"a b c\": 'd e'", "|\n  x y\n  z\n", "a: b\n  c\n", "[[[[]]]]", "{{}: {}}", "- - - -\n", "!!str", "? - a\n: - b",
	"%YAML 1.2\n---\na", "a: !!binary aGk=", "[a,b,[c,{d,e}]]",
}

// TestYAMLScalarAsWritten: what a YAML 1.1 reader needs to resolve scalars its own way.
func TestYAMLScalarAsWritten(t *testing.T) {
	n := mustYAML(t, "a: yes\nb: \"yes\"\nc: 0x1F\nd: !!str 12\ne: ~\nf: |\n  x\ng: 1e3\nh: .inf\ni: [1]\nj:\nk: FALSE\nl: true\n")
	for _, tc := range []struct {
		key  string
		want YAMLScalar
	}{
		{"a", YAMLScalar{Value: "yes", Plain: true}},
		{"b", YAMLScalar{Value: "yes"}},
		{"c", YAMLScalar{Value: "0x1F", Plain: true}},
		{"d", YAMLScalar{Value: "12", Tag: "!!str"}},
		{"e", YAMLScalar{Value: "~", Plain: true}},
		{"f", YAMLScalar{Value: "x\n"}},
		{"g", YAMLScalar{Value: "1e3", Plain: true}},
		{"h", YAMLScalar{Value: ".inf", Plain: true}},
		{"j", YAMLScalar{Value: "", Plain: true}},
		{"k", YAMLScalar{Value: "FALSE", Plain: true}},
		{"l", YAMLScalar{Value: "true", Plain: true}},
	} {
		got, ok := n.Get(tc.key).YAMLScalar()
		if !ok || got != tc.want {
			t.Errorf("%s: %+v %v, want %+v", tc.key, got, ok, tc.want)
		}
	}
	if _, ok := n.Get("i").YAMLScalar(); ok {
		t.Error("YAMLScalar of a sequence")
	}
	if _, ok := mustJSON(t, `"yes"`).YAMLScalar(); ok {
		t.Error("YAMLScalar of a JSON value")
	}
}
