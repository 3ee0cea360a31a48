package auditlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzScan feeds arbitrary bytes to the reader under each media type. It must never panic,
// every error must be located inside the input, and whatever it accepts must be valid JSON by
// encoding/json's judgement: the hand-written lexer may not be laxer than the standard one.
// The committed seeds are in testdata/fuzz/FuzzScan.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"kind":"Event","auditID":"a","stage":"ResponseComplete","verb":"delete","user":{"username":"u","groups":["g"]},"objectRef":{"resource":"pods","namespace":"payments","name":"p"},"responseStatus":{"code":403},"requestObject":{"kind":"DeleteOptions"}}`), uint8(0))
	f.Add([]byte(`{"kind":"EventList","items":[{"verb":"get","objectRef":{"resource":"pods","apiGroup":"core"}}]}`), uint8(1))
	f.Add([]byte(`{"agent_principal":"sa","entries":[{"verb":"patch","request_body":"{\"spec\":{\"replicas\":0}}","response_code":200,"raw":{"objectRef":{"resource":"deployments"}}}],"window":{"from":"a","to":"b"}}`), uint8(2))
	mediaTypes := []string{jsonl, eventList, auditLog}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		mediaType := mediaTypes[int(kind)%len(mediaTypes)]
		var last Location
		n := 0
		for _, scoped := range []bool{false, true} {
			n, last = 0, Location{}
			_, err := ScanWith(bytes.NewReader(data), mediaType, Options{MaxEntryBytes: 1 << 16, Scoped: scoped}, func(e *Entry) error {
				n++
				if e.Line < 1 || e.Offset < 0 || e.Offset >= int64(len(data)) || e.Seq <= last.Seq ||
					e.Offset <= last.Offset && n > 1 || e.Line < last.Line {
					t.Fatalf("entry %d at %+v after %+v", n, e.Location, last)
				}
				last = e.Location
				return nil
			})
			var se *SyntaxError
			switch {
			case errors.As(err, &se):
				if se.Line < 1 || se.Offset < 0 || se.Offset > int64(len(data)) {
					t.Fatalf("error outside the input: %v", err)
				}
			case err == nil:
				checkValidJSON(t, mediaType, data)
			case !errors.Is(err, ErrPrincipalLate) && !errors.Is(err, ErrPrincipalMismatch):
				t.Fatalf("unexpected error: %v", err)
			}
		}
	})
}

// checkValidJSON asserts that input the reader accepted is valid JSON.
func checkValidJSON(t *testing.T, mediaType string, data []byte) {
	t.Helper()
	data = bytes.TrimPrefix(data, utf8BOM)
	if mediaType != jsonl {
		if !json.Valid(data) {
			t.Fatalf("accepted a document encoding/json rejects: %q", data)
		}
		return
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			t.Fatalf("accepted a line encoding/json rejects: %q", line)
		}
	}
}

// FuzzDecode holds the string decoder to encoding/json's reading of the same token: escapes,
// surrogate pairs, unpaired surrogates and invalid UTF-8 all decode identically. The committed
// seeds are in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`plain`, `a\u0026b`, `\ud83d\ude00`, `\ud83d`, `\ude00x`, `\ud83d\u0041`,
		"\xff\xfe", `\"\\\/\b\f\n\r\t`, "é\u2028", `\u00e9`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		token := append(append([]byte{'"'}, content...), '"')
		lx := lexer{data: token}
		raw, esc, err := lx.rawString()
		if err != nil || lx.pos != len(token) {
			return // not one valid string token
		}
		var want string
		if err := json.Unmarshal(token, &want); err != nil {
			t.Fatalf("the lexer accepts %q, encoding/json does not: %v", token, err)
		}
		if got := decode(raw, esc); got != want {
			t.Fatalf("decode(%q) = %q, encoding/json reads %q", token, got, want)
		}
	})
}
