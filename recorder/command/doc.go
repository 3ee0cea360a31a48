// Package command runs an agent's command once, the way the runners of oasis-replay need it
// (Kensa's run_command, an Eval Library agent): an argv without a shell, an environment, bytes
// on stdin, a per-run timeout, and stdout and stderr captured to files with a size cap, so that
// an agent that prints a gigabyte costs disk up to the cap, never memory.
//
// # Process lifetime
//
// The command runs in a process group of its own, and the whole group is ended when the run
// ends, however it ends: when the command exits on its own (zero or not), when the timeout
// passes, or when the context is cancelled (SIGINT or SIGTERM reaching the CLI). The group gets
// SIGTERM, then SIGKILL after Spec.Grace, so an agent's background children cannot outlive the
// run or hold its pipes open. On Linux the leader's exit is seen at once (waitid with WNOWAIT),
// so a child holding the pipes does not delay the run's end by the grace period. Run returns
// only after the process has been reaped and both streams are closed.
//
// # What is recorded
//
// A Result is evidence of what happened, not an error: a command that does not exist, exits
// non-zero, is killed by a signal or times out is a Result with StartError, ExitCode, Signal or
// TimedOut set. Run returns an error only when it could not capture at all (the spool directory
// is unwritable). Each stream is a spooled file with its size, its SHA-256 digest and whether it
// was truncated at Spec.MaxOutput; the bytes past the cap are read and discarded, so the agent
// never blocks on a full pipe. Start time and duration are wall-clock facts about the run: callers
// keep them as non-scoring metadata, never as input to a verdict.
package command
