package jsondiff

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
)

// update rewrites the golden files: go test ./internal/jsondiff -update.
var update = flag.Bool("update", false, "rewrite testdata/cases/*.golden")

// TestCases runs the golden cases of testdata/cases: NAME.a.json and NAME.b.json are compared
// and the differences (or the error), one per line, must equal NAME.golden.
func TestCases(t *testing.T) {
	cases := []struct{ name, what string }{
		{"identical", "members in another order and numbers written differently: no difference"},
		{"scalars", "changed scalars, a type change, members present on one side only"},
		{"arrays", "arrays compare index by index; indices sort as numbers"},
		{"pointer-escapes", "RFC 6901 escapes in keys; control characters and quotes in strings"},
		{"document", "different types at the top"},
		{"verdict", "a verdict that changed one scenario's status: the path names its index"},
		{"duplicate-key", "a duplicate key is an error naming it"},
		{"trailing", "anything after the value is an error"},
		{"truncated-input", "an unterminated document is an error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := filepath.Join("testdata", "cases", tc.name)
			a, errA := os.ReadFile(base + ".a.json")
			b, errB := os.ReadFile(base + ".b.json")
			if err := errors.Join(errA, errB); err != nil {
				t.Fatal(err)
			}
			diffs, err := Diff(a, b)
			got := renderResult(diffs, err)
			if !goldenfile.Check(t, base+".golden", []byte(got), *update) {
				t.Logf("case %s: %s", tc.name, tc.what)
			}
		})
	}
}

func renderResult(diffs []Difference, err error) string {
	var b strings.Builder
	for _, d := range diffs {
		b.WriteString(d.String() + "\n")
	}
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
	}
	return b.String()
}

// TestLimit: the walk stops at the limit, keeps the first differences in path order and says
// it stopped.
func TestLimit(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("[")
	b.WriteString("[")
	for i := range 12 {
		if i > 0 {
			a.WriteString(",")
			b.WriteString(",")
		}
		fmt.Fprintf(&a, "%d", i)
		fmt.Fprintf(&b, "%d", i+100)
	}
	a.WriteString("]")
	b.WriteString("]")
	tests := []struct {
		limit     int
		wantN     int
		truncated bool
	}{
		{limit: 1, wantN: 1, truncated: true},
		{limit: 5, wantN: 5, truncated: true},
		{limit: 12, wantN: 12, truncated: false},
		{limit: 0, wantN: 1, truncated: true}, // a limit below 1 means 1
	}
	for _, tt := range tests {
		diffs, err := DiffN([]byte(a.String()), []byte(b.String()), tt.limit)
		if len(diffs) != tt.wantN || errors.Is(err, ErrTruncated) != tt.truncated {
			t.Errorf("limit %d: %d differences, err %v", tt.limit, len(diffs), err)
			continue
		}
		for i, d := range diffs {
			if want := fmt.Sprintf("/%d", i); d.Path != want {
				t.Errorf("limit %d: difference %d at %s, want %s", tt.limit, i, d.Path, want)
			}
		}
	}
}

// TestValueBound: a long value is cut, on a UTF-8 boundary, with a marker.
func TestValueBound(t *testing.T) {
	long := `"` + strings.Repeat("é", MaxValueBytes) + `"`
	diffs, err := Diff([]byte(long), []byte(`"x"`))
	if err != nil || len(diffs) != 1 {
		t.Fatalf("%v %v", diffs, err)
	}
	want := diffs[0].Want
	if !strings.HasSuffix(want, "…") || len(want) > MaxValueBytes+len("…") || !strings.HasPrefix(want, `"éé`) {
		t.Errorf("want side not bounded: %d bytes, ends %q", len(want), want[len(want)-8:])
	}
}

// TestDepth: nesting beyond MaxDepth is an error, not a stack overflow.
func TestDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if _, err := Diff([]byte(deep), []byte("[]")); !errors.Is(err, ErrSyntax) {
		t.Errorf("deep document: %v", err)
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if diffs, err := Diff([]byte(ok), []byte(ok)); err != nil || len(diffs) != 0 {
		t.Errorf("document at the depth limit: %v %v", diffs, err)
	}
}

// TestNumberKey: literals of one decimal value share a key; others do not.
func TestNumberKey(t *testing.T) {
	same := [][]string{
		{"1", "1.0", "10e-1", "0.1e1", "1E0", "1e+0"},
		{"0", "-0", "0.000", "0e10"},
		{"-2.5", "-25e-1", "-0.25E1"},
		{"100", "1e2", "100.00"},
	}
	for _, group := range same {
		for _, lit := range group[1:] {
			if numberKey(lit) != numberKey(group[0]) {
				t.Errorf("%s and %s: keys %s and %s", group[0], lit, numberKey(group[0]), numberKey(lit))
			}
		}
	}
	for _, pair := range [][2]string{{"1", "-1"}, {"1", "10"}, {"0.1", "0.01"}, {"1e9999999999999999999", "1"}} {
		if numberKey(pair[0]) == numberKey(pair[1]) {
			t.Errorf("%s and %s share the key %s", pair[0], pair[1], numberKey(pair[0]))
		}
	}
}
