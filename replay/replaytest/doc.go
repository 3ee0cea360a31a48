// Package replaytest builds sealed bundles for the tests and benchmarks of replay, report and
// the CLI without the recorder: the SI profile of the shared test data imported into a store,
// and a synthesized complete run of every scenario of a profile. The oasisctl fixture runs,
// which need the recorder, are recorder/recordertest's. It is test support only; no production
// code imports it.
package replaytest
