package kensa

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

var update = flag.Bool("update", false, "write testdata/twoways/.kensa anew with real Kensa (../shared/tools/real-kensa: needs python3, KENSA_SRC and OTEL_SRC)")

// twoWays holds scenarios run by the scripted agent (as kensa-agent on PATH, Kensa's JSONL
// exporter's way) and, in .kensa/runs, traces and results, what real Kensa v0.7.0 recorded
// running them twoWaysRuns times. Regenerate with go test ./recorder/kensa -run TwoWays -update.
const (
	twoWays     = "testdata/twoways"
	twoWaysRuns = 3
)

// outcome is what a test compares of one run: its status and every check's verdict.
type outcome struct {
	Status string
	Checks []string
}

func outcomeOf(r *ekensa.Result) outcome {
	o := outcome{Status: r.Status}
	for _, c := range r.CheckResults {
		o.Checks = append(o.Checks, fmt.Sprintf("%s passed=%v: %s", c.Check, c.Passed, c.Detail))
	}
	return o
}

// The same scripted agent, captured two ways — live by kensa run, and by real Kensa, whose
// .kensa output kensa import reads — gives the same verdict for every check of every run;
// and every imported run re-derives the result Kensa recorded, exactly.
func TestTwoWaysOneVerdict(t *testing.T) {
	compareTwoWays(t, twoWays)
}

// The same, with the .kensa output made now by real Kensa (or, with -update, written to
// testdata). Skipped where real Kensa cannot run.
func TestTwoWaysFreshKensa(t *testing.T) {
	realKensa := realKensaTool(t)
	dir := t.TempDir()
	if *update {
		dir = twoWays
	}
	generateWithKensa(t, realKensa, dir)
	compareTwoWays(t, dir)
}

func compareTwoWays(t *testing.T, dir string) {
	imported := map[string][]outcome{}
	records, err := PlanImport(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		ev, err := EvidenceOf(r)
		if err != nil {
			t.Fatal(err)
		}
		res := ekensa.Evaluate(ev)
		key := fmt.Sprintf("%s row %d", r.Definition.Scenario.ID, r.Case)
		imported[key] = append(imported[key], outcomeOf(res))
		claimed, err := pyvalue.Loads("claimed", r.Claimed)
		if err != nil {
			t.Fatal(err)
		}
		if diffs := ekensa.Compare(res, claimed); len(diffs) > 0 {
			t.Errorf("%s, run %s: Kensa's recorded result is not re-derived: %+v", key, r.RunID, diffs)
		}
	}
	if len(records) != twoWaysRuns*7 {
		t.Fatalf("%d runs imported, want %d", len(records), twoWaysRuns*7)
	}

	agentOnPath(t)
	liveDir := t.TempDir()
	copyDir(t, filepath.Join(dir, ".kensa", "scenarios"), filepath.Join(liveDir, ".kensa", "scenarios"))
	opts := testOpts
	opts.Runs = twoWaysRuns
	live := map[string][]outcome{}
	for _, rec := range (&project{t: t, dir: liveDir}).runAll(opts) {
		key := fmt.Sprintf("%s row %d", rec.Definition.Scenario.ID, rec.Case)
		live[key] = append(live[key], outcomeOf(evaluate(t, rec)))
	}
	if d := cmp.Diff(imported, live); d != "" {
		t.Errorf("the verdicts of Kensa's runs (-) and of kensa run's (+) differ:\n%s", d)
	}
	if got := imported["maybe row 0"]; len(got) != twoWaysRuns || got[0].Status == got[1].Status {
		t.Errorf("the flaky scenario did not alternate: %+v", got)
	}
}

// agentOnPath makes kensa-agent, on PATH, this test binary acting as the scripted agent.
func agentOnPath(t *testing.T) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "kensa-agent")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(agentEnv, "1")
}

// realKensaTool returns the real-kensa script of the shared tools, or skips t saying what is
// missing.
func realKensaTool(t *testing.T) string {
	t.Helper()
	tool := sharedtest.Path(t, "tools", "real-kensa")
	for _, v := range []string{"KENSA_SRC", "OTEL_SRC"} {
		if os.Getenv(v) == "" {
			t.Skipf("real Kensa cannot run: %s is not set (a checkout of satyaborg/kensa v0.7.0 and of opentelemetry-python; see %s)", v, tool)
		}
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("real Kensa cannot run: no python3 (%v)", err)
	}
	return tool
}

// generateWithKensa runs real Kensa twoWaysRuns times over the scenarios of testdata/twoways
// (kensa run, then kensa judge: checks only) and writes its runs, traces and results into
// dir/.kensa.
func generateWithKensa(t *testing.T, tool, dir string) {
	t.Helper()
	agentOnPath(t)
	project := t.TempDir()
	copyDir(t, filepath.Join(twoWays, ".kensa", "scenarios"), filepath.Join(project, ".kensa", "scenarios"))
	for range twoWaysRuns {
		runRealKensa(t, tool, project)
	}
	keepKensaOutput(t, project, dir)
	if dir != twoWays {
		copyDir(t, filepath.Join(twoWays, ".kensa", "scenarios"), filepath.Join(dir, ".kensa", "scenarios"))
	}
}

// runRealKensa runs real Kensa's kensa run, then kensa judge, in project.
func runRealKensa(t *testing.T, tool, project string) {
	t.Helper()
	for _, args := range [][]string{{"run", "--timeout", "60"}, {"judge", "--format", "json"}} {
		cmd := exec.Command(tool, args...)
		cmd.Dir = project
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("real-kensa %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// keepKensaOutput replaces the runs, traces and results of dir's .kensa with project's.
func keepKensaOutput(t *testing.T, project, dir string) {
	t.Helper()
	for _, sub := range []string{"runs", "traces", "results"} {
		dst := filepath.Join(dir, ".kensa", sub)
		if err := os.RemoveAll(dst); err != nil {
			t.Fatal(err)
		}
		copyDir(t, filepath.Join(project, ".kensa", sub), dst)
	}
}

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
