package evallib

import (
	"context"
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// Name and Version identify this evaluator in receipts.
const (
	Name    = "oasis-replay eval-library evaluator"
	Version = "1"
)

// rules states the metric definitions this evaluator implements; its digest is the rules
// digest of receipts, so a change of definition shows in every receipt.
var rules = map[string]string{
	"match":           "every leaf of expected_behavior is present in the answer with an equal value: strings exact, numbers by decimal value, booleans, arrays of scalars as sets, an empty object any object; extra fields do not matter; a failed run or an answer that is not JSON matches nothing",
	"distance":        "over the union of leaf paths, 0 for an equal leaf, 1 for a different or one-sided leaf, Jaccard distance for two arrays of scalars; the sum divided by the union size; 0 when both are empty",
	"behaviour":       "a failed run has no leaves; an answer that is not JSON is one string leaf at the root",
	"shift_magnitude": "mean of D(v, b) over the variation runs v and the baseline runs b of the scenario",
	"noise_floor":     "mean of D over pairs of distinct baseline runs; none with fewer than two",
	"rounding":        "exact rationals, shown rounded half away from zero to 3 places",
	"flag":            "a variation cell whose shift magnitude, rounded, is above the threshold of its scenario's risk level",
}

// Info identifies this evaluator.
func Info() store.EvaluatorInfo {
	b, err := store.Marshal(rules)
	if err != nil {
		b = []byte(err.Error()) // constants: a failure is a defect, and names itself
	}
	return store.EvaluatorInfo{Name: Name, Version: Version, RulesDigest: store.Sum(b)}
}

// Result is a verdict with its canonical bytes, its digest and the receipt binding it to its
// bundle and definition.
type Result struct {
	Bundle     store.Digest
	Definition store.Digest
	Verdict    store.Object
	Canonical  []byte
	Digest     store.Digest
	Receipt    store.Receipt
}

// Evaluate derives the verdict of an Eval Library bundle d, whose manifest is m: a run (match,
// distance to the expected behaviour) or a matrix (every cell's metrics). It reads nothing but
// src.
func Evaluate(ctx context.Context, src Source, d store.Digest, m store.Manifest) (*Result, error) {
	return NewLoader(src).Evaluate(ctx, d, m)
}

// Evaluate is Evaluate reading through l, so that the runs of a batch parse each scenario once.
func (l *Loader) Evaluate(ctx context.Context, d store.Digest, m store.Manifest) (*Result, error) {
	var verdict store.Object
	switch m := m.(type) {
	case *store.EvalRun:
		run, err := l.RunOf(ctx, d, m)
		if err != nil {
			return nil, err
		}
		verdict, _ = EvaluateRun(run)
	case *store.EvalMatrix:
		matrix, runs, err := l.Matrix(ctx, d)
		if err != nil {
			return nil, err
		}
		if verdict, err = EvaluateMatrix(matrix, runs); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: bundle %s is a %s, not an Eval Library bundle", ErrInput, d.Short(), m.ObjectKind())
	}
	return NewResult(d, m, verdict)
}

// NewResult encodes a verdict of bundle d and makes its receipt.
func NewResult(d store.Digest, m store.Manifest, verdict store.Object) (*Result, error) {
	b, desc, err := store.Encode(verdict)
	if err != nil {
		return nil, fmt.Errorf("evallib: verdict of %s: %w", d.Short(), err)
	}
	r := &Result{Bundle: d, Definition: m.Definition(), Verdict: verdict, Canonical: b, Digest: desc.Digest,
		Receipt: store.Receipt{Bundle: d, Profile: m.Definition(), Evaluator: Info(), Verdict: desc.Digest,
			BundleKind: m.ObjectKind()}}
	return r, nil
}
