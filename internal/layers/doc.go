// Package layers holds the architecture of oasis-replay as data: Table, the one table of the
// imports each package of the module may make, and Check, which lists the imports that break
// it. The package's test lists the module's packages with `go list` and fails on any import the
// table does not allow, so an upward import fails the build (make test), naming the package,
// the import and what its layer may import.
//
// The layers, bottom up (docs/architecture.md explains each):
//
//	internal/*   support code: the document model, decimals, error classes, test helpers
//	store        digests, the evidence model, canonical JSON; store/* its backends and archive
//	formats/*    each outside format, read and mapped onto the evidence model in one package
//	profiles     OASIS profiles: loading, validation, pinning, a scenario's registered values
//	evaluator    the pure function bundle → verdict, and evaluator/* its parts
//	recorder, replay, report, golden, demo, kensastats, evallib, serve   the applications
//	cmd, tools   the programs: they alone choose a concrete store (store/badgerstore)
//
// Rules are patterns ("formats/..." is formats and every package below it) so that a new
// package of an existing layer needs no new row; a package no rule covers fails the test, so a
// new layer is a decision written here. Exceptions are rows of their own with their reason.
package layers
