package goldenfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder stands in for a testing.T so that Check's failures can be observed.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	if !Check(t, path, []byte("a\nb\n"), true) {
		t.Fatal("update reported a difference")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	if !Check(t, path, []byte("a\nb\n"), false) {
		t.Fatal("equal bytes reported as different")
	}
	r := &recorder{TB: t}
	if Check(r, path, []byte("a\nc\n"), false) {
		t.Fatal("a changed line was not reported")
	}
	if len(r.errors) != 1 {
		t.Fatalf("got %d errors, want 1", len(r.errors))
	}
}

func TestDiffShowsTheChangedLine(t *testing.T) {
	d := Diff([]byte("same\nold\n"), []byte("same\nnew\n"))
	// go-cmp varies its white space on purpose, so only the markers and the lines are checked.
	var removed, added bool
	for _, line := range strings.Split(d, "\n") {
		line = strings.TrimSpace(line)
		removed = removed || strings.HasPrefix(line, "-") && strings.Contains(line, `"old"`)
		added = added || strings.HasPrefix(line, "+") && strings.Contains(line, `"new"`)
	}
	if !removed || !added {
		t.Fatalf("diff does not show the changed line:\n%s", d)
	}
	long := Diff([]byte(strings.Repeat("x\n", 10000)), []byte(strings.Repeat("y\n", 10000)))
	if len(long) > maxDiff+100 {
		t.Fatalf("diff of %d bytes is not cut", len(long))
	}
}
