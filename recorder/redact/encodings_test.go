package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// Secrets of the encodings corpus. The first has a space, '&', '/', '+', '=' and '?', which
// JSON, URL and form encoders all treat differently; the second is chosen so that its base64
// holds '+' and '/' at every alignment, which JSON and URL encoders escape; the third is not
// ASCII.
const (
	corpusSecret  = "Tr0ub4dor &3/x+y=z?"
	corpusBase64  = "k>>?ey~~~-token-value?>"
	corpusUnicode = "pässwörd-ключ-🔑"
)

// encodingCase is one way a secret is written in a recording.
type encodingCase struct {
	name   string
	secret string
	doc    string // the recorded text holding the secret
	leak   string // the encoded secret as it appears in doc: it must not survive
	enc    string // the encoding the redactor must report
	json   bool   // doc is a JSON document and must stay one
}

// encodingCorpus lists the encodings of a secret met in recordings: every one must be
// replaced by the secret's marker.
func encodingCorpus(t testing.TB) []encodingCase {
	s, b := corpusSecret, corpusBase64
	std, url64 := base64.StdEncoding, base64.URLEncoding
	rawStd, rawURL := base64.RawStdEncoding, base64.RawURLEncoding
	var cases []encodingCase
	add := func(name, secret, enc, leak, doc string, isJSON bool) {
		if !strings.Contains(doc, leak) {
			t.Fatalf("%s: the document does not hold the encoded secret", name)
		}
		cases = append(cases, encodingCase{name: name, secret: secret, doc: doc, leak: leak, enc: enc, json: isJSON})
	}
	inJSON := func(name, secret, enc, leak string) {
		add(name, secret, enc, leak, `{"kind":"Secret","data":{"v":"`+leak+`"},"n":1}`, true)
	}

	add("plain", s, "plain", s, "password="+s+"\n", false)
	inJSON("json minimal escaping", s, "plain", jsonEscape(s, false, false))
	inJSON("json as encoding/json writes it (\\u0026)", s, "plain+json", goJSON(t, s))
	inJSON("json with \\/ (PHP)", s, "plain+json", strings.ReplaceAll(s, "/", `\/`))
	inJSON("json every char \\u, lower hex", s, "plain+json", escapeAll(s, `\u%04x`))
	inJSON("json every char \\u, upper hex", s, "plain+json", escapeAll(s, `\u%04X`))
	inJSON("json ensure_ascii (Python)", corpusUnicode, "plain+json", jsonEscape(corpusUnicode, false, true))
	add("unicode plain", corpusUnicode, "plain", corpusUnicode, "token: "+corpusUnicode+"\n", false)

	inJSON("base64 std padded", s, "base64", std.EncodeToString([]byte(s)))
	add("base64 std unpadded", s, "base64", rawStd.EncodeToString([]byte(s)), "x-secret: "+rawStd.EncodeToString([]byte(s))+"\n", false)
	add("base64url padded", b, "base64url", url64.EncodeToString([]byte(b)), "t="+url64.EncodeToString([]byte(b))+"&x=1", false)
	add("base64url unpadded", b, "base64url", rawURL.EncodeToString([]byte(b)), "t="+rawURL.EncodeToString([]byte(b))+"&x=1", false)
	for _, user := range []string{"alice", "eve", "mallory"} { // "user:" of 6, 4 and 8 bytes: the three alignments
		basic := std.EncodeToString([]byte(user + ":" + s))
		add("basic auth "+user, s, "base64", basic, "Authorization: Basic "+basic+"\r\n", false)
		escaped, enc := strings.ReplaceAll(std.EncodeToString([]byte(user+":"+b)), "/", `\/`), "base64"
		if strings.Contains(escaped, `\/`) {
			enc += "+json" // the value's part holds a '/', escaped as PHP writes it
		}
		inJSON("basic auth in a JSON header map "+user, b, enc, escaped)
		jwtLike := rawURL.EncodeToString([]byte(`{"sub":"` + user + `","pwd":"` + b + `"}`))
		add("base64url inside a token "+user, b, "base64url", jwtLike, "Bearer eyJhbGciOiJub25lIn0."+jwtLike+".sig", false)
	}
	inJSON("base64 of the secret alone, every char \\u", b, "base64+json", escapeAll(std.EncodeToString([]byte(b)), `\u%04x`))
	add("base64 percent-encoded in a query", b, "base64+percent", url.QueryEscape(std.EncodeToString([]byte(b))),
		"GET /cb?state="+url.QueryEscape(std.EncodeToString([]byte(b)))+"&x=1", false)

	add("hex lower", s, "hex", hex.EncodeToString([]byte(s)), "blob "+hex.EncodeToString([]byte(s))+" end", false)
	add("hex upper", s, "hex", strings.ToUpper(hex.EncodeToString([]byte(s))), "blob "+strings.ToUpper(hex.EncodeToString([]byte(s)))+" end", false)
	inJSON("hex in JSON", corpusUnicode, "hex", hex.EncodeToString([]byte(corpusUnicode)))

	add("percent every byte, upper hex", s, "plain+percent", escapeBytes(s, "%%%02X"), "p="+escapeBytes(s, "%%%02X"), false)
	add("percent every byte, lower hex", s, "plain+percent", escapeBytes(s, "%%%02x"), "p="+escapeBytes(s, "%%%02x"), false)
	add("percent partial (path escaping)", s, "plain+percent", url.PathEscape(s), "/login/"+url.PathEscape(s)+"/x", false)
	add("percent partial (query escaping, space as +)", s, "form+percent", url.QueryEscape(s), "user=a&password="+url.QueryEscape(s)+"&next=%2F", false)
	add("percent UTF-8", corpusUnicode, "plain+percent", url.QueryEscape(corpusUnicode), "q="+url.QueryEscape(corpusUnicode), false)
	inJSON("percent-encoded inside JSON with \\u0026", s, "plain+json+percent",
		strings.ReplaceAll(url.PathEscape(s), "&", `\u0026`))
	return cases
}

