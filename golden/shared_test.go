package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindShared(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	corpus := filepath.Join(repo, "testdata", "corpus")
	mustMkdir(t, corpus)
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindShared(corpus); got != "" {
		t.Errorf("FindShared without ../shared = %q, want \"\"", got)
	}
	shared := filepath.Join(root, "shared")
	mustMkdir(t, shared)
	for _, tc := range []struct {
		name  string
		start []string
		want  string
	}{
		{"from the corpus", []string{corpus}, shared},
		{"from the repository root", []string{repo}, shared},
		{"first start without a module, then one with", []string{root, corpus}, shared},
		{"no module above", []string{root}, ""},
		{"nothing to start from", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FindShared(tc.start...); got != tc.want {
				t.Errorf("FindShared(%q) = %q, want %q", tc.start, got, tc.want)
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
