package pyvalue

import (
	"math"
	"strings"
	"testing"
)

// The expected texts were printed by CPython 3.11 for the same values.
func TestFloatRepr(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{pointThree, "0.30000000000000004"}, {1e-05, "1e-05"}, {0.0001, "0.0001"}, {1e16, "1e+16"},
		{1234567890123456.0, "1234567890123456.0"}, {2.5, "2.5"}, {math.Copysign(0, -1), "-0.0"},
		{1e300, "1e+300"}, {0.0024, "0.0024"}, {1, "1.0"}, {100, "100.0"},
		{123456789012345678.0, "1.2345678901234568e+17"}, {5e-324, "5e-324"}, {math.Inf(1), "inf"},
	}
	for _, tt := range tests {
		if got := FloatRepr(tt.f); got != tt.want {
			t.Errorf("FloatRepr(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestStringForms(t *testing.T) {
	tests := []struct{ s, repr, dumps string }{
		{"a'b", `"a'b"`, `"a'b"`},
		{`a"b`, `'a"b'`, `"a\"b"`},
		{`a'"b`, `'a\'"b'`, `"a'\"b"`},
		{"x\ny\t\x01\x7f\u00e9\u200b\U0001F600", `'x\ny\t\x01\x7fé\u200b😀'`, `"x\ny\t\u0001\u007f\u00e9\u200b\ud83d\ude00"`},
		{`\`, `'\\'`, `"\\"`},
	}
	for _, tt := range tests {
		if got := StrRepr(tt.s); got != tt.repr {
			t.Errorf("StrRepr(%q) = %s, want %s", tt.s, got, tt.repr)
		}
		if got := Dumps(NewStr(tt.s)); got != tt.dumps {
			t.Errorf("Dumps(%q) = %s, want %s", tt.s, got, tt.dumps)
		}
	}
}

// TestJSONEscapes: json.dumps (ensure_ascii) and pydantic's model_dump_json (as json.dumps
// with ensure_ascii=False) write the controls alike, as Python 3.12 and pydantic 2.13 print
// them; only the first escapes DEL and non-ASCII characters.
func TestJSONEscapes(t *testing.T) {
	s := "a\"\\\b\f\n\r\t\x01\x1f\x7f\u00e9\u2028\U0001F600"
	if got, want := Dumps(NewStr(s)), `"a\"\\\b\f\n\r\t\u0001\u001f\u007f\u00e9\u2028\ud83d\ude00"`; got != want {
		t.Errorf("Dumps = %s, want %s", got, want)
	}
	if got, want := DumpsCompact(NewDict([]string{"s"}, []Value{NewStr(s)})), "{\"s\":\"a\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\u00e9\u2028\U0001F600\"}"; got != want {
		t.Errorf("DumpsCompact = %s, want %s", got, want)
	}
}

func TestDumpsAndRepr(t *testing.T) {
	v, err := Loads("t.json", []byte(`{"b":1,"a":[1.5,true,null],"é":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{
		`{"b": 1, "a": [1.5, true, null], "\u00e9": "x"}`: Dumps(v),
		`{"a": [1.5, true, null], "b": 1, "\u00e9": "x"}`: DumpsSorted(v),
		`{'b': 1, 'a': [1.5, True, None], 'é': 'x'}`:      Repr(v),
	} {
		if got != name {
			t.Errorf("got %s, want %s", got, name)
		}
	}
}

func TestEqual(t *testing.T) {
	parse := func(s string) Value {
		v, err := Loads("t.json", []byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true}, {`1`, `true`, true}, {`0`, `false`, true}, {`{"a":1,"b":2}`, `{"b":2,"a":1.0}`, true},
		{`"1"`, `1`, false}, {`[1,2]`, `[2,1]`, false}, {`{"a":null}`, `{}`, false}, {`1.5`, `1`, false},
	}
	for _, tt := range tests {
		if got := parse(tt.a).Equal(parse(tt.b)); got != tt.want {
			t.Errorf("%s == %s: %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if DumpsSorted(parse(`1`)) == DumpsSorted(parse(`1.0`)) {
		t.Error("json.dumps tells 1 from 1.0")
	}
}

func TestFixedAndRound(t *testing.T) {
	if got := Fixed(pointThree, 4); got != "0.3000" {
		t.Errorf("Fixed = %s", got)
	}
	if got := Round(2.0/3, 4); got != 0.6667 {
		t.Errorf("Round = %v", got)
	}
	if got := FloatRepr(PowInt(2.0/3, 3)); got != "0.2962962962962962" {
		t.Errorf("pow = %s", got)
	}
}

func TestLoadsErrors(t *testing.T) {
	for s, want := range map[string]string{
		`{`: "t.json:1:2", `[1,]`: "t.json:1:4", `1 2`: "t.json:1:3", ``: "t.json",
		`{"a": [99999999999999999999]}`: "t.json:1:8: a[0]: integer 99999999999999999999 does not fit in 64 bits",
		`{"a": 1, "a": 2}`:              "t.json:1:10",
	} {
		_, err := Loads("t.json", []byte(s))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Loads(%q): %v, want %q…", s, err, want)
		}
	}
	if _, err := Loads("t.json", []byte(`[1e400, -1e400]`)); err != nil {
		t.Errorf("floats beyond a double are ±inf, as Python's float() gives: %v", err)
	}
}

func FuzzLoads(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\u00e9"`, `1e400`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Loads("f.json", b)
		if err != nil {
			return
		}
		again, err := Loads("again.json", []byte(Dumps(v)))
		if err != nil {
			if v.Kind() == KindFloat || v.Kind() == KindList || v.Kind() == KindDict {
				return // NaN and Infinity are Python's extensions, not JSON
			}
			t.Fatalf("Dumps output %q does not parse: %v", Dumps(v), err)
		}
		if DumpsSorted(again) != DumpsSorted(v) {
			t.Fatalf("round trip changed %s into %s", DumpsSorted(v), DumpsSorted(again))
		}
	})
}

// pointThree is 0.1 + 0.2 added at run time (a constant expression would be exact).
var pointOne, pointTwo = 0.1, 0.2
var pointThree = pointOne + pointTwo
