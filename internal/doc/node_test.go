package doc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestErrorFormat(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{File: "x.yaml", Line: 12, Column: 5, Path: Path{}.Key("checks").Index(2).Key("params").Key("tools"), Msg: "want a list"},
			"x.yaml:12:5: checks[2].params.tools: want a list"},
		{&Error{File: "x.yaml", Line: 12, Msg: "m"}, "x.yaml:12: m"},
		{&Error{File: "x.yaml", Msg: "m"}, "x.yaml: m"},
		{&Error{Line: 3, Column: 1, Msg: "m"}, "3:1: m"},
		{&Error{Path: Path{}.Index(0).Key("a"), Msg: "m"}, "[0].a: m"},
		{&Error{Msg: "m"}, "m"},
		{&Error{Path: deepPath(30), Msg: "m"}, "a[0][1][2][3][4][5][6][7][8][9][10]…[18][19][20][21][22][23][24][25][26][27][28].z: m"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

func deepPath(items int) Path {
	p := Path{}.Key("a")
	for i := range items - 1 {
		p = p.Index(i)
	}
	return p.Key("z")
}

func TestPath(t *testing.T) {
	p := Path{}.Key("a/b").Index(10).Key("~x").Key("")
	if got := p.Pointer(); got != "/a~1b/10/~0x/" {
		t.Errorf("Pointer %q", got)
	}
	if got := p.String(); got != "a/b[10].~x." {
		t.Errorf("String %q", got)
	}
	// Extending a path never changes another one extended from the same prefix.
	base := make(Path, 0, 8).Key("a")
	x, y := base.Key("x"), base.Key("y")
	if x.String() != "a.x" || y.String() != "a.y" {
		t.Errorf("shared prefix: %s, %s", x, y)
	}
}

func TestLookup(t *testing.T) {
	// The example document of RFC 6901 §5.
	n := mustJSON(t, `{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
		"k\"l": 6, " ": 7, "m~n": 8}`)
	for _, tc := range []struct{ ptr, want string }{
		{"", ""}, {"/foo", `["bar","baz"]`}, {"/foo/0", `"bar"`}, {"/", "0"}, {"/a~1b", "1"}, {"/c%d", "2"},
		{"/e^f", "3"}, {"/g|h", "4"}, {"/i\\j", "5"}, {"/k\"l", "6"}, {"/ ", "7"}, {"/m~0n", "8"},
	} {
		v, err := n.Lookup(tc.ptr)
		if err != nil {
			t.Errorf("%q: %v", tc.ptr, err)
			continue
		}
		if tc.want != "" && string(v.Compact()) != tc.want {
			t.Errorf("%q: %s, want %s", tc.ptr, v.Compact(), tc.want)
		}
		if v != n && v.Path().Pointer() != tc.ptr {
			t.Errorf("%q: Path().Pointer() = %q", tc.ptr, v.Path().Pointer())
		}
	}
	for _, tc := range []struct{ ptr, want string }{
		{"foo", `invalid JSON Pointer "foo"`},
		{"/m~2n", `invalid JSON Pointer "/m~2n"`},
		{"/foo/2", `t.json:1:9: foo: no value at "2" (in an array)`},
		{"/foo/01", `t.json:1:9: foo: no value at "01" (in an array)`},
		{"/foo/-", `t.json:1:9: foo: no value at "-" (in an array)`},
		{"/foo/0/x", `t.json:1:10: foo[0]: no value at "x" (in a string)`},
		{"/nope", `t.json:1:1: no value at "nope" (in an object)`},
	} {
		_, err := n.Lookup(tc.ptr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %s", tc.ptr, err, tc.want)
		}
	}
}

func TestAccessors(t *testing.T) {
	n := mustJSON(t, `{"s": "x", "b": true, "i": 12, "e": 1.2e1, "neg": -9223372036854775808, "big": 9223372036854775808,
		"u": 18446744073709551615, "f": 0.5, "d": "1.5", "z": null, "a": [1], "huge": 1e5000}`)
	get := func(key string) *Node { return n.Get(key) }
	check := func(what string, got any, err error, want string) {
		t.Helper()
		s := fmt.Sprint(got)
		if err != nil {
			s = "error: " + err.Error()
		}
		if s != want {
			t.Errorf("%s: %s, want %s", what, s, want)
		}
	}
	s, err := get("s").Str()
	check("Str", s, err, "x")
	_, err = get("i").Str()
	check("Str of a number", nil, err, "error: t.json:1:28: i: want a string, got a number")
	b, err := get("b").Bool()
	check("Bool", b, err, "true")
	_, err = get("z").Bool()
	check("Bool of null", nil, err, "error: t.json:2:57: z: want a boolean, got null")
	for _, tc := range []struct{ key, want string }{
		{"i", "12"}, {"e", "12"}, {"neg", "-9223372036854775808"},
		{"big", "error: t.json:1:80: big: want an integer within ±2^63, got 9223372036854775808"},
		{"f", "error: t.json:2:35: f: want an integer within ±2^63, got 0.5"},
		{"d", "error: t.json:2:45: d: want an integer, got a string"},
	} {
		v, err := get(tc.key).Int64()
		check("Int64 "+tc.key, v, err, tc.want)
	}
	u, err := get("u").Uint64()
	check("Uint64", u, err, "18446744073709551615")
	_, err = get("neg").Uint64()
	check("Uint64 of a negative", nil, err, "error: t.json:1:51: neg: want a non-negative integer below 2^64, got -9223372036854775808")
	f, err := get("f").Float64()
	check("Float64", f, err, "0.5")
	_, err = get("huge").Float64()
	check("Float64 out of range", nil, err, "error: t.json:2:81: huge: number 1e5000 is out of the range of a float64")
	d, err := get("e").Decimal()
	check("Decimal", d, err, "12")
	_, err = get("huge").Decimal()
	check("Decimal too long", nil, err, "error: t.json:2:81: huge: number 1e5000 has more than 4096 digits in plain notation")
	if get("a").Len() != 1 || get("a").Index(0).Text() != "1" || get("a").Index(1) != nil || get("a").Index(-1) != nil {
		t.Error("Len / Index")
	}
	if !get("z").IsNull() || get("nope").IsNull() || get("nope").Kind() != 0 {
		t.Error("IsNull / absent")
	}
	// nil-safe chaining
	var absent *Node
	if absent.Get("x").Get("y") != nil || absent.Len() != 0 || absent.Items() != nil || absent.Members() != nil || absent.Text() != "" {
		t.Error("nil node accessors")
	}
	if _, err := absent.Str(); err == nil || err.Error() != "want a string, got nothing" {
		t.Errorf("Str of a nil node: %v", err)
	}
	if string(absent.Compact()) != "null" {
		t.Error("Compact of a nil node")
	}
}

func TestErrorf(t *testing.T) {
	n := mustJSON(t, "{\"checks\": [1, 2, {\"params\": {\"tools\": \"x\"}}]}")
	tools, _ := n.Lookup("/checks/2/params/tools")
	err := tools.TypeError("a list of strings")
	if err.Error() != "t.json:1:40: checks[2].params.tools: want a list of strings, got a string" || !errors.Is(err, ErrType) {
		t.Errorf("TypeError: %v", err)
	}
	mine := errors.New("kensa: scenario")
	err = tools.Errorf("%w: unknown tool %q", mine, "x")
	if err.Error() != `t.json:1:40: checks[2].params.tools: kensa: scenario: unknown tool "x"` || !errors.Is(err, mine) || errors.Is(err, ErrType) {
		t.Errorf("Errorf: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Pos() != tools.Pos() || e.Path.Pointer() != "/checks/2/params/tools" {
		t.Errorf("Errorf fields: %+v", e)
	}
}

func TestAllAndParents(t *testing.T) {
	n := mustJSON(t, `{"a": [1, {"b": 2}], "c": 3}`)
	var seen []string
	for v := range n.All() {
		seen = append(seen, v.Path().Pointer()+"="+v.Kind().String())
		if v != n && v.Parent() == nil {
			t.Errorf("%s has no parent", v.Path())
		}
	}
	want := "=object /a=array /a/0=number /a/1=object /a/1/b=number /c=number"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("All: %s, want %s", got, want)
	}
	for range n.All() {
		break // stopping early must not panic
	}
}

// The node's size decides the memory of a tree: keep it at six words.
func TestNodeSize(t *testing.T) {
	if size := unsafe.Sizeof(Node{}); size != 48 {
		t.Errorf("a Node takes %d bytes, want 48", size)
	}
}
