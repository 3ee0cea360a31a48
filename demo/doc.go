// Package demo is the built-in examples' walkthroughs, which `oasis-replay demo` calls to show
// each kind of evaluation, in seconds and offline, on the examples embedded in the binary
// (package internal/example, which describes them): an OASIS run (Run), a Kensa project
// (RunKensa) and an Eval Library matrix (RunEval).
//
// # Run
//
// Run records the example run with recorder.RecordOasisctlFS, pinned to the example profile
// (imported along with the recording), tags it (DefaultTag, "demo"), replays it with package
// replay exactly as the replay command does, stores the verdict and its receipt, and audits
// the claimed report with package report. Recording and evaluation are deterministic, so Run
// is idempotent: the same bundle digest, verdict and receipt every time, nothing new written.
// WriteWalkthrough renders the result for a newcomer.
//
// # RunKensa
//
// RunKensa writes the example Kensa project into a work directory and runs it as kensa run
// does (recorder/kensa), KensaRuns times per scenario, one run at a time. The scenarios' agent is
// the program itself (`oasis-replay demo-agent -- kensa`, the scripted agent of package
// internal/kensaagent): the demo links the program's executable as ProgramName in a directory
// it puts first on PATH while the agents run, so the scenarios name no path of the machine.
// Each run is replayed (replay.LoadKensa), its receipt stored, and the status it replays to is
// compared with the one kensa run gave it while recording; kensastats computes the variance.
// A run's bundle holds when it started and how long it took, so every call adds new runs.
//
// # RunEval
//
// RunEval adds the example scenarios to the library and runs the matrix of EvalVariations with
// the program as a command agent (EvalAgentCommand; EvalAnswer is its answer), as eval matrix
// does (package evallib), then re-derives the matrix's verdict and compares its digest with the
// one recorded when it was sealed. The agent defers to authority on the critical scenario, so
// that cell's shift is 1.0, above the critical threshold 0.5: it is flagged and opens a review
// item. Runs recorded before are reused, so a second call records nothing new.
package demo
