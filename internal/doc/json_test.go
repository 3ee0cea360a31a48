package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func mustJSON(t testing.TB, text string) *Node {
	t.Helper()
	n, err := ParseJSON("t.json", []byte(text), Limits{})
	if err != nil {
		t.Fatalf("ParseJSON(%q): %v", text, err)
	}
	return n
}

func TestParseJSONValues(t *testing.T) {
	for _, tc := range []struct {
		in, compact string
	}{
		{`null`, `null`},
		{` true `, `true`},
		{"\n\tfalse\r\n", `false`},
		{`-0`, `-0`},
		{`1.50e+10`, `1.50e+10`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`""`, `""`},
		{`"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`, `"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`},
		{`[ ]`, `[]`},
		{`{ }`, `{}`},
		{`{"b": [1, {"c": null}], "a": "x y"}`, `{"b":[1,{"c":null}],"a":"x y"}`},
		{"\xEF\xBB\xBF{\"bom\": 1}", `{"bom":1}`},
	} {
		n := mustJSON(t, tc.in)
		if got := string(n.Compact()); got != tc.compact {
			t.Errorf("Compact(%q) = %s, want %s", tc.in, got, tc.compact)
		}
		if !json.Valid([]byte(strings.TrimPrefix(tc.in, "\xEF\xBB\xBF"))) {
			t.Errorf("test input %q is not valid JSON", tc.in)
		}
	}
}

func TestParseJSONKindsAndText(t *testing.T) {
	n := mustJSON(t, `{"s": "é\n", "n": 1.0, "t": true, "f": false, "z": null, "a": [], "o": {}}`)
	for _, tc := range []struct {
		key  string
		kind Kind
		text string
	}{
		{"s", String, "é\n"}, {"n", Number, "1.0"}, {"t", Bool, "true"}, {"f", Bool, "false"},
		{"z", Null, "null"}, {"a", Array, ""}, {"o", Object, ""},
	} {
		v := n.Get(tc.key)
		if v.Kind() != tc.kind || v.Text() != tc.text {
			t.Errorf("%s: kind %v text %q, want %v %q", tc.key, v.Kind(), v.Text(), tc.kind, tc.text)
		}
	}
	var keys []string
	for _, m := range n.Members() {
		keys = append(keys, m.Key)
	}
	if got := strings.Join(keys, ","); got != "s,n,t,f,z,a,o" {
		t.Errorf("member order %s, want document order", got)
	}
}

func TestParseJSONPositions(t *testing.T) {
	text := "{\n  \"é\": [1,\n    \"ü\", {\"k\": \"x\"}],\n\t\"b\": null\n}"
	n := mustJSON(t, text)
	for _, tc := range []struct {
		ptr        string
		line, col  int
		offset     int64
		keyLine    int
		keyCol     int
		keyOffset  int64
		isRootItem bool
	}{
		{"", 1, 1, 0, 0, 0, 0, true},
		{"/é", 2, 8, 10, 2, 3, 4, false},
		{"/é/0", 2, 9, 11, 0, 0, 0, true},
		{"/é/1", 3, 5, 18, 0, 0, 0, true},
		{"/é/2/k", 3, 16, 30, 3, 11, 25, false},
		{"/b", 4, 7, 43, 4, 2, 38, false},
	} {
		v, err := n.Lookup(tc.ptr)
		if err != nil {
			t.Fatal(err)
		}
		want := Pos{File: "t.json", Line: tc.line, Column: tc.col, Offset: tc.offset}
		if got := v.Pos(); got != want {
			t.Errorf("%s: Pos %+v, want %+v", tc.ptr, got, want)
		}
		if tc.isRootItem {
			continue
		}
		parent := v.Parent()
		m := parent.Member(strings.TrimPrefix(tc.ptr[strings.LastIndex(tc.ptr, "/"):], "/"))
		wantKey := Pos{File: "t.json", Line: tc.keyLine, Column: tc.keyCol, Offset: tc.keyOffset}
		if got := m.KeyPos(); got != wantKey {
			t.Errorf("%s: KeyPos %+v, want %+v", tc.ptr, got, wantKey)
		}
	}
}

