package pyre

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// runPython runs script with python3, stdin as its input, and returns what it printed. It
// skips the test, saying so, when python3 is absent or older than 3.11 (whose re this package
// follows: atomic groups and possessive quantifiers).
func runPython(t testing.TB, script string, stdin []byte) string {
	t.Helper()
	python, err := lookPython()
	if err != nil {
		t.Skip(err.Error() + ": the comparison with Python's re is skipped")
	}
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	return string(out)
}

// lookPython finds python3 3.11 or newer.
func lookPython() (string, error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return "", errors.New("python3 is not installed")
	}
	version, err := exec.Command(python, "-c", "import sys; print(sys.version_info >= (3, 11))").Output()
	if err != nil || strings.TrimSpace(string(version)) != "True" {
		return "", errors.New("python3 is older than 3.11, whose re this package follows")
	}
	return python, nil
}
