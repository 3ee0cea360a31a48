package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// The starter agent of examples/kensa-starter — plain Python, the standard library only —
// sends the LLM span Kensa reads the output from, so its scenario passes under kensa run as
// shipped, and kensa stats and replay agree. Skipped only where python3 is absent.
func TestKensaStarterExamplePasses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on the PATH")
	}
	example := filepath.Join("..", "..", "examples", "kensa-starter")
	t.Setenv(storeEnvVar, filepath.Join(t.TempDir(), "store"))
	status, stdout, stderr := runArgs("kensa", "run", "--timeout", "60s", "--tag", "starter", filepath.Join(example, ".kensa"))
	if status != 0 || !regexp.MustCompile(`(?m)^sha256:[0-9a-f]{64}  capital  pass$`).MatchString(stdout) {
		t.Fatalf("kensa run of the starter example: exit status %d, want 0 and capital passing\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
	status, stdout, stderr = runArgs("replay", "--no-store", "starter-capital")
	if status != 0 || !regexp.MustCompile(`(?m)^kensa run \S+ of scenario capital: PASS$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^  pass output_contains: `).MatchString(stdout) {
		t.Fatalf("replay of the starter run: exit status %d\nstdout:\n%s\nstderr:\n%s", status, stdout, stderr)
	}
}
