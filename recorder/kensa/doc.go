// Package kensa records Kensa runs as bundles, two ways: Import reads a .kensa directory that
// Kensa itself wrote (scenarios, judge specs, datasets, run manifests, traces, results) and
// seals one bundle per recorded run; Run executes scenarios as Kensa's runner does, captures
// each run's output and spans, and seals it.
//
// # One bundle per run
//
// A bundle is one run of one scenario: one dataset row, one repeat. Its manifest
// (store.KensaRun) pins the scenario's definition as a profile tree (the scenario file
// byte-exact, its judge spec, its dataset, the price table used), and refers to the input, the
// dataset row, stdout and stderr, the trace in Kensa's span model (what the evaluator reads),
// the raw span sources it came from, the recorded judgement, and for imported runs Kensa's own
// result and run record, which audit compares with what the evidence gives.
//
// # Spans
//
// A run's agent gets KENSA_TRACE_DIR (a directory where Kensa's exporter writes spans.jsonl)
// and OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (an OTLP/HTTP receiver
// on the loopback interface, recorder/otlpreceiver, for the run's duration). Every body and
// file is kept byte-exact as a span source; the spans are decoded by formats/otlp, read as
// OpenInference or GenAI spans, costed with the pinned price table where they state no cost,
// and written as Kensa's trace (formats/kensa.WriteTrace), in start-time order of arrival.
//
// # Crash safety
//
// Run never holds the store while agents run: each run's evidence is spooled to a directory of
// its own, and the store is opened only to seal a finished run. A killed `kensa run` loses at
// most the runs in flight; every sealed bundle is complete (store.Seal writes the ref last).
package kensa
