// Package kensa records Kensa runs as bundles, two ways: Import reads a .kensa directory that
// Kensa itself wrote (scenarios, judge specs, datasets, run manifests, traces, results) and
// seals one bundle per recorded run; Run executes scenarios as Kensa's runner does, captures
// each run's output and spans, and seals it.
//
// # One bundle per run
//
// A bundle is one run of one scenario: one dataset row, one repeat. Its evidence object
// (store.KensaEvidence) pins the scenario's definition as a profile tree (the scenario file
// byte-exact, its judge spec, its dataset, the price table used), and refers to the input, the
// dataset row, stdout and stderr, the trace in Kensa's span model (what the evaluator reads),
// the raw span sources it came from and the recorded judgement: nothing from a clock, so runs
// that saw the same thing share it. The manifest (store.KensaRun, the bundle id) refers to the
// evidence and holds the run itself: its run id, repeat number and tag, its start time and
// duration, the recorder's findings, and for imported runs Kensa's own result and run record,
// which audit compares with what the evidence gives.
//
// # Spans
//
// A run's agent gets KENSA_TRACE_DIR (a directory where Kensa's exporter writes spans.jsonl)
// and OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (an OTLP/HTTP receiver
// on the loopback interface, recorder/otlpreceiver, for the run's duration), with
// OTEL_EXPORTER_OTLP_PROTOCOL / OTEL_EXPORTER_OTLP_TRACES_PROTOCOL set to http/protobuf unless
// the scenario's env_overrides set either (the receiver speaks no gRPC). Every file and every
// body (decompressed when sent with gzip) is kept byte-exact as a span source; the spans are decoded by formats/otlp, read as
// OpenInference or GenAI spans, costed with the pinned price table where they state no cost,
// and written as Kensa's trace (formats/kensa.WriteTrace), in start-time order of arrival.
//
// # Limits of a run's spans
//
// Every span source of a run (the OTLP bodies, the JSONL file) is counted against the run's
// budget before anything decodes it (recorder/otlpreceiver: span bytes, spans, values,
// nesting); a run past one is an error run naming the limit, its sources kept within it and
// nothing decoded. Sources and the trace stay in spool files until sealed; a run's spans are
// decoded by one run at a time, and its trace in Kensa's model is at most
// formats/kensa.MaxTraceBytes. Every spool write keeps freespace.Margin free on its file
// system, or the run fails naming it.
//
// # Crash safety
//
// RunJobs never holds the store while agents run: each run's evidence is spooled to a directory
// of its own (captured streams stay in their spool files until sealed, so a run's output never
// has to fit in memory), and the store is opened at most once a second to seal the runs that
// finished. Each finished run is kept in its directory (record.json, and its definition once
// under defs/, written synced and renamed into place) before it waits for the sealer, and the
// spool is locked while kensa run writes it (spool.go). A killed `kensa run` loses at most the
// runs in flight: RecoverSpool seals the finished runs it left, as it would have sealed them
// (record recover, and kensa run when it starts); every sealed bundle is complete
// (store.Seal writes the ref last).
//
// # Failed runs
//
// A run whose command does not start, exits non-zero, runs past its timeout (killed with its
// process group) or produces no spans is an error run with Kensa's own message; one whose span
// sources do not parse (a truncated trace file, a malformed OTLP body) is an error run naming
// the source, line and column. Each is sealed: no run is lost, none half-written.
package kensa
