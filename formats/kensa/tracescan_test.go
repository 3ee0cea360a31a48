package kensa

import (
	"reflect"
	"strings"
	"testing"
)

// traceLine is a span line as Kensa writes it; the variants below change it one way each.
const traceLine = `{"trace_id":"t","span_id":"s","parent_span_id":"p","name":"chat","kind":"llm","start_time":"2026-11-24T22:20:03.765181Z","end_time":"2026-11-24T22:20:04Z","status":"ok","model":"m","provider":null,"input":null,"output":{"value":"{\"choices\": [1]}"},"tokens":{"prompt":1,"completion":2,"total":3,"cache_read":0},"cost":{"prompt":0.0,"completion":1e-7,"total":0.0012},"tools":[{"name":"lookup","args":{"id":"A-1","n":[1,2.5,-0,true,false,null,{"x":{}}]},"result":{"ok":true}}],"metadata":{"k":"v"}}`

// checkScanAsDocument requires the fast path, when it reads data, to give the document model's
// spans, and says whether it read it.
func checkScanAsDocument(t *testing.T, data string) bool {
	t.Helper()
	spans, ok := scanTrace([]byte(data))
	if !ok {
		return false
	}
	want, err := readTrace("t.jsonl", []byte(data))
	if err != nil {
		t.Fatalf("the fast path read %q, which the document model refuses: %v", data, err)
	}
	if !reflect.DeepEqual(spans, want) {
		t.Fatalf("the fast path read %q as\n%+v\nthe document model as\n%+v", data, spans, want)
	}
	return true
}

// The fast path reads traces as Kensa writes them, and as any other writer might, exactly as
// the document model reads them; what it does not read, the document model does.
func TestScanTraceAsDocument(t *testing.T) {
	replace := func(old, new string) string { return strings.Replace(traceLine, old, new, 1) }
	read := map[string]string{
		"Kensa's form":             traceLine + "\n",
		"two lines, no final LF":   traceLine + "\n" + traceLine,
		"blank and CRLF lines":     "\n \t\r\n" + traceLine + "\r\n\n",
		"spaces between tokens":    strings.NewReplacer(`":`, `" : `, `,"`, ` , "`, "{", "{ ", "}", " }").Replace(traceLine),
		"members in another order": `{"kind":"tool","name":"lookup","end_time":"2026-11-24T22:20:04.5Z","start_time":"2026-11-24T22:20:04+00:00","span_id":"s","trace_id":"t"}`,
		"only required members":    `{"trace_id":"t","span_id":"s","name":"n","kind":"agent","start_time":"2026-11-24 22:20:03","end_time":"2026-11-24T22:20:03.1-02:00"}`,
		"escapes":                  replace(`"name":"chat"`, `"name":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\u0000"`),
		"non-ASCII":                replace(`"name":"chat"`, `"name":"Ünïcödé ✓ 😀 \ufffd"`),
		"tokens as floats":         replace(`"prompt":1,`, `"prompt":1.0,"extra":[1],`),
		"cost as integers":         replace(`"total":0.0012`, `"total":3`),
		"null members":             `{"trace_id":"t","span_id":"s","parent_span_id":null,"name":"n","kind":"tool","start_time":"2026-11-24T22:20:03Z","end_time":"2026-11-24T22:20:03Z","status":null,"model":null,"provider":null,"input":null,"output":null,"tokens":null,"cost":null,"tools":null,"metadata":null}`,
		"empty tools":              replace(`"tools":[{"name":"lookup","args":{"id":"A-1","n":[1,2.5,-0,true,false,null,{"x":{}}]},"result":{"ok":true}}]`, `"tools":[]`),
		"a tool without args":      replace(`"args":{"id":"A-1","n":[1,2.5,-0,true,false,null,{"x":{}}]},"result":{"ok":true}`, `"args":null,"other":7`),
		"large numbers":            replace(`"n":[1,`, `"n":[9223372036854775807,-9223372036854775808,1e400,1E-400,`),
		"no spans":                 "",
	}
	for name, data := range read {
		if !checkScanAsDocument(t, data) {
			t.Errorf("%s: left to the document model", name)
		}
	}
	left := map[string]string{
		"a byte order mark":       "\ufeff" + traceLine,
		"a surrogate escape":      replace(`"name":"chat"`, `"name":"\ud83d\ude00"`),
		"an unknown member":       replace(`"name":"chat"`, `"name":"chat","extra":1`),
		"a member twice":          replace(`"name":"chat"`, `"name":"chat","name":"chat"`),
		"a key twice in a value":  replace(`{"k":"v"}`, `{"k":"v","k":"w"}`),
		"a missing member":        replace(`"name":"chat",`, ``),
		"an unknown kind":         replace(`"kind":"llm"`, `"kind":"robot"`),
		"a bad time":              replace(`2026-11-24T22:20:04Z`, `2026-02-30T22:20:04Z`),
		"an integer beyond int64": replace(`"n":[1,`, `"n":[9223372036854775808,`),
		"a fractional token":      replace(`"prompt":1,`, `"prompt":1.5,`),
		"a string token":          replace(`"prompt":1,`, `"prompt":"1",`),
		"a boolean cost":          replace(`"total":0.0012`, `"total":true`),
		"a leading zero":          replace(`"n":[1,`, `"n":[01,`),
		"a list as input":         replace(`"input":null`, `"input":[]`),
		"a tool without a name":   replace(`"name":"lookup",`, ``),
		"a truncated line":        traceLine[:len(traceLine)/2],
		"trailing data":           traceLine + " {}",
		"a control character":     replace(`"name":"chat"`, "\"name\":\"ch\tat\""),
		"invalid UTF-8":           replace(`"name":"chat"`, "\"name\":\"ch\xffat\""),
		"a long line":             replace(`"k":"v"`, `"k":"`+strings.Repeat("v", scanMaxLine)+`"`),
		"a wide object":           replace(`{"k":"v"}`, `{`+wide(scanMaxMembers+1)+`}`),
		"deep nesting":            replace(`{"k":"v"}`, `{"k":`+strings.Repeat("[", scanMaxDepth)+strings.Repeat("]", scanMaxDepth)+`}`),
	}
	for name, data := range left {
		if checkScanAsDocument(t, data) {
			t.Errorf("%s: read by the fast path", name)
		}
	}
}

