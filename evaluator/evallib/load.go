package evallib

import (
	"context"
	"fmt"
	"io"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// Paths of the files of a run's definition (its profile tree).
const (
	DefinitionScenario  = "scenario.json"
	DefinitionVariation = "variation.json"
)

// Source is what the evaluator reads bundles through; every store.Store is one.
type Source interface {
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Loader reads run bundles, parsing each scenario once.
type Loader struct {
	src       Source
	scenarios map[store.Digest]*evalfmt.Scenario
}

// NewLoader returns a loader reading from src.
func NewLoader(src Source) *Loader {
	return &Loader{src: src, scenarios: map[store.Digest]*evalfmt.Scenario{}}
}

// Run reads the run bundle d: its manifest, the scenario its definition pins (checked against
// the digests the manifest names) and its answer.
func (l *Loader) Run(ctx context.Context, d store.Digest) (*Run, error) {
	b, err := l.src.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Short(), err)
	}
	var m store.EvalRun
	if err := store.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Short(), err)
	}
	return l.RunOf(ctx, d, &m)
}

// RunOf reads what run bundle d's manifest m refers to: the scenario its definition pins
// (checked against the digests m names) and its answer. m must be the manifest whose digest is
// d: the caller has it already, decoded from d or about to be sealed as d.
func (l *Loader) RunOf(ctx context.Context, d store.Digest, m *store.EvalRun) (*Run, error) {
	s, err := l.scenario(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.Short(), err)
	}
	answer, err := l.blob(ctx, m.Answer)
	if err != nil {
		return nil, fmt.Errorf("run %s: answer: %w", d.Short(), err)
	}
	return &Run{Bundle: d, Manifest: m, Scenario: s, Answer: answer}, nil
}

// scenario reads the scenario of a run's definition, once per content digest.
func (l *Loader) scenario(ctx context.Context, m *store.EvalRun) (*evalfmt.Scenario, error) {
	b, err := l.src.GetObject(ctx, m.Tree)
	if err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	var tree store.ProfileTree
	if err := store.Decode(b, &tree); err != nil {
		return nil, fmt.Errorf("definition: %w", err)
	}
	var scenario, variation *store.Descriptor
	for i, e := range tree.Entries {
		switch e.Path {
		case DefinitionScenario:
			scenario = &tree.Entries[i].Blob
		case DefinitionVariation:
			variation = &tree.Entries[i].Blob
		}
	}
	switch {
	case scenario == nil || scenario.Digest != m.Scenario.Content:
		return nil, fmt.Errorf("%w: the definition does not hold scenario content %s", ErrInput, m.Scenario.Content.Short())
	case m.Variation.ID == store.EvalBaseline && variation != nil:
		return nil, fmt.Errorf("%w: a baseline run's definition holds a variation", ErrInput)
	case m.Variation.ID != store.EvalBaseline && (variation == nil || variation.Digest != m.Variation.Digest):
		return nil, fmt.Errorf("%w: the definition does not hold variation %s %s", ErrInput, m.Variation.ID, m.Variation.Digest.Short())
	}
	if s, ok := l.scenarios[scenario.Digest]; ok {
		return s, nil
	}
	content, err := l.blob(ctx, *scenario)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", m.Scenario.ID, err)
	}
	s, err := evalfmt.LoadCanonical(m.Scenario.ID+".json", content)
	if err != nil {
		return nil, err
	}
	if s.ID != m.Scenario.ID || s.RiskLevel != m.Scenario.RiskLevel {
		return nil, fmt.Errorf("%w: the manifest names scenario %s (%s), its content is %s (%s)", ErrInput,
			m.Scenario.ID, m.Scenario.RiskLevel, s.ID, s.RiskLevel)
	}
	l.scenarios[scenario.Digest] = s
	return s, nil
}

func (l *Loader) blob(ctx context.Context, d store.Descriptor) ([]byte, error) {
	r, size, err := l.src.OpenBlob(ctx, d.Digest)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if size != d.Size || size > evalfmt.AnswerLimits.MaxBytes {
		return nil, fmt.Errorf("%w: blob %s has %d bytes (the manifest says %d)", ErrInput, d.Digest.Short(), size, d.Size)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// Matrix reads a matrix bundle and every run it names.
func (l *Loader) Matrix(ctx context.Context, d store.Digest) (*store.EvalMatrix, map[store.Digest]*Run, error) {
	b, err := l.src.GetObject(ctx, d)
	if err != nil {
		return nil, nil, fmt.Errorf("matrix %s: %w", d.Short(), err)
	}
	var m store.EvalMatrix
	if err := store.Decode(b, &m); err != nil {
		return nil, nil, fmt.Errorf("matrix %s: %w", d.Short(), err)
	}
	runs := map[store.Digest]*Run{}
	for _, c := range m.Cells {
		for _, r := range c.Runs {
			if _, ok := runs[r.Digest]; ok {
				continue
			}
			run, err := l.Run(ctx, r.Digest)
			if err != nil {
				return nil, nil, fmt.Errorf("matrix %s: %w", d.Short(), err)
			}
			runs[r.Digest] = run
		}
	}
	return &m, runs, nil
}
