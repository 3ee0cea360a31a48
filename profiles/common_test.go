package profiles

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// update rewrites golden files instead of comparing with them: go test ./profiles -update.
var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// minimalDir is the hand-written test profile.
const minimalDir = "testdata/minimal"

// dirFS reads a directory into a MapFS so tests can change files without touching disk.
func dirFS(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loadSI loads the SI profile of the shared spec checkout, skipping if it is absent.
func loadSI(t testing.TB) *Profile {
	t.Helper()
	p, err := loadDir(sharedtest.SIProfile(t))
	if err != nil {
		t.Fatalf("load SI profile: %v", err)
	}
	return p
}

// diagnosticStrings renders diagnostics of one severity as "code: text" lines.
func diagnosticStrings(list []Diagnostic, sev Severity) []string {
	var out []string
	for _, d := range list {
		if d.Severity == sev {
			out = append(out, d.Code+": "+d.String())
		}
	}
	return out
}

// loadErrors loads fsys and returns its error diagnostics, failing if it loads.
func loadErrors(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	_, err := Load(fsys, LoadOptions{})
	if err == nil {
		t.Fatal("profile loaded, want a validation error")
	}
	ve, ok := err.(*ValidationError)
	if !ok {
		t.Fatalf("error is %T (%v), want *ValidationError", err, err)
	}
	return diagnosticStrings(ve.Diagnostics, SeverityError)
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }

// loadDir loads a profile directory on disk the way package profiledir does.
func loadDir(dir string) (*Profile, error) { return loadDirWith(dir, LoadOptions{}) }

func loadDirWith(dir string, opts LoadOptions) (*Profile, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return Load(root.FS(), opts)
}
