package kensa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// behaviours holds scenarios of Kensa runner behaviours (the nearest .env, stdout that is not
// UTF-8, a literal {{input}} element, what Kensa's models tolerate, case_sensitive by Python's
// truth, GenAI attributes in its JSONL file, span times in every form
// translate._parse_timestamp reads), a .env file (as dotenv), and in .kensa/runs, traces and
// results what real Kensa v0.7.0 recorded running them once. Regenerate with
// go test ./recorder/kensa -run KensaBehaviours -update.
const behaviours = "testdata/behaviours"

// Kensa's own runs of the behaviour scenarios re-derive exactly, and kensa run, running the
// same scenarios in a project with the same .env, gives every run the same status, checks and
// error as Kensa recorded.
func TestKensaBehaviours(t *testing.T) {
	dir := behaviours
	if *update {
		generateBehaviours(t, realKensaTool(t), dir)
	}
	kensaOf := map[string]outcome{}
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
		claimed, err := pyvalue.Loads("claimed", r.Claimed)
		if err != nil {
			t.Fatal(err)
		}
		if diffs := ekensa.Compare(res, claimed); len(diffs) > 0 {
			t.Errorf("%s: Kensa's recorded result is not re-derived: %+v", r.Definition.Scenario.ID, diffs)
		}
		kensaOf[r.Definition.Scenario.ID] = outcomeWithError(res)
	}
	if len(kensaOf) != 16 {
		t.Fatalf("%d scenarios imported, want 16", len(kensaOf))
	}

	agentOnPath(t)
	live := t.TempDir()
	copyDir(t, filepath.Join(dir, ".kensa", "scenarios"), filepath.Join(live, ".kensa", "scenarios"))
	copyFile(t, filepath.Join(dir, "dotenv"), filepath.Join(live, ".env"))
	liveOf := map[string]outcome{}
	for _, rec := range (&project{t: t, dir: live}).runAll(testOpts) {
		liveOf[rec.Definition.Scenario.ID] = outcomeWithError(evaluate(t, rec))
	}
	if d := cmp.Diff(kensaOf, liveOf); d != "" {
		t.Errorf("Kensa's runs (-) and kensa run's (+) differ:\n%s", d)
	}
	for id, want := range map[string]string{
		"dotenv":          "GREETING=from dotenv",
		"dotenv_override": "GREETING=from overrides",
		"not_utf8":        "'utf-8' codec can't decode byte 0xff in position 2: invalid start byte",
		"not_utf8_cut":    "'utf-8' codec can't decode bytes in position 0-1: invalid continuation byte",
		"literal_input":   "stderr:\n{{input}}",
		"times_null":      "Cannot parse timestamp: None",
		"times_iso":       "max_duration passed=false",
		"no_command":      "error: run_command must be a non-empty list of argv elements",
	} {
		if got := liveOf[id].Checks; !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("%s: %q, want it to say %q", id, got, want)
		}
	}
}

// outcomeWithError is outcomeOf with the run's error as a last line.
func outcomeWithError(r *ekensa.Result) outcome {
	o := outcomeOf(r)
	if r.Error != nil {
		o.Checks = append(o.Checks, "error: "+*r.Error)
	}
	return o
}

// generateBehaviours runs real Kensa (kensa run, then kensa judge) over the behaviour
// scenarios in a project holding the .env, and writes its runs, traces and results into dir.
func generateBehaviours(t *testing.T, tool, dir string) {
	t.Helper()
	agentOnPath(t)
	project := t.TempDir()
	copyDir(t, filepath.Join(behaviours, ".kensa", "scenarios"), filepath.Join(project, ".kensa", "scenarios"))
	copyFile(t, filepath.Join(behaviours, "dotenv"), filepath.Join(project, ".env"))
	runRealKensa(t, tool, project)
	keepKensaOutput(t, project, dir)
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
