package kensastats

import (
	"context"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Gather loads and replays every Kensa run sealed in s, twice each: the second evaluation's
// verdict digest must equal the first's, or the run counts towards evaluator_variance. Runs
// are loaded and replayed concurrently (replay.EachKensa) and returned in bundle order.
func Gather(ctx context.Context, s store.Store) ([]Run, error) {
	return replay.EachKensa(ctx, s, nil, replayRun)
}

func replayRun(b *replay.KensaBundle) (Run, error) {
	first, err := b.Verdict()
	if err != nil {
		return Run{}, err
	}
	second, err := b.Verdict()
	if err != nil {
		return Run{}, err
	}
	r := first.Result
	run := Run{Bundle: b.Digest, Scenario: r.ScenarioID, Case: r.Case, RunID: b.Manifest.RunID, Status: r.Status,
		Checks: r.CheckResults, Observed: ekensa.Observe(b.Evidence), Reproduced: first.Verdict == second.Verdict, Verdict: first.Verdict}
	if r.Judge != nil && r.Judge.Status == "recorded" {
		passed := r.Judge.Passed
		run.Judged = &passed
	}
	run.Reason, run.Definition = Reason(b.Exit, r), b.Manifest.DefinitionTree
	run.Time, _ = recordedTime(b.Manifest)
	if r.Trace != nil {
		run.HasTrace, run.Cost, run.Duration = true, r.Trace.CostUSD, r.Trace.DurationSeconds
	}
	return run, nil
}
