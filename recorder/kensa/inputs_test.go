package kensa

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

const (
	firstRun = "20261124T222003074" // the fixture's first run manifest and results file
	rows     = "scenarios/orders.jsonl"
)

// policyFixture copies Kensa's fixture into a project directory and returns its .kensa
// directory and a directory beside the project holding copies of two of its files (an outside
// a link can lead to, each file a valid one, so that reading it would import it).
func policyFixture(t *testing.T) (dir, outside string) {
	t.Helper()
	tmp := t.TempDir()
	dir = filepath.Join(tmp, "project", ".kensa")
	copyTree(t, sharedtest.Path(t, "fixtures", "kensa", ".kensa"), dir)
	outside = filepath.Join(tmp, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"runs/" + firstRun + ".json", "results/" + firstRun + ".json", "scenarios/angry_customer.yaml", rows} {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outside, filepath.Base(rel)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, outside
}

// TestImportInputPolicy replaces one file an import reads — a run manifest, a results file, a
// scenario, a dataset, a trace — with a named pipe, a device, or a symbolic link leading out of
// the directory to a valid copy of it. The import must return at once (a named pipe blocked
// it forever), read nothing outside, and report the file with why.
func TestImportInputPolicy(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join(sharedtest.Path(t, "fixtures", "kensa", ".kensa"), "traces", "orders_dataset_*.jsonl"))
	if len(traces) == 0 {
		t.Fatal("the fixture has no traces")
	}
	trace := "traces/" + filepath.Base(traces[0])
	tests := []struct {
		rel  string // the file replaced
		with string // "fifo", "device", or a file of outside to link to
		says string
	}{
		{"runs/" + firstRun + ".json", "fifo", "is a named pipe"},
		{"runs/" + firstRun + ".json", "device", "leads to /dev/zero"},
		{"runs/" + firstRun + ".json", firstRun + ".json", "outside"},
		{"results/" + firstRun + ".json", "fifo", "is a named pipe"},
		{"results/" + firstRun + ".json", firstRun + ".json", "outside"},
		{"scenarios/angry_customer.yaml", "fifo", "is a named pipe"},
		{"scenarios/angry_customer.yaml", "angry_customer.yaml", "outside"},
		{rows, "fifo", "is a named pipe"},
		{rows, "orders.jsonl", "outside"},
		{trace, "fifo", "is a named pipe"},
		{trace, "device", "leads to /dev/zero"},
	}
	for _, tt := range tests {
		t.Run(tt.rel+"/"+tt.with, func(t *testing.T) {
			dir, outside := policyFixture(t)
			p := filepath.Join(dir, filepath.FromSlash(tt.rel))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			var err error
			switch tt.with {
			case "fifo":
				err = syscall.Mkfifo(p, 0o644)
			case "device":
				err = os.Symlink("/dev/zero", p)
			default:
				err = os.Symlink(filepath.Join(outside, tt.with), p)
			}
			if err != nil {
				t.Skipf("cannot make it here: %v", err)
			}
			plan := importWithin(t, dir, 10*time.Second)
			if plan == nil {
				return
			}
			found := false
			for _, pr := range plan.Problems {
				if strings.Contains(pr.Error(), filepath.Base(tt.rel)) && strings.Contains(pr.Error(), tt.says) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem names %s saying %q: %v", tt.rel, tt.says, plan.Problems)
			}
			for _, r := range plan.Records {
				if r.RunID == firstRun && strings.HasPrefix(tt.rel, "runs/") {
					t.Fatalf("a run of the manifest replaced was imported")
				}
			}
		})
	}
}

// importWithin plans the import of dir, failing the test if it takes longer than limit (it is
// left running: a blocked open cannot be interrupted).
func importWithin(t *testing.T, dir string, limit time.Duration) *ImportPlan {
	t.Helper()
	type result struct {
		plan *ImportPlan
		err  error
	}
	done := make(chan result, 1)
	go func() {
		p, err := PlanImportAll(dir, false)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("import: %v", r.err)
		}
		return r.plan
	case <-time.After(limit):
		t.Errorf("the import did not return within %s", limit)
		return nil
	}
}

