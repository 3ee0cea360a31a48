package recorder

import (
	"bytes"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/oasis-replay/oasis-replay/store"
)

// marshalWhole is the exchange blob as it is written with both bodies in memory: a body is
// text when valid UTF-8, base64 otherwise, and left out when empty.
func marshalWhole(t *testing.T, doc exchangeDoc, req, resp []byte) []byte {
	t.Helper()
	set := func(m *exchangeMessage, b []byte) {
		switch {
		case len(b) == 0:
		case utf8.Valid(b):
			m.Body = string(b)
		default:
			m.BodyBase64 = base64.StdEncoding.EncodeToString(b)
		}
	}
	set(&doc.Request, req)
	if doc.Response != nil {
		r := *doc.Response
		set(&r, resp)
		doc.Response = &r
	}
	b, err := store.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExchangeReaderMatchesMarshal: the streamed exchange blob is byte for byte the canonical
// JSON of the exchange with its bodies in memory, whatever the bodies hold and however their
// reads are cut (one byte at a time: multi-byte characters and escapes split everywhere).
func TestExchangeReaderMatchesMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randomBytes := func(n int, alphabet string) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	bodies := map[string][]byte{
		"empty":           nil,
		"json":            []byte(`{"status":"ready","environment_id":"env-1"}`),
		"escapes":         []byte("quote \" backslash \\ tab \t nl \n nul \x00 del \x7f bell \x07"),
		"multi-byte":      []byte(strings.Repeat("héllo wörld ✓ 𝄞 ", 500)),
		"invalid utf-8":   []byte("ok then \xff\xfe broken"),
		"cut rune at end": []byte("ends in the middle of é"[:len("ends in the middle of é")-1]),
		"large text":      randomBytes(200<<10, "abc\"\\\n\x01é"),
		"large binary":    randomBytes(150<<10, "\x00\x80\xffabc"),
		"placeholder":     []byte(bodyPlaceholders[0] + bodyPlaceholders[1]),
	}
	for reqName, req := range bodies {
		for respName, resp := range bodies {
			doc := exchangeDoc{Side: sideProvider, Request: exchangeMessage{Method: "POST", Target: "/v1/observe?x=\"1\"", Headers: [][2]string{{"Content-Type", "application/json"}}},
				Response: &exchangeMessage{Status: 200, Headers: [][2]string{}, Truncated: respName == "large binary"}}
			want := marshalWhole(t, doc, req, resp)
			open := func(b []byte) func() io.Reader {
				return func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }
			}
			rd, err := exchangeReader(&doc, []streamedBody{{msg: &doc.Request, size: int64(len(req)), inspect: open(req), open: open(req)},
				{msg: doc.Response, size: int64(len(resp)), inspect: open(resp), open: open(resp)}})
			if err != nil {
				t.Fatalf("%s/%s: %v", reqName, respName, err)
			}
			got, err := io.ReadAll(rd)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("request %s, response %s: streamed blob differs from the canonical JSON\ngot  %.300q\nwant %.300q", reqName, respName, got, want)
			}
		}
	}
}

// TestExchangeReaderHookRemovesBody: a body the hooks reduce to nothing is left out, as an
// empty body is.
func TestExchangeReaderHookRemovesBody(t *testing.T) {
	doc := exchangeDoc{Side: sideAgent, Request: exchangeMessage{Method: "GET", Target: "/", Headers: [][2]string{}}, Error: "timeout"}
	empty := func() io.Reader { return strings.NewReader("") }
	rd, err := exchangeReader(&doc, []streamedBody{{msg: &doc.Request, size: 10, inspect: empty, open: empty}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rd)
	if want := marshalWhole(t, doc, nil, nil); !bytes.Equal(got, want) {
		t.Errorf("got %s, want %s", got, want)
	}
}
