package doc

import (
	"bytes"
	"errors"
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/gowebpki/jcs"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b": 1, "a": [true, null, "x"], "c": {}}`, `{"a":[true,null,"x"],"b":1,"c":{}}`},
		{`[1.0, 1e2, -0, 0.5e-6, 1E21]`, `[1,100,0,5e-7,1e+21]`},
		{`"\u0000\u001f\u007f\"\\\/\b\f\n\r\t\u00e9\u2028"`, "\"\\u0000\\u001f\u007f\\\"\\\\/\\b\\f\\n\\r\\t\u00e9\u2028\""},
		// The sorting example of RFC 8785 §3.2.3.
		{`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
		  "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"\u00f6\":\"Latin Small Letter O With Diaeresis\"," +
				"\"\u20ac\":\"Euro Sign\",\"\U0001F600\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
	} {
		n := mustJSON(t, tc.in)
		got, err := Canonical(n)
		if err != nil || string(got) != tc.want {
			t.Errorf("Canonical(%s):\n got %s %v\nwant %s", tc.in, got, err, tc.want)
		}
		checkJCSFixedPoint(t, got)
	}
}

func TestCanonicalRefusesInexactNumbers(t *testing.T) {
	n := mustJSON(t, `{"ok": 1, "id": 12345678901234567891}`)
	_, err := Canonical(n)
	if !errors.Is(err, ErrType) || err.Error() != "t.json:1:17: id: number 12345678901234567891 has no exact IEEE double form, so RFC 8785 cannot write it without changing its value" {
		t.Errorf("Canonical: %v", err)
	}
	if out, err := AppendCanonical([]byte("keep"), n); err == nil || string(out) != "keep" {
		t.Errorf("AppendCanonical after an error: %q, %v", out, err)
	}
}

func TestCanonicalYAML(t *testing.T) {
	n := mustYAML(t, "b: 0x10\na: [yes, .5, ~]\n")
	got, err := Canonical(n)
	if err != nil || string(got) != `{"a":["yes",0.5,null],"b":16}` {
		t.Errorf("Canonical: %s %v", got, err)
	}
}

// checkJCSFixedPoint checks that an independent implementation of RFC 8785 leaves b as it is.
func checkJCSFixedPoint(t testing.TB, b []byte) {
	t.Helper()
	again, err := jcs.Transform(b)
	if err != nil {
		t.Errorf("jcs.Transform(%s): %v", b, err)
		return
	}
	if !bytes.Equal(again, b) {
		t.Errorf("not a fixed point of jcs.Transform:\n ours %s\n jcs  %s", b, again)
	}
}

func TestCompareKeys(t *testing.T) {
	keys := []string{"", "a", "ab", "b", "\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001F600", "\ufb33", "\uffff",
		"\U00010000", "\U0010FFFF", "\ue000", "a\U0001F600", "a\ue000", "é", "e\u0301"}
	for _, a := range keys {
		for _, b := range keys {
			want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
			if got := CompareKeys(a, b); got != want {
				t.Errorf("CompareKeys(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"":                     `""`,
		"plain é ☃ \U0001F600": "\"plain é ☃ \U0001F600\"",
		"\x00\x07\x1f":         `"\u0000\u0007\u001f"`,
		"<>&'\u2028\u007f":     "\"<>&'\u2028\u007f\"",
		"\"\\/":                `"\"\\/"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}