// wide is the members of an object of n members.
func wide(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1`)
	}
	return b.String()
}

// ParseTime's fast path reads what time.Parse reads, to the same time.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2026-11-24T22:20:03.765181Z", "2026-11-24T22:20:03Z", "2024-02-29T23:59:59.1Z", "2023-02-29T00:00:00Z",
		"2026-11-24T24:00:00Z", "2026-11-24T22:20:03.7651811Z", "2026-11-24T22:20:03.Z", "0000-01-01T00:00:00.000000000Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		us, ok := parseZulu(s)
		if !ok {
			return
		}
		want, err := parseTimeLayouts(s)
		if err != nil || us != want {
			t.Fatalf("parseZulu(%q) = %d; time.Parse gives %d, %v", s, us, want, err)
		}
	})
}

// The fast path reads pydantic's form, and leaves every other form, and every time
// time.Parse refuses, to time.Parse.
func TestParseZulu(t *testing.T) {
	for s, fast := range map[string]bool{
		"2026-11-24T22:20:03.765181Z": true, "2026-11-24T22:20:03Z": true, "2024-02-29T23:59:59.1Z": true, "1969-12-31T23:59:59.999999Z": true,
		"2026-11-24T22:20:03.765181+00:00": false, "2026-11-24 22:20:03Z": false, "2023-02-29T00:00:00Z": false, "2026-11-24T24:00:00Z": false,
		"2026-11-24T22:20:03.7651811Z": false, "2026-11-24T22:20:03.Z": false, "2026-11-24T22:20:60Z": false, "2026-11-24t22:20:03z": false,
	} {
		us, ok := parseZulu(s)
		want, err := parseTimeLayouts(s)
		if ok != fast || ok && (err != nil || us != want) {
			t.Errorf("parseZulu(%q) = %d, %v; time.Parse gives %d, %v", s, us, ok, want, err)
		}
	}
}
