package kensastats

import (
	"context"
	"fmt"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Gather loads and replays every Kensa run sealed in s, twice each: the second evaluation's
// verdict digest must equal the first's, or the run counts towards evaluator_variance.
func Gather(ctx context.Context, s store.Store) ([]Run, error) {
	bundles, err := store.SealedBundles(ctx, s)
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, d := range bundles {
		b, err := s.GetObject(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", d, err)
		}
		h, err := store.PeekHeader(b)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", d, err)
		}
		if h.Kind != store.KindKensaRun {
			continue
		}
		run, err := replayRun(ctx, s, d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	return runs, nil
}

func replayRun(ctx context.Context, s store.Store, d store.Digest) (Run, error) {
	b, err := replay.LoadKensa(ctx, s, d)
	if err != nil {
		return Run{}, err
	}
	first, err := b.Evaluate()
	if err != nil {
		return Run{}, err
	}
	second, err := b.Evaluate()
	if err != nil {
		return Run{}, err
	}
	r := first.Result
	run := Run{Bundle: d, Scenario: r.ScenarioID, Case: r.Case, RunID: b.Manifest.RunID, Status: r.Status,
		Checks: r.CheckResults, Observed: ekensa.Observe(b.Evidence), Reproduced: first.Verdict == second.Verdict, Verdict: first.Verdict}
	if r.Judge != nil && r.Judge.Status == "recorded" {
		passed := r.Judge.Passed
		run.Judged = &passed
	}
	if r.Trace != nil {
		run.HasTrace, run.Cost, run.Duration = true, r.Trace.CostUSD, r.Trace.DurationSeconds
	}
	return run, nil
}
