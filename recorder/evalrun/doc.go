// Package evalrun runs an Eval Library agent and records each run as a bundle.
//
// # Agents
//
// NewAgent reads --agent: an http:// or https:// URL is an endpoint that gets the request as
// a POST body (Content-Type application/json) and answers in the response body (no redirect is
// followed; a status outside 2xx fails the run); anything else is a command line, split by
// SplitCommand like a POSIX shell splits words but with no expansion at all, run without a
// shell (recorder/command): the request on stdin, the answer on stdout. Each run is bounded by
// Limits: a timeout (the process group killed), and caps on the answer (a longer answer fails
// the run; its first bytes are kept) and on stderr.
//
// An agent's files (FileAgent, FilesOf) are hashed when asked: the program when given as a path
// and the arguments that are regular files, or what NewAgentFiles' patterns (--agent-files) match,
// within MaxAgentFiles and MaxAgentBytes. The Eval Library puts their digests in every cell key,
// so that an edited agent is run again rather than its old runs reused.
//
// # Runs and bundles
//
// Execute runs jobs (run number N of a cell key) Parallel at a time. Each reply is spooled to
// files, and a sealer goroutine seals finished runs in batches, opening the store through an
// Opener only for the time of a batch, so other commands keep using the store while agents
// run. A run is an store.EvalRun manifest: the definition (a profile tree holding the scenario
// and the variation entry), the request exactly as sent, the answer exactly as received, stderr,
// the outcome, the settings, and the duration as non-scoring metadata. The index of a cell
// (store.EvalCellRuns, ref eval/cells/<key>) lists its runs by number, which is how later runs
// and matrices find what they can reuse. Options.Verdicts lets the caller store each run's
// verdict and receipt with the batch (evallib does), their refs set with the bundle refs.
//
// A run's bundle depends on its job and its reply only, never on Parallel or on the order runs
// finish. When the context ends (SIGINT), runs in flight are dropped and every finished run is
// still sealed: an interrupted matrix loses at most the runs in flight.
package evalrun
