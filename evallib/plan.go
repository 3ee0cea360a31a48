package evallib

import (
	"context"
	"fmt"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// PlanOptions say what to run.
type PlanOptions struct {
	Agent evalrun.Agent
	// Scenarios are scenario ids; empty means every scenario in the store.
	Scenarios []string
	// Catalogue is the variation catalogue; Variations are ids from it, and empty means all.
	Catalogue  *evalfmt.Catalogue
	Variations []string
	// Baseline includes the baseline cells; Matrix plans set it, a single `eval run` of a
	// variation does not.
	Baseline bool
	// NoVariations leaves every variation out (a baseline-only `eval run`).
	NoVariations bool
	// Runs is the number of runs per cell.
	Runs int
	// Rerun runs every cell again instead of reusing recorded runs.
	Rerun bool
	// Limits bound each run; a recorded run is reused only when they would not have changed
	// its outcome (evalrun.Limits.Reusable).
	Limits evalrun.Limits
}

// Cell is one planned cell: a scenario under the baseline (Variation nil) or one variation.
type Cell struct {
	Scenario  *evalfmt.Scenario
	Variation *evalfmt.Variation
	// Request is what every run of the cell sends; Key identifies the cell (see CellKey).
	Request []byte
	Key     store.Digest
	// Reused are the recorded runs the cell reuses, by run number.
	Reused map[int]store.Descriptor
}

// VariationID is the cell's variation id, store.EvalBaseline for the baseline.
func (c *Cell) VariationID() string {
	if c.Variation == nil {
		return store.EvalBaseline
	}
	return c.Variation.ID
}

// Plan is what a run or a matrix will do: its cells, and the runs to make.
type Plan struct {
	Options   PlanOptions
	Scenarios []*evalfmt.Scenario
	Cells     []*Cell
	Jobs      []*evalrun.Job
	// ReusedRuns counts the runs reused; ReusedCells the cells with every run reused.
	ReusedRuns, ReusedCells int
	// AgentFiles are the agent's files as they were when the plan was made: part of every
	// cell key, so runs of the agent before an edit of its files are not reused.
	AgentFiles []evalrun.AgentFile
}

// NewPlan resolves the scenarios and variations, builds every cell's request and looks up the
// runs already recorded for it. It only reads the store.
func NewPlan(ctx context.Context, r Reader, opts PlanOptions) (*Plan, error) {
	if opts.Runs < 1 {
		return nil, fmt.Errorf("evallib: runs per cell must be at least 1, got %d", opts.Runs)
	}
	// The agent's files first: a pattern that names nothing usable is said before anything else.
	files, err := evalrun.FilesOf(opts.Agent)
	if err != nil {
		return nil, err
	}
	scenarios, err := planScenarios(ctx, r, opts.Scenarios)
	if err != nil {
		return nil, err
	}
	variations, err := planVariations(opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{Options: opts, Scenarios: scenarios, AgentFiles: files}
	for _, s := range scenarios {
		if opts.Baseline || opts.NoVariations {
			if err := p.addCell(ctx, r, s, nil); err != nil {
				return nil, err
			}
		}
		for _, v := range variations {
			if err := p.addCell(ctx, r, s, v); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func planScenarios(ctx context.Context, r Reader, ids []string) ([]*evalfmt.Scenario, error) {
	if len(ids) == 0 {
		all, err := ListScenarios(ctx, r)
		if err != nil {
			return nil, err
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("%w: the store holds no scenario yet (add some with eval scenario add)", ErrUnknownScenario)
		}
		for _, v := range all {
			ids = append(ids, v.ID)
		}
	}
	seen := map[string]bool{}
	var out []*evalfmt.Scenario
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		v, err := LoadScenario(ctx, r, id)
		if err != nil {
			return nil, err
		}
		out = append(out, v.Scenario)
	}
	return out, nil
}

func planVariations(opts PlanOptions) ([]*evalfmt.Variation, error) {
	if opts.NoVariations {
		return nil, nil
	}
	if len(opts.Variations) == 0 {
		return opts.Catalogue.All(), nil
	}
	seen := map[string]bool{}
	var out []*evalfmt.Variation
	for _, id := range opts.Variations {
		if seen[id] {
			continue
		}
		seen[id] = true
		v, err := opts.Catalogue.Lookup(id)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// addCell plans one cell: its request, its key, its reused runs and the jobs for the others.
func (p *Plan) addCell(ctx context.Context, r Reader, s *evalfmt.Scenario, v *evalfmt.Variation) error {
	req, err := evalfmt.Request(s, v)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.ID, err)
	}
	c := &Cell{Scenario: s, Variation: v, Request: req, Key: CellKey(p.Options.Agent, p.AgentFiles, req), Reused: map[int]store.Descriptor{}}
	if !p.Options.Rerun {
		recorded, err := evalrun.LoadCell(ctx, r, c.Key)
		if err != nil {
			return err
		}
		if recorded != nil {
			for _, slot := range recorded.Runs {
				if slot.Run > p.Options.Runs {
					continue
				}
				if ok, err := p.reusable(ctx, r, slot.Bundle.Digest); err != nil {
					return fmt.Errorf("scenario %s, %s: %w", s.ID, c.VariationID(), err)
				} else if ok {
					c.Reused[slot.Run] = slot.Bundle
				}
			}
		}
	}
	def := definitionOf(s, v)
	for run := 1; run <= p.Options.Runs; run++ {
		if _, ok := c.Reused[run]; ok {
			continue
		}
		p.Jobs = append(p.Jobs, &evalrun.Job{Key: c.Key, Run: run, Scenario: s.Ref(), Variation: variationRef(v),
			Request: req, Definition: def})
	}
	p.ReusedRuns += len(c.Reused)
	if len(c.Reused) == p.Options.Runs {
		p.ReusedCells++
	}
	p.Cells = append(p.Cells, c)
	return nil
}

// reusable reports whether the recorded run d would have ended the same under the plan's
// limits.
func (p *Plan) reusable(ctx context.Context, r Reader, d store.Digest) (bool, error) {
	b, err := r.GetObject(ctx, d)
	if err != nil {
		return false, fmt.Errorf("run %s: %w", d.Short(), err)
	}
	var m store.EvalRun
	if err := store.Decode(b, &m); err != nil {
		return false, fmt.Errorf("run %s: %w", d.Short(), err)
	}
	return p.Options.Limits.Reusable(&m), nil
}

func variationRef(v *evalfmt.Variation) store.EvalVariationRef {
	if v == nil {
		return store.EvalVariationRef{ID: store.EvalBaseline}
	}
	return v.Ref()
}

// definitionOf is the profile tree a run pins: the scenario as added and the variation entry.
func definitionOf(s *evalfmt.Scenario, v *evalfmt.Variation) evalrun.Definition {
	def := evalrun.Definition{ID: s.ID, Version: store.EvalBaseline,
		Files: []evalrun.File{{Path: evalmetric.DefinitionScenario, MediaType: store.MediaTypeEvalScenarioContent, Content: s.Canonical}}}
	if v != nil {
		def.Version = v.ID
		def.Files = append(def.Files, evalrun.File{Path: evalmetric.DefinitionVariation, MediaType: store.MediaTypeEvalVariation, Content: v.Canonical})
	}
	return def
}

// CellKey identifies a cell: the agent (how it is reached, its version label and the digests of
// its files) and the digest of the request it is sent. Runs recorded under a key are reused by
// any later run or matrix with the same key (docs/decisions.md, "Eval Library: reuse", "the
// agent's files are part of its identity"). An agent without files has the key it had before
// files were part of it, so its recorded runs stay reusable.
func CellKey(a evalrun.Agent, files []evalrun.AgentFile, request []byte) store.Digest {
	b, err := store.Marshal(struct {
		Agent   store.EvalAgent     `json:"agent"`
		Version string              `json:"version"`
		Files   []evalrun.AgentFile `json:"files,omitempty"`
		Request store.Digest        `json:"request"`
	}{a.Endpoint(), a.Identity().Version, files, store.Sum(request)})
	if err != nil {
		panic("evallib: cell key: " + err.Error()) // strings and digests always encode
	}
	return store.Sum(b)
}
