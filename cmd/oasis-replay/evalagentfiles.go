package main

import (
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/evallib"
)

// writeAgentFiles says on stderr which files of the agent its identity holds, once a plan is
// made: whether an edit of the agent runs it again is then never a surprise.
func writeAgentFiles(w io.Writer, plan *evallib.Plan) {
	if line := plan.AgentFilesLine(); line != "" {
		fmt.Fprintln(w, line)
	}
}

// evalReuseHelp says, in eval run's and eval matrix's --help, exactly when a recorded run is
// taken instead of asking the agent again (docs/decisions.md, "Runs are bundles; reuse" and
// "the agent's files are part of its identity").
const evalReuseHelp = "A recorded run is reused instead of asking the agent again, unless --rerun, when it has\n" +
	"the same cell key and run number (1..--runs) — the cell key being the request sent, byte for\n" +
	"byte (the scenario's id, name, risk_level and input_context with the variation's system prompt\n" +
	"addition), and the agent's identity: how it is reached (the command's words, or the URL),\n" +
	"--agent-version, and the SHA-256 of each of its files — and when --timeout and\n" +
	"--max-answer-bytes would not have changed its outcome (a run that timed out is made again under\n" +
	"a longer timeout). The agent's files are the program when it is given as a path (./agent.py)\n" +
	"and every argument that names a file (python3 agent.py: agent.py; a program found on PATH,\n" +
	"such as python3, is not hashed), or, with --agent-files GLOB (repeatable; a directory stands\n" +
	"for the files below it, hidden ones and __pycache__ left out), the files it matches instead.\n" +
	"They are hashed when the runs are planned and listed on stderr: editing them, the command or\n" +
	"the label runs every cell again, and the old runs stay recorded (and are reused if the files\n" +
	"come back as they were).\n\n"
