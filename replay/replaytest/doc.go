// Package replaytest builds sealed bundles for the tests and benchmarks of replay, report and
// the CLI: the oasisctl fixture runs of the shared test data, recorded by package recorder,
// and a synthesized complete run of every scenario of a profile. It is test support only; no
// production code imports it.
package replaytest