func TestParseJSONBOMColumns(t *testing.T) {
	n := mustJSON(t, "\xEF\xBB\xBF[\"é\", 2]")
	if got := n.Index(1).Pos(); got.Line != 1 || got.Column != 7 || got.Offset != 10 {
		t.Errorf("after a BOM: %+v, want line 1 column 7 offset 10", got)
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		class    error
		// stricter marks input encoding/json accepts (replacing what it cannot decode with
		// U+FFFD) and this package refuses (RFC 8259 §8.2).
		stricter bool
	}{
		{``, `t.json:1:1: unexpected end of input, want a value`, ErrSyntax, false},
		{`   `, `t.json:1:4: unexpected end of input, want a value`, ErrSyntax, false},
		{`[1,2`, `t.json:1:5: unexpected end of input, want ',' or ']'`, ErrSyntax, false},
		{`[1,]`, `t.json:1:4: [1]: unexpected character ']', want a value`, ErrSyntax, false},
		{`{"a" 1}`, `t.json:1:6: unexpected character '1' after a member name, want ':'`, ErrSyntax, false},
		{`{"a":1,}`, `t.json:1:8: unexpected character '}', want a member name (a string)`, ErrSyntax, false},
		{`{"a":1 "b":2}`, `t.json:1:8: unexpected character '"' after an object member, want ',' or '}'`, ErrSyntax, false},
		{`{1:2}`, `t.json:1:2: unexpected character '1', want a member name (a string)`, ErrSyntax, false},
		{`[1] [2]`, `t.json:1:5: unexpected character '[' after the JSON value`, ErrSyntax, false},
		{`01`, `t.json:1:2: a number has a leading zero`, ErrSyntax, false},
		{`-`, `t.json:1:2: unexpected end of input, want a digit`, ErrSyntax, false},
		{`1.`, `t.json:1:3: unexpected end of input, want a digit after the decimal point`, ErrSyntax, false},
		{`1.e5`, `t.json:1:3: unexpected character 'e' in a number, want a digit after the decimal point`, ErrSyntax, false},
		{`1e+`, `t.json:1:4: unexpected end of input, want a digit in the exponent`, ErrSyntax, false},
		{`+1`, `t.json:1:1: unexpected character '+', want a value`, ErrSyntax, false},
		{`tru`, `t.json:1:4: unexpected end of input, want the rest of "true"`, ErrSyntax, false},
		{`nul1`, `t.json:1:1: unexpected character 'n', want a value`, ErrSyntax, false},
		{`NaN`, `t.json:1:1: unexpected character 'N', want a value`, ErrSyntax, false},
		{`"abc`, `t.json:1:5: unexpected end of input, want the end of the string`, ErrSyntax, false},
		{"\"a\tb\"", `t.json:1:3: control character byte 0x09 in a string (write it as an escape)`, ErrSyntax, false},
		{`"\x"`, `t.json:1:2: invalid escape sequence \x`, ErrSyntax, false},
		{`"\u12"`, `t.json:1:6: unexpected character '"' in a \u escape, want a hexadecimal digit`, ErrSyntax, false},
		{`"\ud800"`, `t.json:1:2: unpaired UTF-16 surrogate in a \u escape`, ErrSyntax, true},
		{`"\udc00\ud800"`, `t.json:1:2: unpaired UTF-16 surrogate in a \u escape`, ErrSyntax, true},
		{"\"\xff\"", `t.json:1:2: invalid UTF-8 in a string`, ErrSyntax, true},
		{"[\"é\", \xc3\xa9]", `t.json:1:7: [1]: unexpected character 'é', want a value`, ErrSyntax, false},
		{"{\n \"a\": 1,\n \"a\": 2}", `t.json:3:2: a: duplicate key "a" (first at line 2, column 2)`, ErrDuplicateKey, false},
		{`[{"x":{"y":[0,{"z":1,"z":2}]}}]`, `t.json:1:22: [0].x.y[1].z: duplicate key "z" (first at line 1, column 16)`, ErrDuplicateKey, false},
	} {
		_, err := ParseJSON("t.json", []byte(tc.in), Limits{})
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.class) {
			t.Errorf("ParseJSON(%q):\n got %v\nwant %s (%v)", tc.in, err, tc.want, tc.class)
		}
		if _, decodeErr := json.Marshal(json.RawMessage(tc.in)); decodeErr == nil && tc.class == ErrSyntax && !tc.stricter {
			t.Errorf("encoding/json accepts %q, which the test says is a syntax error", tc.in)
		}
	}
}

// A duplicate in a wide object is found through the index, and Get uses it.
func TestParseJSONWideObject(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("{")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `":` + "1")
	}
	b.WriteString("}")
	n := mustJSON(t, b.String())
	if n.coll.index == nil {
		t.Fatal("a wide object has no index")
	}
	if v := n.Get("k" + strings.Repeat("x", 77)); v == nil || v.Text() != "1" {
		t.Errorf("Get through the index: %v", v)
	}
	if n.Get("nope") != nil {
		t.Error("Get found an absent name")
	}
	dup := strings.TrimSuffix(b.String(), "}") + `,"kxx":2}`
	_, err := ParseJSON("t.json", []byte(dup), Limits{})
	if !errors.Is(err, ErrDuplicateKey) || !strings.Contains(err.Error(), `duplicate key "kxx" (first at line 1, column 15)`) {
		t.Errorf("duplicate in a wide object: %v", err)
	}
}

func TestReadAll(t *testing.T) {
	data, err := ReadAll("f", strings.NewReader("12345"), Limits{MaxBytes: 5})
	if err != nil || string(data) != "12345" {
		t.Errorf("ReadAll at the limit: %q, %v", data, err)
	}
	_, err = ReadAll("f", strings.NewReader("123456"), Limits{MaxBytes: 5})
	if !errors.Is(err, ErrLimit) || err.Error() != "f: the document has more than 5 bytes (Limits.MaxBytes is 5)" {
		t.Errorf("ReadAll over the limit: %v", err)
	}
}
