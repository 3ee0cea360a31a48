package evallib

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// MatrixResult is a sealed matrix with its verdict.
type MatrixResult struct {
	Bundle   store.Digest
	Manifest *store.EvalMatrix
	Verdict  *evalmetric.MatrixVerdict
	// Previous is the verdict of the matrix run before over the same scenarios, if any.
	Previous *MatrixSummary
	// Opened lists the review items opened for flagged cells (existing items are not repeated).
	Opened []string
}

// MatrixSummary is a matrix bundle and its verdict.
type MatrixSummary struct {
	Bundle   store.Digest
	Manifest *store.EvalMatrix
	Verdict  *evalmetric.MatrixVerdict
}

// SealMatrix seals the matrix of plan p once all its runs are recorded: the matrix bundle
// (every cell's runs 1..N, the scenarios and variation entries as its definition, the flag
// thresholds), its verdict and receipt, the refs that name it as the latest matrix of its
// scenarios, and an open review item for every flagged cell that has none. A run missing from a
// cell (the matrix was interrupted) is ErrIncomplete: run the matrix again to record it.
func SealMatrix(ctx context.Context, st store.Store, p *Plan, t evalmetric.Thresholds, recorder store.RecorderInfo) (*MatrixResult, error) {
	m := &store.EvalMatrix{Recorder: recorder, Agent: p.Options.Agent.Identity(), Endpoint: p.Options.Agent.Endpoint(),
		RunsPerCell: p.Options.Runs, Thresholds: t.Map()}
	for _, s := range p.Scenarios {
		m.Scenarios = append(m.Scenarios, s.Ref())
	}
	missing := 0
	for _, c := range p.Cells {
		runs, lost, err := cellRuns(ctx, st, c, p.Options.Runs)
		if err != nil {
			return nil, err
		}
		missing += lost
		m.Cells = append(m.Cells, store.EvalCell{Scenario: c.Scenario.ID, Variation: c.VariationID(), Runs: runs})
	}
	if missing > 0 {
		return nil, fmt.Errorf("%w: %d runs are not recorded; run the matrix again to record them (recorded runs are reused)", ErrIncomplete, missing)
	}
	tree, err := putMatrixDefinition(ctx, st, p)
	if err != nil {
		return nil, err
	}
	m.Tree = tree
	set := scenarioSet(p.Scenarios)
	previous, err := latestMatrix(ctx, st, store.EvalMatrixRefName(set))
	if err != nil && !errors.Is(err, ErrNoMatrix) {
		return nil, err
	}
	if previous != nil {
		// Nothing changed since the previous matrix (every run reused, same thresholds): it is
		// that matrix again, not a new one, and it is compared with its own predecessor.
		m.Previous = previous.Manifest.Previous
		if _, same, _ := store.Encode(m); same.Digest == previous.Bundle {
			if previous, err = loadSummary(ctx, st, m.Previous); err != nil {
				return nil, err
			}
		} else {
			m.Previous = &previous.Bundle
		}
	}
	d, err := store.Seal(ctx, st, m)
	if err != nil {
		return nil, err
	}
	// A matrix sealed before (the same matrix again) has its verdict already.
	verdict, err := storedVerdict(ctx, st, d)
	if err == nil && verdict == nil {
		verdict, err = saveVerdict(ctx, st, d, m)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range []string{store.EvalMatrixRefName(set), store.RefEvalLatestMatrix} {
		if err := st.SetRef(ctx, name, d); err != nil {
			return nil, err
		}
	}
	opened, err := openReviews(ctx, st, d, m, verdict)
	if err != nil {
		return nil, err
	}
	return &MatrixResult{Bundle: d, Manifest: m, Verdict: verdict, Previous: previous, Opened: opened}, nil
}

// cellRuns returns the recorded runs 1..n of a cell, and how many are missing.
func cellRuns(ctx context.Context, r Reader, c *Cell, n int) ([]store.Descriptor, int, error) {
	recorded, err := evalrun.LoadCell(ctx, r, c.Key)
	if err != nil {
		return nil, 0, err
	}
	runs := make([]store.Descriptor, 0, n)
	missing := 0
	for run := 1; run <= n; run++ {
		i := -1
		if recorded != nil {
			i = slices.IndexFunc(recorded.Runs, func(s store.EvalRunSlot) bool { return s.Run == run })
		}
		if i < 0 {
			missing++
			continue
		}
		runs = append(runs, recorded.Runs[i].Bundle)
	}
	return runs, missing, nil
}

// putMatrixDefinition stores the matrix's profile tree: every scenario and variation entry.
func putMatrixDefinition(ctx context.Context, st store.Store, p *Plan) (store.Digest, error) {
	def := evalrun.Definition{ID: "eval-matrix", Version: "1"}
	seen := map[string]bool{}
	for _, c := range p.Cells {
		path := "scenarios/" + c.Scenario.ID + ".json"
		if !seen[path] {
			seen[path] = true
			def.Files = append(def.Files, evalrun.File{Path: path, MediaType: store.MediaTypeEvalScenarioContent, Content: c.Scenario.Canonical})
		}
		if c.Variation != nil {
			path := "variations/" + c.Variation.ID + ".json"
			if !seen[path] {
				seen[path] = true
				def.Files = append(def.Files, evalrun.File{Path: path, MediaType: store.MediaTypeEvalVariation, Content: c.Variation.Canonical})
			}
		}
	}
	return evalrun.PutDefinition(ctx, st, def)
}

// scenarioSet identifies a set of scenarios, whatever their order or versions: the matrix of
// the same set run before is the one a new matrix is compared with.
func scenarioSet(scenarios []*evalfmt.Scenario) store.Digest {
	ids := make([]string, len(scenarios))
	for i, s := range scenarios {
		ids[i] = s.ID
	}
	slices.Sort(ids)
	return store.Sum([]byte(strings.Join(ids, "\n")))
}

// latestMatrix reads the matrix a ref names, with its verdict.
func latestMatrix(ctx context.Context, r Reader, ref string) (*MatrixSummary, error) {
	d, err := r.GetRef(ctx, ref)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w yet in this store: run eval matrix first", ErrNoMatrix)
	}
	if err != nil {
		return nil, err
	}
	return loadSummary(ctx, r, &d)
}

