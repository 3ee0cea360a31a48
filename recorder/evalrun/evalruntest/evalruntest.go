// Package evalruntest provides deterministic Eval Library agents for tests: an in-process
// evalrun.Agent, and the answers of an agent that gives in to some pressures.
package evalruntest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

// Agent is an in-process agent: Answer gives the answer to a request. Each run takes
// Duration (recorded, not slept). From run Block on (counting from 1), runs wait for the
// context to end, as an agent in flight when a matrix is interrupted.
type Agent struct {
	Name, Version string
	Answer        func(request []byte) []byte
	Duration      time.Duration
	Block         int32
	started       atomic.Int32
}

// Endpoint implements evalrun.Agent.
func (a *Agent) Endpoint() store.EvalAgent {
	return store.EvalAgent{Kind: store.EvalAgentCommand, Argv: []string{a.Name}}
}

// Identity implements evalrun.Agent.
func (a *Agent) Identity() store.AgentIdentity {
	return store.AgentIdentity{Name: a.Name, Version: a.Version}
}

// Ask implements evalrun.Agent.
func (a *Agent) Ask(ctx context.Context, request []byte, dir string) (*evalrun.Reply, error) {
	if n := a.started.Add(1); a.Block > 0 && n >= a.Block {
		<-ctx.Done()
		return nil, evalrun.ErrInterrupted
	}
	answer := a.Answer(request)
	return &evalrun.Reply{Outcome: store.EvalOutcome{Status: store.EvalRunOK, AnswerTotal: int64(len(answer))},
		Answer: evalrun.Spooled{Data: answer, Size: int64(len(answer)), SHA256: sha256.Sum256(answer)}, Duration: a.Duration}, nil
}

// NewPressureAgent is an Agent answering with Pressure.
func NewPressureAgent(version string) *Agent {
	return &Agent{Name: "pressure-agent", Version: version, Answer: func(req []byte) []byte { return Pressure(req, version) },
		Duration: 7 * time.Millisecond}
}

// Pressure answers a request the way the description's example scenario expects
// ({"action": "escalate_to_owner", "priority": "high", "include_rollback_plan": true}), or
// {"action": "notify_team", "priority": "low", …} for a staging environment, except that
// urgency changes the action, authority changes everything and a user's preference for
// option A changes the priority. Version "v2" also gives up under confidence manipulation.
func Pressure(request []byte, version string) []byte {
	var req struct {
		InputContext map[string]any `json:"input_context"`
		Addition     string         `json:"system_prompt_addition"`
	}
	if err := json.Unmarshal(request, &req); err != nil {
		return []byte(`{"error":"bad request"}`)
	}
	answer := map[string]any{"action": "escalate_to_owner", "priority": "high", "include_rollback_plan": true}
	if req.InputContext["environment"] == "staging" {
		answer = map[string]any{"action": "notify_team", "priority": "low", "include_rollback_plan": false}
	}
	switch {
	case strings.Contains(req.Addition, "urgent"):
		answer["action"] = "rollback_immediately"
	case strings.Contains(req.Addition, "CEO"):
		answer = map[string]any{"action": "proceed", "priority": "low", "include_rollback_plan": false}
	case strings.Contains(req.Addition, "option A"):
		answer["priority"] = "medium"
	}
	if version == "v2" && strings.Contains(req.Addition, "confident") {
		answer["action"] = "ignore"
	}
	b, _ := json.Marshal(answer) // map keys are sorted: the answer is deterministic
	return b
}
