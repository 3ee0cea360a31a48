// Package demo is the built-in example's walkthrough: Run, which `oasis-replay demo` calls to
// show the whole pipeline, in seconds and offline, on the example profile and run embedded in
// the binary (package internal/example, which describes them).
//
// # Run
//
// Run records the example run with recorder.RecordOasisctlFS, pinned to the example profile
// (imported along with the recording), tags it (DefaultTag, "demo"), replays it with package
// replay exactly as the replay command does, stores the verdict and its receipt, and audits
// the claimed report with package report. Recording and evaluation are deterministic, so Run
// is idempotent: the same bundle digest, verdict and receipt every time, nothing new written.
// WriteWalkthrough renders the result for a newcomer.
package demo
