package kensa

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The real Kensa project's .kensa directory, renamed (as a CI artifact unpacked as
// kensa-results/ would be): every trace is still found, inside the directory imported.
func TestImportRenamedDirectory(t *testing.T) {
	src := sharedtest.Path(t, "fixtures", "kensa", ".kensa")
	want, err := PlanImport(filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "kensa-results")
	copyTree(t, src, dir)
	p, err := PlanImportAll(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Problems) > 0 || len(p.Records) != len(want) || p.Relocated != len(want) {
		t.Fatalf("%d runs (want %d), %d traces relocated, problems %v", len(p.Records), len(want), p.Relocated, p.Problems)
	}
	for i, r := range p.Records {
		if string(r.Trace) != string(want[i].Trace) || r.TracePath != want[i].TracePath {
			t.Errorf("run %d: the trace found is not the one Kensa recorded at %s", i, want[i].TracePath)
		}
	}
}

// One file that cannot be read or used never loses the others: a broken scenario costs its
// own runs, a missing trace makes its run an error run, a broken manifest its own runs; each
// is a problem naming the file and why.
func TestImportPartial(t *testing.T) {
	src := sharedtest.Path(t, "fixtures", "kensa", ".kensa")
	all, err := PlanImport(filepath.Dir(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), ".kensa")
	copyTree(t, src, dir)
	broken := filepath.Join(dir, "scenarios", "refund_flow.yaml")
	if err := os.WriteFile(broken, []byte("id: refund_flow\nname: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, "traces", "angry_customer_*.jsonl"))
	if err := os.Remove(traces[0]); err != nil {
		t.Fatal(err)
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	last := manifests[len(manifests)-1]
	if err := os.WriteFile(last, []byte("{\"run_id\": "), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PlanImportAll(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PlanImport(dir); err == nil {
		t.Error("PlanImport, all or nothing, imports a directory with problems")
	}
	byFile := map[string]*Problem{}
	for _, pr := range p.Problems {
		byFile[filepath.Base(pr.File)] = pr
	}
	if pr := byFile["refund_flow.yaml"]; pr == nil || pr.Runs == 0 || !strings.Contains(pr.Error(), "refund_flow.yaml:2") {
		t.Errorf("broken scenario: %v", pr)
	}
	if pr := byFile[filepath.Base(traces[0])]; pr == nil || !strings.Contains(pr.Error(), "cannot be read") {
		t.Errorf("missing trace: %v", pr)
	}
	if pr := byFile[filepath.Base(last)]; pr == nil {
		t.Errorf("broken manifest not reported: %v", p.Problems)
	}
	lost := 0
	for _, pr := range p.Problems {
		lost += pr.Runs
	}
	lastRuns := 0
	for _, r := range all {
		if r.RunID == strings.TrimSuffix(filepath.Base(last), ".json") {
			lastRuns++
		}
	}
	if got := len(p.Records) + lost + lastRuns; got != len(all) {
		t.Errorf("%d runs planned, %d lost to a scenario, %d to the manifest: %d, want %d", len(p.Records), lost, lastRuns, got, len(all))
	}
	errorRuns := 0
	for _, r := range p.Records {
		if r.Definition.Scenario.ID == "refund_flow" {
			t.Errorf("a run of the broken scenario is planned")
		}
		if r.Trace == nil && r.TracePath != "" {
			errorRuns++
			if len(r.Findings) == 0 || r.Findings[0].Code != "trace_unreadable" {
				t.Errorf("run without its trace: findings %v", r.Findings)
			}
		}
	}
	if errorRuns != 1 {
		t.Errorf("%d runs without their trace, want 1", errorRuns)
	}
}

// A trace that leads outside the directory imported — a symbolic link under traces/, or a
// trace_path naming another file — is never read, so never sealed as evidence: the run is
// imported as an error run and the import names the file and where it leads.
func TestImportRefusesTracesOutside(t *testing.T) {
	src := sharedtest.Path(t, "fixtures", "kensa", ".kensa")
	tmp := t.TempDir()
	secret := filepath.Join(tmp, "secret.txt")
	if err := os.WriteFile(secret, []byte("root:x:0:0:not evidence\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "project", ".kensa")
	copyTree(t, src, dir)
	traces, _ := filepath.Glob(filepath.Join(dir, "traces", "*.jsonl"))
	if len(traces) == 0 {
		t.Fatal("the fixture has no traces")
	}
	if err := os.Remove(traces[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, traces[0]); err != nil {
		t.Fatal(err)
	}
	p, err := PlanImportAll(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Records {
		if strings.Contains(string(r.Trace), "not evidence") {
			t.Fatalf("run of %s: the file outside the directory was read as its trace", r.TracePath)
		}
	}
	found := false
	for _, pr := range p.Problems {
		if filepath.Base(pr.File) == filepath.Base(traces[0]) && strings.Contains(pr.Error(), "outside") {
			found = true
		}
	}
	if !found {
		t.Errorf("no problem names the trace that leads outside: %v", p.Problems)
	}
}
