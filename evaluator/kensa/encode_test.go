package kensa

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// checkEncodeIsMarshal requires Encode's bytes, or its error, to be store.Marshal's.
func checkEncodeIsMarshal(t *testing.T, v *Verdict) {
	t.Helper()
	want, wantErr := store.Marshal(v)
	got, ok := encodeVerdict(v)
	switch {
	case !ok && wantErr == nil:
		// Left to store.Marshal: a verdict beyond the direct encoder's bounds that Marshal
		// accepts (a large one); Encode then gives Marshal's bytes.
	case !ok:
	case wantErr != nil:
		t.Fatalf("store.Marshal fails (%v); the direct encoder wrote %s", wantErr, got)
	case !bytes.Equal(got, want):
		t.Fatalf("direct encoding differs from store.Marshal:\n got %s\nwant %s", got, want)
	}
}

// filled sets every field of the struct v points at, recursively, to a value that is not its
// zero: strings, numbers, booleans, pointers, slices and maps of one element, interfaces a
// nested map. A field added to Verdict is then written by TestEncodeVerdictIsMarshal.
func filled(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s\u00e9\x01\"")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Array: // a digest
		for i := range v.Len() {
			v.Index(i).Set(reflect.ValueOf(byte(i + 1)))
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(v.Elem(), depth)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		filled(v.Index(0), depth)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		elem := reflect.New(v.Type().Elem()).Elem()
		filled(elem, depth)
		v.SetMapIndex(reflect.ValueOf("k"), elem)
	case reflect.Interface:
		if depth < 3 {
			v.Set(reflect.ValueOf(map[string]any{"b": []any{int64(1), "x", nil, true}, "a": map[string]any{}}))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			filled(v.Field(i), depth+1)
		}
	}
}

// The direct encoding of a verdict is store.Marshal's, byte for byte: for a verdict with every
// field set, every optional field left out, and values at the edges of the canonical form.
func TestEncodeVerdictIsMarshal(t *testing.T) {
	var full Verdict
	filled(reflect.ValueOf(&full).Elem(), 0)
	no := false
	deep := any("bottom")
	for range 70 {
		deep = []any{deep}
	}
	nested := any(int64(1))
	for range 62 {
		nested = map[string]any{"n": nested}
	}
	cases := map[string]*Verdict{
		"every field": &full,
		"empty":       {},
		"no optional fields": {Header: store.Header{Kind: store.KindVerdict, SchemaVersion: 1}, Checks: []VerdictCheck{{Scores: map[string]string{}}},
			Judge: &VerdictJudge{Evidence: []string{}, PromptReproduced: &no}, Trace: &VerdictTrace{}, Metrics: map[string]string{}},
		"UTF-16 key order": {Input: map[string]any{"ｱ": int64(1), "😀": int64(2), "a": int64(3), "é": int64(4), "": int64(5), "Z": int64(6)}},
		"strings": {Scenario: "tab\t nl\n cr\r bs\b ff\f nul\x00 del\x7f quote\" backslash\\ slash/ <>& \u2028\u2029 é 😀",
			Status: "bad \xff\xfe UTF-8 \xed\xa0\x80 surrogate \xc3\x28 and a real \ufffd", Checks: []VerdictCheck{{Detail: "\xe2\x82"}}},
		"integers in range":              {Case: maxSafeInteger, Input: []any{int64(-maxSafeInteger), int64(0)}, Trace: &VerdictTrace{TotalTokens: maxSafeInteger}},
		"integer out of range":           {Trace: &VerdictTrace{TotalTokens: maxSafeInteger + 1}},
		"negative out of range":          {Input: int64(-maxSafeInteger - 1)},
		"too deep":                       {Input: deep},
		"deep within the limit":          {Input: nested},
		"too deep in a check":            {Checks: []VerdictCheck{{Diagnostics: nested}}},
		"a key not UTF-8":                {Metrics: map[string]string{"a\xff": "1", "a\xfe": "2"}},
		"a type Canonical does not make": {Input: 1.5},
		"large":                          {Error: func() *string { s := strings.Repeat("x", directBytes); return &s }()},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) { checkEncodeIsMarshal(t, v) })
	}
}
