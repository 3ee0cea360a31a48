package replay

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultSeed seeds the evaluation-order permutations of Repeat when RepeatOptions.Seed is 0.
const DefaultSeed uint64 = 0x6f61736973 // "oasis"

// procsCycle is the GOMAXPROCS of successive runs.
var procsCycle = []int{1, 2, 4, 8}

// RepeatOptions tune Repeat.
type RepeatOptions struct {
	// Runs is the number of evaluations (at least 1).
	Runs int
	// Only selects scenarios, as Options.Only.
	Only []string
	// Seed seeds the order permutations; 0 means DefaultSeed.
	Seed uint64

	// tamper, set by tests, may alter the canonical verdict of a run (1-based) to inject a
	// divergence.
	tamper func(run int, canonical []byte) []byte
}

// Setting is how one run of Repeat evaluated.
type Setting struct {
	// Run is the 1-based run number.
	Run        int
	GOMAXPROCS int
	Workers    int
	// Order is the permutation of manifest indices handed to the evaluator; nil is manifest
	// order.
	Order []int
	// Seed and Stream reproduce Order: rand.New(rand.NewPCG(Seed, Stream)).Perm(n).
	Seed, Stream uint64
}

// String renders the setting on one line.
func (s Setting) String() string {
	order := "manifest order"
	if s.Order != nil {
		order = fmt.Sprintf("order permuted by PCG(seed %#x, stream %d)", s.Seed, s.Stream)
	}
	return fmt.Sprintf("run %d: GOMAXPROCS=%d, %d worker(s), %s", s.Run, s.GOMAXPROCS, s.Workers, order)
}

// settingFor returns the setting of run k (1-based) for a manifest of n scenarios.
func settingFor(k, n int, seed uint64) Setting {
	procs := procsCycle[(k-1)%len(procsCycle)]
	s := Setting{Run: k, GOMAXPROCS: procs, Workers: 1, Seed: seed, Stream: uint64(k)}
	if ((k-1)/len(procsCycle))%2 == 1 {
		s.Workers = procs
	}
	if k > 1 {
		s.Order = rand.New(rand.NewPCG(seed, s.Stream)).Perm(n)
	}
	return s
}

// RepeatResult is the outcome of Repeat.
type RepeatResult struct {
	// Runs is the number of evaluations done.
	Runs int
	// First is run 1's evaluation, with its receipt: the verdict every run must reproduce.
	First *Result
	// Divergence is the first run that did not reproduce it, nil if every run did.
	Divergence *Divergence
}

// Divergence is a run whose verdict differs from run 1's, or that failed where run 1 did not.
type Divergence struct {
	Baseline, Setting Setting
	Want, Got         store.Digest
	// Err is the run's evaluation error, when it failed instead of giving a verdict.
	Err error
	// Differences are the first differences between the verdicts, in path order; Truncated
	// says there were more.
	Differences []doc.Difference
	Truncated   bool
	// Scenario and Field locate the first difference: the scenario id when it lies inside
	// scenarios[], and the JSON Pointer of the field inside that scenario (or inside the
	// verdict when Scenario is "").
	Scenario, Field string
}

// Repeat evaluates the bundle opts.Runs times under the settings of settingFor and proves that
// every run gives run 1's verdict byte for byte, or reports the first that does not. An error
// of run 1 is returned as is.
func (b *Bundle) Repeat(ctx context.Context, opts RepeatOptions) (*RepeatResult, error) {
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	n := len(b.Run.Manifest.Scenarios)
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	var out RepeatResult
	var first Setting
	for k := 1; k <= max(opts.Runs, 1); k++ {
		s := settingFor(k, n, seed)
		runtime.GOMAXPROCS(s.GOMAXPROCS)
		v, canonical, err := b.evaluate(ctx, evaluator.Options{Only: opts.Only, Workers: s.Workers, Order: s.Order})
		if err == nil && opts.tamper != nil {
			canonical = opts.tamper(k, canonical)
		}
		out.Runs = k
		if k == 1 {
			if err != nil {
				return nil, err
			}
			receipt, err := NewReceipt(b.Digest, b.Run.Manifest.Profile.Tree, store.Sum(canonical))
			if err != nil {
				return nil, err
			}
			out.First, first = &Result{Bundle: b, Verdict: v, Canonical: canonical, Receipt: receipt}, s
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			out.Divergence = &Divergence{Baseline: first, Setting: s, Want: out.First.Receipt.Verdict, Err: err}
			return &out, nil
		}
		if !bytes.Equal(canonical, out.First.Canonical) {
			out.Divergence = diverge(first, s, out.First, canonical)
			return &out, nil
		}
	}
	return &out, nil
}

// diverge describes how got differs from the baseline verdict.
func diverge(baseline, s Setting, want *Result, got []byte) *Divergence {
	d := &Divergence{Baseline: baseline, Setting: s, Want: want.Receipt.Verdict, Got: store.Sum(got)}
	d.Differences, d.Truncated, d.Err = verdictDiff(want.Canonical, got)
	if len(d.Differences) > 0 {
		d.Scenario, d.Field = locate(want.Verdict, d.Differences[0].Path)
	}
	return d
}

// verdictDiff lists the first differences between two canonical verdicts.
func verdictDiff(want, got []byte) (diffs []doc.Difference, truncated bool, err error) {
	diffs, truncated, err = doc.DiffJSON("verdict 1", want, "verdict 2", got, doc.Limits{MaxBytes: 1 << 30}, doc.DiffOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("the verdicts cannot be compared: %w", err)
	}
	return diffs, truncated, nil
}

// locate maps a JSON Pointer into a verdict to the scenario it lies in and the field inside
// it. Paths outside scenarios[] return "" and the path itself.
func locate(v *evaluator.Verdict, path string) (scenario, field string) {
	rest, ok := strings.CutPrefix(path, "/scenarios/")
	if !ok {
		return "", path
	}
	index, field, _ := strings.Cut(rest, "/")
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= len(v.Scenarios) {
		return "", path
	}
	if field != "" {
		field = "/" + field
	}
	return v.Scenarios[i].ID, field
}
