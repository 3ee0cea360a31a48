package kensa

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// events records what RunJobs reports.
type events struct {
	mu      sync.Mutex
	started int
	sealed  []store.Digest
}

func (e *events) Started(Job) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.started++
}

func (e *events) Finished(Job, string) {}

func (e *events) Sealed(_ *Record, d store.Digest) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sealed = append(e.sealed, d)
}

// sealedRun is what a test compares of a sealed run.
type sealedRun struct {
	Bundle, Evidence, Verdict, Receipt store.Digest
	Scenario, Repeat, Status           string
	Case                               int
	Canonical                          string
}

// runJobs runs every scenario of p through RunJobs into a new store and replays each bundle.
func (p *project) runJobs(opts Options, parallel int) []sealedRun {
	p.t.Helper()
	jobs, err := Plan([]string{filepath.Join(p.dir, ".kensa")}, opts)
	if err != nil {
		p.t.Fatal(err)
	}
	s := newStore(p.t)
	ev := &events{}
	open := func(use func(Writer) error) error { return use(s) }
	sum, err := RunJobs(p.t.Context(), jobs, opts, parallel, p.t.TempDir(), open, nil, ev)
	if err != nil {
		p.t.Fatal(err)
	}
	if sum.Sealed != len(jobs) || ev.started != len(jobs) || len(ev.sealed) != len(jobs) {
		p.t.Fatalf("%d jobs, %d started, summary %+v, %d sealed", len(jobs), ev.started, sum, len(ev.sealed))
	}
	var out []sealedRun
	for _, d := range ev.sealed {
		b, err := replay.LoadKensa(p.t.Context(), s, d)
		if err != nil {
			p.t.Fatal(err)
		}
		res, err := b.Evaluate()
		if err != nil {
			p.t.Fatal(err)
		}
		out = append(out, sealedRun{Bundle: d, Evidence: b.Manifest.Evidence, Verdict: res.Verdict, Receipt: res.Receipt.Digest,
			Scenario: b.Manifest.Scenario, Case: b.Manifest.Case, Repeat: b.Manifest.Annotations[AnnotationRepeat],
			Status: res.Result.Status, Canonical: string(res.Canonical)})
	}
	slices.SortFunc(out, func(a, b sealedRun) int {
		return strings.Compare(fmt.Sprint(a.Scenario, a.Case, a.Repeat), fmt.Sprint(b.Scenario, b.Case, b.Repeat))
	})
	return out
}

func twoScenarios(t *testing.T) *project {
	p := newProject(t)
	p.write("orders.jsonl", `{"question": "where B-1", "order": "B-1"}`+"\n"+`{"question": "refund B-2", "order": "B-2"}`+"\n")
	p.write("where.yaml", scenario(t, "where", "where A-100", nil, whereChecks))
	p.write("rows.yaml", fmt.Sprintf("id: rows\nname: rows\ndataset: orders.jsonl\ninput_field: question\nrun_command: %s\nenv_overrides: {%s: \"1\"}\n"+
		"checks:\n  - type: tools_not_called\n    params: {tools: [refund_order]}\n", agent(t, "--emit", "otlp-proto"), agentEnv))
	return p
}

// --parallel changes nothing of what is recorded: the same runs give the same evidence and
// verdicts with one agent at a time or four.
func TestRunJobsParallelIndependent(t *testing.T) {
	p := twoScenarios(t)
	opts := testOpts
	opts.Runs = 2
	one, four := p.runJobs(opts, 1), p.runJobs(opts, 4)
	strip := func(runs []sealedRun) []sealedRun {
		out := slices.Clone(runs)
		for i := range out {
			out[i].Bundle, out[i].Receipt = store.Digest{}, store.Digest{} // the bundles hold start times
		}
		return out
	}
	if d := cmp.Diff(strip(one), strip(four)); d != "" {
		t.Errorf("--parallel 1 and 4 differ (-1 +4):\n%s", d)
	}
	statuses := map[string]int{}
	for _, r := range one {
		statuses[fmt.Sprint(r.Scenario, r.Case, r.Status)]++
	}
	want := map[string]int{"rows1pass": 2, "rows2fail": 2, "where0pass": 2}
	if !maps.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
}

// Two live runs of the same evidence are two bundles (each run is one: its start time,
// duration and repeat number are the bundle's) that share one evidence object and give one
// verdict, byte for byte; their receipts differ only in the bundle they name.
func TestIdenticalRunsShareEvidenceAndVerdict(t *testing.T) {
	p := newProject(t)
	p.write("where.yaml", scenario(t, "where", "where A-100", nil, whereChecks))
	opts := testOpts
	opts.Runs = 2
	runs := p.runJobs(opts, 1)
	a, b := runs[0], runs[1]
	if a.Bundle == b.Bundle {
		t.Error("two runs share a bundle id")
	}
	if a.Evidence != b.Evidence || a.Verdict != b.Verdict || a.Canonical != b.Canonical {
		t.Errorf("evidence %s / %s, verdict %s / %s", a.Evidence, b.Evidence, a.Verdict, b.Verdict)
	}
	if a.Receipt == b.Receipt {
		t.Error("two bundles share a receipt")
	}
}
