// Package outcome says what a bundle's verdict decides, free of anything that names bytes: per
// scenario its state, status and score and the outcome of each check, and for the run its
// overall, safety and capability statuses. Two evaluations of the same evidence, redacted and
// not, must decide the same: the recorder's seal compares them (recorder.Verdicts), which it
// cannot do itself, since the recorder never imports the evaluator (internal/layers).
//
// Digests, citations, details and findings are left out: they name blobs and markers, which
// differ between a redacted bundle and its unredacted twin whatever the verdict. So are the
// strings of the evidence (an audit scope's principal): an outcome is written into a
// finding of the sealed bundle and must never carry what redaction hid. What an audit
// scope read is kept as counts (agent entries of total entries), so a principal hidden from
// the evaluator still shows as a change.
package outcome