// LatestMatrix returns the latest matrix recorded in the store, or ErrNoMatrix.
func LatestMatrix(ctx context.Context, r Reader) (*MatrixSummary, error) {
	return latestMatrix(ctx, r, store.RefEvalLatestMatrix)
}

// LoadMatrix returns matrix bundle d with its verdict: the stored one when its receipt is in
// the store, else derived from the runs.
func LoadMatrix(ctx context.Context, r Reader, d store.Digest) (*MatrixSummary, error) {
	return loadSummary(ctx, r, &d)
}

func loadSummary(ctx context.Context, r Reader, d *store.Digest) (*MatrixSummary, error) {
	if d == nil {
		return nil, nil
	}
	b, err := r.GetObject(ctx, *d)
	if err != nil {
		return nil, fmt.Errorf("matrix %s: %w", d.Short(), err)
	}
	var m store.EvalMatrix
	if err := store.Decode(b, &m); err != nil {
		return nil, fmt.Errorf("matrix %s: %w", d.Short(), err)
	}
	v, err := storedVerdict(ctx, r, *d)
	if err != nil {
		return nil, err
	}
	if v == nil {
		res, err := evalmetric.Evaluate(ctx, r, *d, &m)
		if err != nil {
			return nil, err
		}
		v = res.Verdict.(*evalmetric.MatrixVerdict)
	}
	return &MatrixSummary{Bundle: *d, Manifest: &m, Verdict: v}, nil
}

// RecordedReceipt returns the receipt stored for bundle d (ref eval/verdicts/<bundle>), when
// there is one and this evaluator made it; nil otherwise.
func RecordedReceipt(ctx context.Context, r Reader, d store.Digest) (*store.Receipt, error) {
	rd, err := r.GetRef(ctx, store.EvalVerdictRefName(d))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := r.GetObject(ctx, rd)
	if err != nil {
		return nil, err
	}
	receipt, err := store.DecodeReceipt(b)
	if err != nil {
		return nil, err
	}
	if receipt.Evaluator != evalmetric.Info() || receipt.Bundle != d {
		return nil, nil
	}
	return receipt, nil
}

// storedVerdict reads the matrix verdict its receipt names, when the receipt is in the store
// and was made by this evaluator; nil otherwise.
func storedVerdict(ctx context.Context, r Reader, d store.Digest) (*evalmetric.MatrixVerdict, error) {
	receipt, err := RecordedReceipt(ctx, r, d)
	if receipt == nil || err != nil {
		return nil, err
	}
	vb, err := r.GetObject(ctx, receipt.Verdict)
	if err != nil {
		return nil, err
	}
	var v evalmetric.MatrixVerdict
	if err := store.Decode(vb, &v); err != nil {
		return nil, fmt.Errorf("verdict of matrix %s: %w", d.Short(), err)
	}
	return &v, nil
}

// saveVerdict derives the verdict of bundle d, stores it with its receipt and names the
// receipt by the ref eval/verdicts/<bundle>.
func saveVerdict(ctx context.Context, st store.Store, d store.Digest, m store.Manifest) (*evalmetric.MatrixVerdict, error) {
	res, err := evalmetric.Evaluate(ctx, st, d, m)
	if err != nil {
		return nil, err
	}
	if err := SaveResult(ctx, st, res); err != nil {
		return nil, err
	}
	v, _ := res.Verdict.(*evalmetric.MatrixVerdict)
	return v, nil
}

// SaveResult stores a verdict and its receipt, then the ref eval/verdicts/<bundle> naming the
// receipt.
func SaveResult(ctx context.Context, st store.Store, res *evalmetric.Result) error {
	ref, err := putResult(ctx, st, res)
	if err != nil {
		return err
	}
	if err := st.Sync(ctx); err != nil {
		return err
	}
	return st.SetRef(ctx, ref.Name, ref.Digest)
}

// putResult stores a verdict and its receipt, not synced, and returns the ref that will name
// the receipt.
func putResult(ctx context.Context, st store.Store, res *evalmetric.Result) (store.Ref, error) {
	if _, err := st.PutObject(ctx, res.Canonical); err != nil {
		return store.Ref{}, fmt.Errorf("evallib: store verdict: %w", err)
	}
	desc, err := store.Put(ctx, st, &res.Receipt)
	if err != nil {
		return store.Ref{}, fmt.Errorf("evallib: store receipt: %w", err)
	}
	return store.Ref{Name: store.EvalVerdictRefName(res.Bundle), Digest: desc.Digest}, nil
}

// runVerdicts is the runner's Options.Verdicts: it derives the verdict of every run of a batch
// from what the batch stored and stores it with its receipt, so that replaying a run right after
// it was recorded proves the verdict's digest, as for a matrix.
func runVerdicts(ctx context.Context, st store.Store, runs []evalrun.Recorded) ([]store.Ref, error) {
	l := evalmetric.NewLoader(st)
	refs := make([]store.Ref, 0, len(runs))
	for _, r := range runs {
		res, err := l.Evaluate(ctx, r.Bundle, r.Manifest)
		if err != nil {
			return nil, err
		}
		ref, err := putResult(ctx, st, res)
		if err != nil {
			return nil, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}
