package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// TestReadmeQuickTour runs the command lines of the README's quick tour as they are printed,
// in order, on a store of their own: ../shared is the shared test data, a path under /tmp or
// under $d (which the tour sets with d=$(mktemp -d)) a temporary directory. Each must exit 0,
// or the status its comment announces ("(exit 1)").
func TestReadmeQuickTour(t *testing.T) {
	shared := sharedtest.Dir(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := quickTour(t, string(readme))
	if len(lines) < 5 {
		t.Fatalf("found %d command lines in the quick tour", len(lines))
	}
	work := t.TempDir()
	t.Chdir(work)
	t.Setenv(storeEnvVar, filepath.Join(work, "store"))
	for _, line := range lines {
		if line.command == "d=$(mktemp -d)" {
			continue // the test's working directory is a temporary one already
		}
		args := strings.Fields(line.command)
		if args[0] != "oasis-replay" || strings.ContainsAny(strings.ReplaceAll(line.command, "$d/", ""), `'"$*?|<>;&`) {
			t.Fatalf("%q: teach this test to run it (it runs plain oasis-replay command lines only)", line.command)
		}
		for i, a := range args {
			if rest, ok := strings.CutPrefix(a, "../shared/"); ok {
				args[i] = filepath.Join(shared, rest)
			} else if rest, ok := strings.CutPrefix(a, "/tmp/"); ok {
				args[i] = filepath.Join(work, rest)
			} else if rest, ok := strings.CutPrefix(a, "$d/"); ok {
				args[i] = filepath.Join(work, rest)
			}
		}
		status, stdout, stderr := runArgs(args[1:]...)
		if status != line.status {
			t.Fatalf("%s\nexit status %d, the README says %d\nstdout:\n%s\nstderr:\n%s", line.command, status, line.status, stdout, stderr)
		}
	}
}

// tourLine is one command line of the quick tour and the exit status it announces.
type tourLine struct {
	command string
	status  int
}

var announcedStatus = regexp.MustCompile(`\(exit (\d)\)`)

// quickTour returns the command lines of the first sh block after "## Quick tour", with their
// continuation lines joined and their comments removed.
func quickTour(t *testing.T, readme string) []tourLine {
	t.Helper()
	_, section, ok := strings.Cut(readme, "## Quick tour")
	if !ok {
		t.Fatal("README has no Quick tour section")
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("the Quick tour has no sh block")
	}
	var lines []tourLine
	for _, line := range strings.Split(strings.ReplaceAll(block, "\\\n", " "), "\n") {
		command, comment, _ := strings.Cut(line, " #")
		if strings.TrimSpace(command) == "" {
			continue
		}
		l := tourLine{command: strings.Join(strings.Fields(command), " ")}
		if m := announcedStatus.FindStringSubmatch(comment); m != nil {
			l.status, _ = strconv.Atoi(m[1])
		}
		lines = append(lines, l)
	}
	return lines
}
