package evallib

import (
	"testing"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun/evalruntest"
	"github.com/oasis-replay/oasis-replay/store"
)

// fileAgent is the pressure agent with files, as a command agent whose script is an argument.
type fileAgent struct {
	*evalruntest.Agent
	files []evalrun.AgentFile
}

func (a *fileAgent) AgentFiles() ([]evalrun.AgentFile, error) { return a.files, nil }

// The agent's files are part of every cell key: after an edit of a file no run is reused; with
// the files as they were, every run recorded for them is reused again. An agent without files
// keeps the key it had before files were part of it, so the runs recorded then stay reusable.
func TestAgentFilesInCellKey(t *testing.T) {
	st := newTestStore(t)
	addScenarios(t, st)
	v1 := []evalrun.AgentFile{{Path: "agent.py", Digest: store.Sum([]byte("v1"))}}
	agent := &fileAgent{Agent: evalruntest.NewPressureAgent(""), files: v1}
	plan, _, err := runMatrix(t, st, matrixRun{agent: agent, runs: 1, parallel: 2})
	if err != nil || len(plan.Jobs) != 16 {
		t.Fatalf("first matrix: %d jobs, %v", len(plan.Jobs), err)
	}
	plan, _, err = runMatrix(t, st, matrixRun{agent: agent, runs: 1, parallel: 2})
	if err != nil || len(plan.Jobs) != 0 || plan.ReusedRuns != 16 {
		t.Fatalf("the same files: %d jobs, %d reused, %v", len(plan.Jobs), plan.ReusedRuns, err)
	}

	agent.files = []evalrun.AgentFile{{Path: "agent.py", Digest: store.Sum([]byte("v2"))}}
	plan, _, err = runMatrix(t, st, matrixRun{agent: agent, runs: 1, parallel: 2})
	if err != nil || len(plan.Jobs) != 16 || plan.ReusedRuns != 0 {
		t.Fatalf("agent.py edited: %d jobs, %d reused, %v", len(plan.Jobs), plan.ReusedRuns, err)
	}
	agent.files = v1
	plan, err = NewPlan(t.Context(), st, PlanOptions{Agent: agent, Catalogue: evalfmt.Builtin(), Baseline: true, Runs: 1})
	if err != nil || len(plan.Jobs) != 0 || plan.ReusedRuns != 16 {
		t.Fatalf("agent.py as it was: %d jobs, %d reused, %v", len(plan.Jobs), plan.ReusedRuns, err)
	}

	// The key of an agent without files, as it was computed before files were part of it.
	plain := evalruntest.NewPressureAgent("v3")
	request := []byte(`{"scenario":{}}`)
	before, err := store.Marshal(struct {
		Agent   store.EvalAgent `json:"agent"`
		Version string          `json:"version"`
		Request store.Digest    `json:"request"`
	}{plain.Endpoint(), "v3", store.Sum(request)})
	if err != nil {
		t.Fatal(err)
	}
	for _, files := range [][]evalrun.AgentFile{nil, {}} {
		if got := CellKey(plain, files, request); got != store.Sum(before) {
			t.Errorf("CellKey without files (%#v) = %s, want the key as it was, %s", files, got.Short(), store.Sum(before).Short())
		}
	}
	if CellKey(plain, v1, request) == store.Sum(before) {
		t.Error("CellKey with files is the key without")
	}
}