// goJSON is s inside a JSON string as encoding/json writes it (<, > and & escaped).
func goJSON(t testing.TB, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}

// escapeAll writes every rune of s in JSON's \u form, surrogate pairs beyond the BMP.
func escapeAll(s, format string) string {
	var b strings.Builder
	for _, c := range s {
		if c > 0xffff {
			c -= 0x10000
			fmt.Fprintf(&b, format+format, 0xd800+(c>>10), 0xdc00+(c&0x3ff))
			continue
		}
		fmt.Fprintf(&b, format, c)
	}
	return b.String()
}

// escapeBytes writes every byte of s with format (percent-encoding).
func escapeBytes(s, format string) string {
	var b strings.Builder
	for i := range len(s) {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// TestEncodingCorpus: every encoding of the corpus is replaced by the secret's marker, the
// secret does not survive in any form, a JSON document stays valid JSON, the streaming reader
// gives the same bytes whatever its read sizes, and the tally names the encoding.
func TestEncodingCorpus(t *testing.T) {
	for _, tc := range encodingCorpus(t) {
		t.Run(tc.name, func(t *testing.T) {
			r := mustNew(t, testKey, tc.secret)
			var tally Tally
			out := string(r.WithTally(&tally).Bytes([]byte(tc.doc)))
			if strings.Contains(out, tc.leak) || strings.Contains(out, tc.secret) {
				t.Errorf("the secret survived:\n in  %s\n out %s", tc.doc, out)
			}
			if !strings.Contains(out, r.Marker(tc.secret)) {
				t.Errorf("no marker in %s", out)
			}
			if tc.json && !json.Valid([]byte(out)) {
				t.Errorf("not JSON any more: %s", out)
			}
			if got := tally.Hits(); len(got) != 1 || got[0].Encoding != tc.enc || got[0].Marker != r.Marker(tc.secret) || got[0].Count != 1 {
				t.Errorf("tally %+v, want one %s occurrence", got, tc.enc)
			}
			for name, wrap := range map[string]func(io.Reader) io.Reader{
				"one byte": iotest.OneByteReader,
				"chunky":   func(src io.Reader) io.Reader { return &chunky{src: src, rng: rand.New(rand.NewPCG(5, 6))} },
			} {
				got, err := io.ReadAll(r.Reader(wrap(strings.NewReader(tc.doc))))
				if err != nil || string(got) != out {
					t.Errorf("%s reader: %q, %v; want %q", name, got, err, out)
				}
			}
		})
	}
}

// TestEncodingCorpusTogether redacts every case of the corpus in one stream of a few MiB,
// split at random points, with unrelated text between them: the stream gives what Bytes
// gives, no encoded secret survives, and the tally counts each case.
func TestEncodingCorpusTogether(t *testing.T) {
	cases := encodingCorpus(t)
	r := mustNew(t, testKey, corpusSecret, corpusBase64, corpusUnicode)
	rng := rand.New(rand.NewPCG(7, 8))
	var in bytes.Buffer
	want := map[Hit]int64{}
	for in.Len() < 4<<20 {
		tc := cases[rng.IntN(len(cases))]
		in.WriteString(tc.doc)
		want[Hit{Marker: r.Marker(tc.secret), Encoding: tc.enc}]++
		for range rng.IntN(4096) {
			in.WriteByte(" abcdefghijklmnopqrstuvwxyz0123456789\n{}\":,\\%+/="[rng.IntN(47)])
		}
		in.WriteByte('\n')
	}
	var tally Tally
	whole := r.WithTally(&tally).Bytes(in.Bytes())
	streamed, err := io.ReadAll(r.Reader(&chunky{src: bytes.NewReader(in.Bytes()), rng: rng}))
	if err != nil || !bytes.Equal(streamed, whole) {
		t.Fatalf("streamed output differs from Bytes (%v)", err)
	}
	for _, tc := range cases {
		if bytes.Contains(whole, []byte(tc.leak)) {
			t.Errorf("%s: survived", tc.name)
		}
	}
	for _, h := range tally.Hits() {
		k := Hit{Marker: h.Marker, Encoding: h.Encoding}
		if want[k] != h.Count {
			t.Errorf("%s %s: %d occurrences, want %d", h.Marker, h.Encoding, h.Count, want[k])
		}
		delete(want, k)
	}
	for k, n := range want {
		t.Errorf("%s %s: %d occurrences not counted", k.Marker, k.Encoding, n)
	}
}
