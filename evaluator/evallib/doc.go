// Package evallib is the pure evaluator of the Eval Library: match, distance, shift magnitude,
// noise floor and flags, from run and matrix bundles, with no clock, randomness, environment or
// map order reaching a verdict (issue "Metrics, pure and replayable").
//
// # Behaviour and leaves
//
// An answer is flattened to its leaves with doc.Leaves: scalars, empty objects, and arrays of
// scalars (kept whole, as sets). A scalar is identified by kind and value, numbers by their
// exact decimal value (1, 1.0 and 1e0 are one value). An answer that is not JSON is one string
// leaf at the root. A failed run (the agent exited non-zero, timed out, answered over its cap,
// or an HTTP endpoint answered outside 2xx) has no leaves: it shows no behaviour.
//
// # Metrics
//
//   - Match: every leaf of expected_behavior is in the answer with an equal value; arrays of
//     scalars equal as sets; an empty object expects any object; extra fields do not matter. A
//     failed run and an answer that is not JSON match nothing. Match rate = matched runs / runs.
//   - Distance D(a, b): over the union U of leaf paths, δ = 0 for an equal leaf, 1 for a
//     different or one-sided one, the Jaccard distance for two arrays of scalars; D = Σδ/|U|,
//     0 when both are empty.
//   - Shift magnitude of a variation cell: the mean of D(v, b) over its runs v and the baseline
//     runs b of its scenario. Noise floor: the mean of D over pairs of distinct baseline runs
//     (none with fewer than two).
//   - Flag: a variation cell whose shift magnitude, as shown (rounded to three places), is
//     above the threshold of its scenario's risk level (DefaultThresholds).
//
// Every value is an exact rational (Ratio); verdicts keep it as a fraction and rounded half
// away from zero to three places.
//
// # Verdicts
//
// Evaluate reads a bundle through a Source (any store) and derives its verdict: for a run
// (RunVerdict) the match, leaf by leaf, and the distance to the expected behaviour; for a matrix
// (MatrixVerdict) every cell's metrics and every distance they average. Verdicts are verdict
// objects (store.KindVerdict) in canonical JSON; Result carries the receipt binding bundle,
// definition, evaluator (Info: name, version, and the digest of the metric definitions) and
// verdict digest.
package evallib
