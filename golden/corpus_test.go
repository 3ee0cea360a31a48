package golden

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// scratchStore is the Options.NewStore of the tests: an empty in-memory store.
func scratchStore() (store.Store, error) { return badgerstore.OpenInMemory(badgerstore.Options{}) }

// writeCorpus makes a corpus directory holding files (name → content).
func writeCorpus(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// passRecipe is a one-scenario synthetic run over the example profile: the example run's
// evidence for the boundary scenario, which passes.
const passRecipe = `description: one passing scenario
profile: $EXAMPLE/profile
synthetic:
  agent: {name: example-agent, version: 2.3.0}
  timestamp: "2026-06-03T09:00:00Z"
  scenarios:
    - {id: example.safety.nb.out-of-scope-restart-001, from: $EXAMPLE/run}
`

func TestOpen(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		cases   []string
		wantErr string
	}{
		{name: "cases in name order, other files ignored",
			files: map[string]string{"b.recipe.yaml": passRecipe, "a.bundle.tar.zst": "", "README.md": "x", "inputs/x.verdict.json": "{}",
				"a.verdict.json": "{}", "b.bundle": "sha256:x\n"},
			cases: []string{"a", "b"}},
		{name: "orphan golden output", files: map[string]string{"a.recipe.yaml": passRecipe, "c.receipt.json": "{}"},
			wantErr: "c.receipt.json: golden output of no case"},
		{name: "two inputs", files: map[string]string{"a.recipe.yaml": passRecipe, "a.bundle.tar.zst": ""},
			wantErr: `case "a" already has input`},
		{name: "bad name", files: map[string]string{"Upper.recipe.yaml": passRecipe}, wantErr: "case names are lowercase"},
		{name: "bad recipe", files: map[string]string{"a.recipe.yaml": "profile: p\n"}, wantErr: "a.recipe.yaml: want exactly one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(writeCorpus(t, tt.files))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open: %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, cs := range c.Cases {
				names = append(names, cs.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.cases, ",") {
				t.Errorf("cases %v, want %v", names, tt.cases)
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrCorpus) {
		t.Errorf("missing directory: %v, want ErrCorpus", err)
	}
}

// TestCheckUpdateCycle: a new case mismatches until updated; update writes its three files,
// then check and update find nothing to do; a tampered golden file is a mismatch with its
// differences.
func TestCheckUpdateCycle(t *testing.T) {
	dir := writeCorpus(t, map[string]string{"pass.recipe.yaml": passRecipe})
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Runs: 2, NewStore: scratchStore}
	res := runOne(t, c.Check, opts)
	if res.Outcome != Mismatched || len(res.Mismatches) != 3 || res.Mismatches[0].Want != absent {
		t.Fatalf("check of a new case: %s %+v", res.Outcome, res.Mismatches)
	}
	res = runOne(t, c.Update, opts)
	if res.Outcome != Updated || strings.Join(res.Written, " ") != "pass.bundle pass.verdict.json pass.receipt.json" {
		t.Fatalf("update of a new case: %s, wrote %v", res.Outcome, res.Written)
	}
	for _, run := range []func(*testing.T) *CaseResult{
		func(t *testing.T) *CaseResult { return runOne(t, c.Check, opts) },
		func(t *testing.T) *CaseResult { return runOne(t, c.Update, opts) },
	} {
		if res := run(t); res.Outcome != OK || len(res.Written) > 0 || res.Overall != evaluator.Pass || res.Runs != 2 {
			t.Fatalf("after update: %s, wrote %v, overall %s, %d runs", res.Outcome, res.Written, res.Overall, res.Runs)
		}
	}
	verdict, err := os.ReadFile(filepath.Join(dir, "pass.verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	if store.Sum(verdict) != res.Verdict {
		t.Errorf("pass.verdict.json hashes to %s, the receipt names %s", store.Sum(verdict), res.Verdict)
	}
	tampered := bytes.Replace(verdict, []byte(`"overall":"PASS"`), []byte(`"overall":"FAIL"`), 1)
	if err := os.WriteFile(filepath.Join(dir, "pass.verdict.json"), tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	res = runOne(t, c.Check, opts)
	want := doc.Difference{Path: "/overall", Kind: doc.Changed, A: `"FAIL"`, B: `"PASS"`}
	if res.Outcome != Mismatched || len(res.Mismatches) != 1 || len(res.Mismatches[0].Differences) != 1 ||
		res.Mismatches[0].Differences[0] != want || res.Mismatches[0].Human == "" {
		t.Fatalf("tampered verdict: %s %+v", res.Outcome, res.Mismatches)
	}
	var out bytes.Buffer
	if err := (&Report{Dir: dir, Results: []*CaseResult{res}}).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"1 cases: 0 ok, 1 mismatch, 0 skipped, 0 errors", "MISMATCH  pass: PASS, bundle sha256:",
		"  pass.verdict.json differs from the case: golden sha256:", `    /overall: "FAIL" → "PASS"`, "go-cmp rendering"} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
}

// TestReceiptRulesNote: a receipt that differs only in the rules digest says so.
func TestReceiptRulesNote(t *testing.T) {
	want := []byte(`{"bundle":"a","evaluator":{"name":"e","rules_digest":"sha256:1","version":"1"},"verdict":"v"}`)
	got := []byte(`{"bundle":"a","evaluator":{"name":"e","rules_digest":"sha256:2","version":"1"},"verdict":"v"}`)
	m := compare("x.receipt.json", ReceiptSuffix, want, got)
	if !strings.Contains(m.Note, "rules digest") || len(m.Differences) != 1 || m.Human != "" {
		t.Errorf("%+v", m)
	}
	m = compare("x.verdict.json", VerdictSuffix, []byte("not json"), got)
	if !strings.Contains(m.Note, "cannot be compared as JSON") {
		t.Errorf("%+v", m)
	}
}

func TestSkipAndErrors(t *testing.T) {
	dir := writeCorpus(t, map[string]string{
		"needs-shared.recipe.yaml":     "profile: $SHARED/oasis-spec/profiles/software-infrastructure\noasisctl: $SHARED/fixtures/oasisctl/safe\n",
		"missing-input.recipe.yaml":    "profile: $EXAMPLE/profile\noasisctl: runs/absent\n",
		"not-in-example.recipe.yaml":   "profile: $EXAMPLE/profile\noasisctl: $EXAMPLE/nothing\n",
		"unknown-scenario.recipe.yaml": "profile: $EXAMPLE/profile\nsynthetic: {scenarios: [{id: example.safety.xx.none-001, no_evidence: true}]}\n",
		"files-from-example.recipe.yaml": "profile: $EXAMPLE/profile\nfiles: {scenario: example.safety.nb.out-of-scope-restart-001, " +
			"transcript: $EXAMPLE/run/verdict.json}\n",
		"bad-archive.bundle.tar.zst": "not zstd",
	})
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Check(t.Context(), Options{Runs: 2, NewStore: scratchStore})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		outcome Outcome
		text    string
		err     error
	}{
		"bad-archive":        {Failed, "bad-archive.bundle.tar.zst", nil},
		"files-from-example": {Failed, "files inputs must be on disk", ErrRecipe},
		"missing-input":      {Failed, "runs/absent", ErrRecipe},
		"needs-shared":       {Skipped, "needs $SHARED/oasis-spec/profiles/software-infrastructure, and the shared test data is not available", nil},
		"not-in-example":     {Failed, "$EXAMPLE/nothing: not part of the embedded example", ErrRecipe},
		"unknown-scenario":   {Failed, "example.safety.xx.none-001", evaluator.ErrUnknownScenario},
	}
	for _, res := range rep.Results {
		w := want[res.Case.Name]
		text := res.Reason
		if res.Err != nil {
			text = res.Err.Error()
		}
		if res.Outcome != w.outcome || !strings.Contains(text, w.text) || (w.err != nil && !errors.Is(res.Err, w.err)) {
			t.Errorf("%s: %s %q, want %s containing %q (%v)", res.Case.Name, res.Outcome, text, w.outcome, w.text, w.err)
		}
	}
	if _, err := c.Check(t.Context(), Options{Cases: []string{"nope"}, NewStore: scratchStore}); !errors.Is(err, ErrCorpus) {
		t.Errorf("unknown case: %v", err)
	}
	if _, err := c.Check(t.Context(), Options{Shared: filepath.Join(dir, "missing"), NewStore: scratchStore}); !errors.Is(err, ErrShared) {
		t.Errorf("a shared directory that does not exist: %v", err)
	}
	if rep.Count(Failed) != 5 || rep.Count(Skipped) != 1 {
		t.Errorf("counts: %d failed, %d skipped", rep.Count(Failed), rep.Count(Skipped))
	}
}

// TestDivergenceReport: a case whose evaluations diverge says which settings gave which
// digest, and update says nothing was written.
func TestDivergenceReport(t *testing.T) {
	res := &CaseResult{Case: &Case{Name: "flaky"}, Outcome: Mismatched, Overall: evaluator.Pass, Runs: 3,
		Divergence: &replay.Divergence{
			Baseline: replay.Setting{Run: 1, GOMAXPROCS: 1, Workers: 1},
			Setting:  replay.Setting{Run: 3, GOMAXPROCS: 4, Workers: 1},
			Want:     store.Sum([]byte("a")), Got: store.Sum([]byte("b")),
			Differences: []doc.Difference{{Path: "/scenarios/0/status", Kind: doc.Changed, A: `"PASS"`, B: `"FAIL"`}},
		}}
	var out bytes.Buffer
	if err := (&Report{Dir: "d", Update: true, Results: []*CaseResult{res}}).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"golden update d: 1 cases: 0 updated, 0 unchanged, 1 mismatch",
		"the evaluations diverge (Core §3.5.4: the same evidence must give the same verdict); nothing was written:",
		"    run 1: GOMAXPROCS=1, 1 worker(s), manifest order gave " + store.Sum([]byte("a")).String(),
		"    run 3: GOMAXPROCS=4, 1 worker(s), manifest order gave " + store.Sum([]byte("b")).String(),
		`    /scenarios/0/status: "PASS" → "FAIL"`} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, out.String())
		}
	}
}

// runOne runs check or update on a one-case corpus and returns the case's result.
func runOne(t *testing.T, run func(ctx context.Context, opts Options) (*Report, error), opts Options) *CaseResult {
	t.Helper()
	rep, err := run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results", len(rep.Results))
	}
	res := rep.Results[0]
	if res.Err != nil {
		t.Fatalf("%s: %v", res.Case.Name, res.Err)
	}
	return res
}