// TestImportDatasetInsideScenarios: a dataset is read as Kensa's load_dataset reads it,
// relative to the scenarios directory and only inside it; a path Kensa refuses ("escapes
// scenario directory") is a reported problem, its runs not imported.
func TestImportDatasetInsideScenarios(t *testing.T) {
	for _, dataset := range []string{"../orders.jsonl", "/etc/hostname", "sub/../../orders.jsonl"} {
		t.Run(dataset, func(t *testing.T) {
			dir, _ := policyFixture(t)
			// The rows beside scenarios/: where path.Join("scenarios", "../orders.jsonl") led.
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rows)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "orders.jsonl"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			sp := filepath.Join(dir, "scenarios", "orders_dataset.yaml")
			sc, err := os.ReadFile(sp)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(sp, []byte(strings.Replace(string(sc), "dataset: orders.jsonl", "dataset: "+dataset, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			plan := importWithin(t, dir, 10*time.Second)
			if plan == nil {
				return
			}
			for _, r := range plan.Records {
				if r.Definition.Scenario.ID == "orders_dataset" {
					t.Fatalf("a run of the scenario whose dataset is outside scenarios/ was imported")
				}
			}
			found := false
			for _, pr := range plan.Problems {
				found = found || strings.Contains(pr.Error(), "orders_dataset.yaml") && strings.Contains(pr.Error(), "dataset")
			}
			if !found {
				t.Errorf("no problem names the scenario and its dataset: %v", plan.Problems)
			}
		})
	}
}

// TestImportRunIDTwice: a second run manifest carrying a run id another manifest carries, its
// results file giving another status, is refused as a reported problem naming both manifests
// and both results files; Kensa's own manifest, named by the run id, is imported whether the
// copy comes before it or after (docs/decisions.md, "A run id in two manifests").
func TestImportRunIDTwice(t *testing.T) {
	for _, copyName := range []string{"zz-copy", "0-copy"} {
		t.Run(copyName, func(t *testing.T) {
			dir, _ := policyFixture(t)
			for _, sub := range []string{"runs", "results"} {
				b, err := os.ReadFile(filepath.Join(dir, sub, firstRun+".json"))
				if err != nil {
					t.Fatal(err)
				}
				if sub == "results" {
					b = []byte(strings.Replace(string(b), `"status": "fail"`, `"status": "pass"`, 1))
				}
				if err := os.WriteFile(filepath.Join(dir, sub, copyName+".json"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			plan := importWithin(t, dir, 30*time.Second)
			if plan == nil {
				return
			}
			want, err := PlanImportAll(sharedtest.Path(t, "fixtures", "kensa", ".kensa"), false)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Records) != len(want.Records) {
				t.Errorf("%d runs planned, want the fixture's %d: the copy's runs are not imported", len(plan.Records), len(want.Records))
			}
			for i, r := range plan.Records {
				if i < len(want.Records) && !slices.Equal(r.Claimed, want.Records[i].Claimed) {
					t.Fatalf("run %d of %s: the result imported is not Kensa's own (results/%s.json)", i, r.Definition.Scenario.ID, firstRun)
				}
			}
			if len(plan.Problems) != 1 || !errors.Is(plan.Problems[0], ErrRunIDTwice) {
				t.Fatalf("problems %v, want one saying the run id is in two manifests", plan.Problems)
			}
			twice := plan.Problems[0]
			for _, name := range []string{"runs/" + copyName + ".json", "runs/" + firstRun + ".json", "results/" + copyName + ".json", "results/" + firstRun + ".json"} {
				if !strings.Contains(twice.Error(), filepath.FromSlash(name)) {
					t.Errorf("the problem does not name %s: %v", name, twice)
				}
			}
			if twice.File != filepath.Join(dir, "runs", copyName+".json") || twice.Runs != 7 {
				t.Errorf("the problem is about %s, %d runs not imported; want the copy's 7", twice.File, twice.Runs)
			}
		})
	}
}

// TestPlanRefusesPipes: kensa run's plan of a directory whose scenario file, or a scenario's
// dataset, is a named pipe returns at once with an error naming it (the plan blocked for ever
// opening the pipe, deaf to SIGTERM); a scenario file leading out of its directory is refused.
func TestPlanRefusesPipes(t *testing.T) {
	for _, tt := range []struct{ rel, with, says string }{
		{"scenarios/angry_customer.yaml", "fifo", "is a named pipe"},
		{rows, "fifo", "is a named pipe"},
		{"scenarios/angry_customer.yaml", "angry_customer.yaml", "outside"},
		{rows, "orders.jsonl", "outside"},
	} {
		t.Run(tt.rel+"/"+tt.with, func(t *testing.T) {
			dir, outside := policyFixture(t)
			p := filepath.Join(dir, filepath.FromSlash(tt.rel))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			var err error
			if tt.with == "fifo" {
				err = syscall.Mkfifo(p, 0o644)
			} else {
				err = os.Symlink(filepath.Join(outside, tt.with), p)
			}
			if err != nil {
				t.Skipf("cannot make it here: %v", err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := Plan([]string{filepath.Dir(dir)}, Options{Runs: 1})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), filepath.Base(tt.rel)) || !strings.Contains(err.Error(), tt.says) {
					t.Errorf("Plan = %v, want an error naming %s saying %q", err, tt.rel, tt.says)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("Plan did not return within 10 s")
			}
		})
	}
}
