package goldenfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxDiff bounds the diff shown for one file: enough to locate a change.
const maxDiff = 4000

// Check compares got with the file at path and reports whether they are equal. With update
// set it writes got to path instead (creating its directory) and reports true.
func Check(t testing.TB, path string, got []byte, update bool) bool {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update in this package to create it)", err)
	}
	if bytes.Equal(got, want) {
		return true
	}
	t.Errorf("%s differs (-want +got); if the change is intended, run go test -update in this package and review the diff:\n%s",
		path, Diff(want, got))
	return false
}

// Diff renders the line differences of two texts for a person, cut at maxDiff bytes.
func Diff(want, got []byte) string {
	d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
	if len(d) > maxDiff {
		d = d[:maxDiff] + "\n… (diff cut)"
	}
	return d
}
