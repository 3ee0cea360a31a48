package evallib

import (
	"context"
	"errors"
	"fmt"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// Execution says how to run the jobs of a plan.
type Execution struct {
	Parallel int
	Recorder store.RecorderInfo
	Open     evalrun.Opener
	Progress evalrun.Progress
	SpoolDir string
}

// Execute runs the plan's jobs and seals each run as a bundle (evalrun.Execute) with its
// verdict and receipt. The store is opened only while finished runs are sealed.
func (p *Plan) Execute(ctx context.Context, x Execution) ([]evalrun.Recorded, error) {
	if len(p.Jobs) == 0 {
		return nil, nil
	}
	return evalrun.Execute(ctx, p.Jobs, evalrun.Options{Agent: p.Options.Agent, Parallel: x.Parallel,
		SpoolDir: x.SpoolDir, Recorder: x.Recorder, Limits: p.Options.Limits, Open: x.Open, Progress: x.Progress,
		Verdicts: runVerdicts})
}

// RunMatrix executes a matrix plan and seals the matrix. An interrupted matrix keeps every
// run that finished; the error then says so, and running the matrix again reuses them.
func RunMatrix(ctx context.Context, p *Plan, x Execution, t evalmetric.Thresholds) (*MatrixResult, error) {
	recorded, err := p.Execute(ctx, x)
	if errors.Is(err, evalrun.ErrInterrupted) {
		return nil, fmt.Errorf("%w: %d of %d runs recorded before the interruption; run the matrix again to finish it (recorded runs are reused)",
			ErrIncomplete, len(recorded), len(p.Jobs))
	}
	if err != nil {
		return nil, err
	}
	st, closeStore, err := x.Open(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	res, err := SealMatrix(context.WithoutCancel(ctx), st, p, t, x.Recorder)
	if closeErr := closeStore(); err == nil && closeErr != nil {
		err = closeErr
	}
	return res, err
}

// CellResult is what `eval run` reports for its cell: the runs' verdicts and the cell's
// metrics, with the shift measured against the baseline runs recorded for the same agent and
// scenario, when there are any.
type CellResult struct {
	Cell     *Cell
	Runs     []*evalmetric.RunVerdict
	Metrics  evalmetric.CellVerdict
	Baseline int // baseline runs compared with
}

// EvaluateCells derives the metrics of every cell of a plan (each run 1..N must be recorded),
// comparing each variation cell with the baseline runs recorded for its scenario and agent.
func EvaluateCells(ctx context.Context, r Reader, p *Plan, t evalmetric.Thresholds) ([]CellResult, error) {
	l := evalmetric.NewLoader(r)
	var out []CellResult
	for _, c := range p.Cells {
		runs, missing, err := cellRuns(ctx, r, c, p.Options.Runs)
		if err != nil {
			return nil, err
		}
		if missing > 0 {
			return nil, fmt.Errorf("%w: %d runs of %s/%s are not recorded", ErrIncomplete, missing, c.Scenario.ID, c.VariationID())
		}
		res := CellResult{Cell: c}
		facts, verdicts, err := loadFacts(ctx, l, runs)
		if err != nil {
			return nil, err
		}
		res.Runs = verdicts
		baseline := facts
		if c.Variation != nil {
			if baseline, err = recordedBaseline(ctx, r, l, p, c); err != nil {
				return nil, err
			}
			res.Baseline = len(baseline)
		}
		res.Metrics = evalmetric.EvaluateCell(c.Scenario.ID, c.VariationID(), c.Scenario.RiskLevel, facts, baseline, t)
		out = append(out, res)
	}
	return out, nil
}

func loadFacts(ctx context.Context, l *evalmetric.Loader, runs []store.Descriptor) ([]evalmetric.RunFacts, []*evalmetric.RunVerdict, error) {
	var facts []evalmetric.RunFacts
	var verdicts []*evalmetric.RunVerdict
	for _, d := range runs {
		run, err := l.Run(ctx, d.Digest)
		if err != nil {
			return nil, nil, err
		}
		v, f := evalmetric.EvaluateRun(run)
		facts = append(facts, f)
		verdicts = append(verdicts, v)
	}
	return facts, verdicts, nil
}

// recordedBaseline returns the baseline runs recorded for a cell's scenario and agent, in run
// order (every recorded run, not only the first N).
func recordedBaseline(ctx context.Context, r Reader, l *evalmetric.Loader, p *Plan, c *Cell) ([]evalmetric.RunFacts, error) {
	req, err := evalfmt.Request(c.Scenario, nil)
	if err != nil {
		return nil, err
	}
	cell, err := evalrun.LoadCell(ctx, r, CellKey(p.Options.Agent, p.AgentFiles, req))
	if err != nil || cell == nil {
		return nil, err
	}
	runs := make([]store.Descriptor, len(cell.Runs))
	for i, s := range cell.Runs {
		runs[i] = s.Bundle
	}
	facts, _, err := loadFacts(ctx, l, runs)
	return facts, err
}
