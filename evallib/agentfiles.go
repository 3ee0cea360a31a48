package evallib

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// agentFilesShown is how many of the agent's files AgentFilesLine names before counting the
// rest.
const agentFilesShown = 5

// AgentFilesLine says which files of the agent the plan's cell keys hold (so a user can see that
// an edit of them runs the agent again), or, for a command whose files are none, how to name
// them; "" for an endpoint without files.
func (p *Plan) AgentFilesLine() string {
	files := p.AgentFiles
	if len(files) == 0 {
		if p.Options.Agent.Endpoint().Kind != store.EvalAgentCommand {
			return ""
		}
		return "agent files: none on the command line (a program found on PATH is not hashed): runs are reused until --agent-version changes; name the agent's files with --agent-files GLOB so that an edit of them runs it again"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "agent files (%d, part of the agent's identity: runs recorded with other contents are not reused):", len(files))
	for i, f := range files {
		if i == agentFilesShown {
			fmt.Fprintf(&b, " and %d more", len(files)-i)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		if f.Link != "" {
			fmt.Fprintf(&b, " %s -> %s", f.Path, f.Link)
		} else {
			fmt.Fprintf(&b, " %s %s", f.Path, f.Digest.Short())
		}
	}
	return b.String()
}
