// Package kensadiff is the differential test of oasis-replay against Kensa v0.7.0 itself: the
// projects internal/kensagen generates from seeds run through real Kensa (kensa run, kensa
// judge; ../shared/tools/real-kensa, which runs Kensa from source) and through oasis-replay
// twice — kensa run's recorder with the same agent, and kensa import of the .kensa directory
// Kensa wrote, replayed — and every run's status, check results (check, passed, detail, scores,
// diagnostics), metrics, trace summary and each scenario's statistics (Kensa's
// aggregate.aggregate_results against kensa stats) must be equal.
//
// The package has no code of its own beyond this comment: it is its tests. go test runs a
// fixed seeded budget; make difftest-kensa runs thousands of runs and prints "N/M runs agree"
// with the failing seeds (see the flags in kensadiff_test.go).
package kensadiff
