package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// The fuzz targets run their committed seeds (testdata/fuzz/Fuzz*) in every go test run;
// make fuzz explores further.

var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxNodes: 1 << 16, MaxDepth: 64}

// FuzzParseJSON: no panic, whatever the bytes; what is accepted is valid JSON (encoding/json
// agrees), Compact gives what encoding/json.Compact gives, and the tree reads back from its
// canonical form; what encoding/json accepts and this parser refuses is one of the documented
// strictnesses (duplicate keys, invalid UTF-8, unpaired surrogates, limits).
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\u00e9"],"b":{"c":null}}`, `[true,false,null]`, `"\ud83d\ude00"`,
		`{"a":1,"a":2}`, `-0.0E+00`, "\xef\xbb\xbf[]", `[[[[]]]]`, `{"\u0000":"\/"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseJSON("f.json", data, fuzzLimits)
		stdValid := json.Valid(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Err == nil {
				t.Fatalf("error %v is not a classified *Error", err)
			}
			if stdValid && errors.Is(err, ErrSyntax) && !bytes.Contains([]byte(e.Msg), []byte("UTF")) {
				t.Fatalf("refused what encoding/json accepts: %v", err)
			}
			return
		}
		if !stdValid {
			t.Fatalf("accepted what encoding/json refuses: %q", data)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))) == nil && !bytes.Equal(n.Compact(), compact.Bytes()) {
			t.Fatalf("Compact %s, encoding/json.Compact %s", n.Compact(), compact.Bytes())
		}
		checkCanonical(t, n)
	})
}

// FuzzCanonical: the canonical form is a fixed point of an independent RFC 8785
// implementation, is idempotent, and reads back as an Equal tree.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,1e21,0.000001,-0]}`, `{"\u20ac":1,"\ud83d\ude00":2,"\ufb33":3,"\u0080":4}`,
		`"\u0000\u001f\u007f"`, `[123456789012345678901, 5e-324, 1.7976931348623157e308]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, err := ParseJSON("f.json", data, fuzzLimits); err == nil {
			checkCanonical(t, n)
		}
	})
}

func checkCanonical(t *testing.T, n *Node) {
	t.Helper()
	c, err := Canonical(n)
	if err != nil {
		if !errors.Is(err, ErrType) {
			t.Fatalf("Canonical: %v", err)
		}
		return
	}
	checkJCSFixedPoint(t, c)
	back, err := ParseJSON("canonical.json", c, Limits{MaxNodes: 1 << 20})
	if err != nil || !Equal(back, n) {
		t.Fatalf("the canonical form %s does not read back as the same tree (%v)", c, err)
	}
	again, err := Canonical(back)
	if err != nil || !bytes.Equal(again, c) {
		t.Fatalf("Canonical is not idempotent: %s then %s", c, again)
	}
}

// FuzzParseYAML: no panic; the bound checked before parsing holds; an accepted stream reads
// back from its canonical form and decodes into a struct without panicking.
func FuzzParseYAML(f *testing.F) {
	for _, s := range append(yamlBoundSeeds, scenarioYAML, aliasBomb, "a: &a {b: 1}\nc:\n  <<: *a\n  d: 2\n",
		"- 0x1F\n- .5\n- 1_000\n- yes\n- 2024-01-01\n") {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkYAMLBound(t, data)
		docs, err := ParseYAMLStream("f.yaml", data, fuzzLimits)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Err == nil {
				t.Fatalf("error %v is not a classified *Error", err)
			}
			return
		}
		for _, n := range docs {
			checkCanonical(t, n)
			var s testScenario
			_ = Decode(n, &s)
		}
	})
}

// FuzzLines: no panic; every value read is a line's JSON; the reader always ends.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"{\"a\":1}\n[2]\n", "1\n\n2\r\n", "{\"a\":\n{}\n", "[1, 2", "\"x\"\n\xff\n3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := NewLines("f.jsonl", bytes.NewReader(data), Limits{MaxBytes: 64})
		for calls := 0; ; calls++ {
			if calls > len(data)+1 {
				t.Fatal("Next does not reach io.EOF")
			}
			n, err := l.Next()
			if err == io.EOF {
				return
			}
			if err == nil && !json.Valid(n.Compact()) {
				t.Fatalf("line %d: Compact %q is not JSON", l.Line(), n.Compact())
			}
		}
	})
}

// FuzzDiff: no panic; a document never differs from itself; Diff is empty exactly when Equal
// holds, and lists the same paths both ways with the sides swapped.
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2]}`), []byte(`{"b":[1.0],"a":"1"}`))
	f.Add([]byte(`[0,1,2,3,4,5,6,7,8,9,10]`), []byte(`[0,1,2,3,4,5,6,7,8,9,11,12]`))
	f.Add([]byte(`{"a/b":{"~":null},"é":{}}`), []byte(`{"a/b":{"~":false},"\ue000":[]}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		na, errA := ParseJSON("a.json", a, fuzzLimits)
		nb, errB := ParseJSON("b.json", b, fuzzLimits)
		if errA != nil || errB != nil {
			return
		}
		opts := DiffOptions{MaxDifferences: 1 << 20}
		if self, _ := Diff(na, na, opts); len(self) != 0 {
			t.Fatalf("a differs from itself: %v", self)
		}
		ab, _ := Diff(na, nb, opts)
		ba, _ := Diff(nb, na, opts)
		if (len(ab) == 0) != Equal(na, nb) {
			t.Fatalf("Diff lists %d differences, Equal says %v", len(ab), Equal(na, nb))
		}
		if len(ab) != len(ba) {
			t.Fatalf("%d differences one way, %d the other", len(ab), len(ba))
		}
		for i := range ab {
			if ab[i].Path != ba[i].Path || ab[i].A != ba[i].B || ab[i].B != ba[i].A {
				t.Fatalf("difference %d: %v vs %v", i, ab[i], ba[i])
			}
		}
		if Equal(na, nb) && !sameLeaves(Leaves(na, LeafOptions{}), Leaves(nb, LeafOptions{})) {
			t.Fatal("Equal trees with different leaves")
		}
	})
}

func sameLeaves(a, b []Leaf) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Pointer != b[i].Pointer || !Equal(a[i].Node, b[i].Node) {
			return false
		}
	}
	return true
}
