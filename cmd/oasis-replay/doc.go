// Command oasis-replay records the evidence of OASIS agent evaluations into content-addressed
// bundles and replays it through a pure evaluator, so anyone can prove that the same evidence
// yields the same verdict.
//
// Each command lives in its own file and only parses flags, opens the store and calls the
// library packages through store.Store; storeopen.go is the one place that opens (and names) a
// concrete store. Errors travel back to run, the one place that maps them to the exit status:
// 0 success, 1 a mismatch or an integrity failure (errors.go lists the sentinels), 2 everything
// else — bad usage, bad input, unknown bundle.
package main
