package redact

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// FuzzRedact checks, for any input and values: no panic; the streaming reader, whatever its
// read sizes, gives exactly what Bytes gives; and when neither the input nor the values can
// form a marker's brackets, no value survives outside the markers.
func FuzzRedact(f *testing.F) {
	f.Add([]byte(`{"password":"super-secret-password"}`), "super-secret-password", "other", uint64(1))
	f.Add([]byte("xabcdefghijkly abcdefabcdef"), "abcdef", "defghijkl", uint64(2))
	f.Add([]byte(`{"v":"c3VwZXItc2VjcmV0LXBhc3N3b3Jk"}`), "super-secret-password", "", uint64(3))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "aaaa", "aaaaa", uint64(4))
	f.Add([]byte(`{"a":"\u0073uper%2dsecret\/x","b":"YWRtaW46c3VwZXItc2VjcmV0"}`), "super-secret/x", "super-secret", uint64(5))
	f.Add([]byte(`p=%25%5C%5Cu0041\\\\u0041`), `%\\u0041`, `\u0041\u`, uint64(6))
	f.Add([]byte(`7375706572 c3VwZXI= \ud83d\udd11 %F0%9F%94%91`), "super", "🔑-key", uint64(7))
	f.Fuzz(func(t *testing.T, in []byte, v1, v2 string, seed uint64) {
		var values []string
		for _, v := range []string{v1, v2} {
			if len(v) >= MinValueLength {
				values = append(values, v)
			}
		}
		r, err := New(testKey, values)
		if err != nil {
			t.Fatal(err)
		}
		want := r.Bytes(in)
		got, err := io.ReadAll(r.Reader(&chunky{src: bytes.NewReader(in), rng: rand.New(rand.NewPCG(seed, seed))}))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("streamed %q, whole %q", got, want)
		}
		if bytes.ContainsAny(in, "[]") {
			return
		}
		stripped := want
		for _, v := range values {
			if bytes.ContainsAny([]byte(v), "[]") {
				return
			}
			stripped = bytes.ReplaceAll(stripped, []byte(r.Marker(v)), []byte("[]"))
		}
		for _, v := range values {
			if bytes.Contains(stripped, []byte(v)) {
				t.Errorf("value %q survived in %q", v, want)
			}
		}
	})
}
