package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// testKey is a fixed key; the expected markers below were computed independently with
// `printf VALUE | openssl dgst -sha256 -hmac KEY`.
var testKey = []byte("0123456789abcdef-test-key")

const (
	password       = "super-secret-password"
	passwordMarker = "[REDACTED:hmac-sha256:f449da31d8a7597b]"
	testKeyID      = "c0af9f55b06ddf83"
)

func mustNew(t testing.TB, key []byte, values ...string) *Redactor {
	t.Helper()
	r, err := New(key, values)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMarkerStable(t *testing.T) {
	r := mustNew(t, testKey, password)
	if got := r.Marker(password); got != passwordMarker {
		t.Errorf("marker %s, want %s", got, passwordMarker)
	}
	if got := r.KeyID(); got != testKeyID {
		t.Errorf("key id %s, want %s", got, testKeyID)
	}
	again := mustNew(t, testKey, "other-value", password)
	if again.Marker(password) != passwordMarker {
		t.Error("the marker depends on the other values")
	}
	other := mustNew(t, []byte("another-key-of-enough-length"), password)
	if other.Marker(password) == passwordMarker {
		t.Error("two keys give the same marker")
	}
	if m := mustNew(t, nil, password).Marker(password); m != UnkeyedMarker {
		t.Errorf("unkeyed marker %s", m)
	}
	if strings.ContainsAny(passwordMarker, `"\`) {
		t.Error("a marker holds a quote or a backslash")
	}
}

func TestBytes(t *testing.T) {
	other := "hunter2-token"
	r := mustNew(t, testKey, password, other, "abcdef", "defghijkl")
	m := r.Marker
	for _, tc := range []struct {
		name, in, want string
	}{
		{"none", "nothing to see", "nothing to see"},
		{"whole", password, m(password)},
		{"twice", "a " + password + " b " + password, "a " + m(password) + " b " + m(password)},
		{"base64 form", `{"DB_PASSWORD":"c3VwZXItc2VjcmV0LXBhc3N3b3Jk"}`, `{"DB_PASSWORD":"` + m(password) + `"}`},
		{"adjacent", password + other, m(password) + m(other)},
		{"overlap", "xabcdefghijkly", "x" + m("abcdef") + m("defghijkl") + "y"},
		{"same value overlapping itself", "abcdefabcdef", m("abcdef") + m("abcdef")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(r.Bytes([]byte(tc.in))); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if got := r.String(tc.in); got != tc.want {
				t.Errorf("String: got %q", got)
			}
		})
	}
}

func TestJSONForms(t *testing.T) {
	secret := `p"ss\wörd<&>` + "\n"
	r := mustNew(t, testKey, secret)
	docs := map[string]any{"v": "before " + secret + " after", "nested": []any{map[string]any{"k": secret}}}
	var encodings [][]byte
	plain, _ := json.Marshal(docs) // escapes <, > and &
	encodings = append(encodings, plain)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(docs); err != nil {
		t.Fatal(err)
	}
	encodings = append(encodings, buf.Bytes())
	encodings = append(encodings, []byte(`{"v":"`+jsonEscape(secret, false, true)+`"}`)) // Python's ensure_ascii
	for i, doc := range encodings {
		out := r.Bytes(doc)
		if !json.Valid(out) {
			t.Errorf("encoding %d: redacted document is not valid JSON: %s", i, out)
		}
		var back any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(back)
		if strings.Contains(string(text), "ss\\\\w") || strings.Contains(string(out), "wörd") || bytes.Contains(out, []byte(`\u00f6rd`)) {
			t.Errorf("encoding %d: part of the secret survived: %s", i, out)
		}
		if !bytes.Contains(out, []byte(r.Marker(secret))) {
			t.Errorf("encoding %d: no marker in %s", i, out)
		}
	}
}

// TestReaderChunkBoundaries checks that the streaming reader gives exactly what Bytes gives,
// whatever the read sizes, with values split across every possible boundary.
func TestReaderChunkBoundaries(t *testing.T) {
	values := []string{password, "abcdef", "defghijkl", "token-0123456789"}
	r := mustNew(t, testKey, values...)
	rng := rand.New(rand.NewPCG(1, 2))
	var in bytes.Buffer
	for in.Len() < 3<<20 {
		switch rng.IntN(5) {
		case 0:
			in.WriteString(values[rng.IntN(len(values))])
		case 1:
			in.WriteString("xabcdefghijkl")
		default:
			for range rng.IntN(64) {
				in.WriteByte(byte('a' + rng.IntN(26)))
			}
		}
	}
	want := r.Bytes(in.Bytes())
	readers := map[string]func(io.Reader) io.Reader{
		"one byte":   iotest.OneByteReader,
		"half":       iotest.HalfReader,
		"data err":   iotest.DataErrReader,
		"odd chunks": func(src io.Reader) io.Reader { return &chunky{src: src, rng: rand.New(rand.NewPCG(3, 4))} },
	}
	for name, wrap := range readers {
		t.Run(name, func(t *testing.T) {
			src := in.Bytes()
			if name == "one byte" {
				src = src[:64<<10] // one byte at a time is slow; a shorter stream has the same boundaries
			}
			got, err := io.ReadAll(r.Reader(wrap(bytes.NewReader(src))))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, r.Bytes(src)) {
				t.Fatalf("streamed output differs from Bytes (%d vs %d bytes)", len(got), len(want))
			}
			for _, v := range values {
				if bytes.Contains(got, []byte(v)) {
					t.Errorf("value %q survived", v)
				}
			}
		})
	}
}

// chunky reads random amounts, from 1 byte to 300 KiB.
type chunky struct {
	src io.Reader
	rng *rand.Rand
}

func (c *chunky) Read(p []byte) (int, error) {
	n := 1 + c.rng.IntN(300<<10)
	if c.rng.IntN(4) == 0 {
		n = 1 + c.rng.IntN(8)
	}
	return c.src.Read(p[:min(n, len(p))])
}

func TestReaderReadError(t *testing.T) {
	r := mustNew(t, testKey, password)
	boom := errors.New("disk gone")
	src := io.MultiReader(strings.NewReader("abc "+password[:5]), iotest.ErrReader(boom))
	got, err := io.ReadAll(r.Reader(src))
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if string(got) != "abc "+password[:5] {
		t.Errorf("got %q", got)
	}
}

func TestReaderLongOverlapChain(t *testing.T) {
	r := mustNew(t, testKey, "aaaa")
	in := bytes.Repeat([]byte("a"), maxPending+readSize*3)
	got, err := io.ReadAll(r.Reader(bytes.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("aaaa")) {
		t.Error("a run of the value survived")
	}
}

func TestNoValuesIsIdentity(t *testing.T) {
	r := mustNew(t, testKey)
	src := strings.NewReader("x")
	if r.Reader(src) != io.Reader(src) {
		t.Error("a redactor without values wraps its source")
	}
	if r.String(password) != password {
		t.Error("a redactor without values changed a string")
	}
}

func TestConceals(t *testing.T) {
	r := mustNew(t, testKey, password)
	for _, tc := range []struct {
		literal string
		want    bool
	}{
		{password, true},
		{"the " + password + " inside", true},
		{"secret", true}, // redacting the password hides this part of it
		{"c3VwZXItc2VjcmV0LXBhc3N3b3Jk", false},
		{"", false},
	} {
		marker, got := r.Conceals(tc.literal)
		if got != tc.want || (got && marker != passwordMarker) {
			t.Errorf("Conceals(%q) = %q, %v; want %v", tc.literal, marker, got, tc.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		call func() error
	}{
		{"short key", ErrKey, func() error { _, err := New([]byte("short"), nil); return err }},
		{"short value", ErrValue, func() error { _, err := New(testKey, []string{"abc"}); return err }},
		{"short key text", ErrKey, func() error { _, err := ParseKey([]byte("0123456789abcde\n")); return err }},
		{"short value line", ErrValue, func() error {
			_, err := ReadValues(strings.NewReader("good-value\n\nxy\n"), "values.txt")
			if err == nil || !strings.Contains(err.Error(), "values.txt line 3") {
				t.Errorf("error %v does not name the line", err)
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
		})
	}
}

func TestReadValues(t *testing.T) {
	got, err := ReadValues(strings.NewReader("first-secret\r\n\n  spaced  \nlast-one"), "v")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"first-secret", "  spaced  ", "last-one"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
	key, err := ParseKey([]byte("0123456789abcdef-test-key\r\n"))
	if err != nil || !bytes.Equal(key, testKey) {
		t.Errorf("ParseKey: %q, %v", key, err)
	}
}

func BenchmarkReader(b *testing.B) {
	r := mustNew(b, testKey, password, "token-0123456789", "another-secret-value")
	in := bytes.Repeat([]byte(`{"kind":"Event","user":{"username":"system:serviceaccount:x"},"requestURI":"/api/v1/pods"}`+"\n"), 1<<14)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := io.Copy(io.Discard, r.Reader(bytes.NewReader(in))); err != nil {
			b.Fatal(err)
		}
	}
}
