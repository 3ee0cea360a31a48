// Package kensagen generates Kensa v0.7.0 projects from a seed, for differential testing
// against Kensa itself: scenarios using all ten check types with random and boundary params
// (datasets with {{field}} placeholders, defaults, unknown params, literal "{{" without a
// dataset, list-form run_command with a literal "{{input}}" element, env_overrides and a .env
// file), and for each run an agent behaviour — the JSONL span file it writes to
// $KENSA_TRACE_DIR/spans.jsonl, its stdout bytes, stderr and exit status.
//
// Everything is a pure function of the seed (math/rand/v2's PCG): the same seed gives the same
// files, byte for byte, so a failing seed is a regression case.
//
// # Spans
//
// Spans take every shape Kensa's translate.py reads: timestamps as integer nanoseconds (the
// JSONL exporter's form), microseconds, milliseconds, seconds (integers and floats; Kensa scales
// by magnitude, translate._parse_timestamp), ISO-8601 strings with a zone, and missing (0);
// OpenInference attributes flat and nested (translate._get walks nested dicts), GenAI
// attributes (which Kensa keeps as metadata only), output as messages, as a plain value, as an
// Anthropic or OpenAI response; tool calls as TOOL spans (parameters as JSON text, as an
// object, not JSON) and embedded in LLM spans; missing kinds, span ids, names and status. The
// spans of one run share a trace id of their own, so that Kensa's analyzer, which groups spans
// by trace id, sees one trace a run.
//
// # Agent
//
// The agent (Agent) is one program for every scenario: its run_command names a behaviour file
// and Kensa appends the input. It picks the behaviour whose tag "#r<N>#" the last argument
// carries (the default otherwise), and replaces in the span text @@ARGC@@ by the number of its
// arguments after the behaviour file, @@ARG@@ by the last argument and @@ENV:NAME@@ by the
// variable's value, so that a check sees what the runner passed.
package kensagen
