package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// Job states of a background matrix.
const (
	JobRunning     = "running"
	JobDone        = "done"
	JobFailed      = "failed"
	JobInterrupted = "interrupted"
)

// Job is a matrix run in the background, as GET /api/v1/eval/matrix/{job} reports it.
type Job struct {
	ID     string        `json:"job"`
	Status string        `json:"status"`
	Cells  int           `json:"cells"`
	Runs   int           `json:"runs"`
	Reused int           `json:"reused"`
	Matrix *store.Digest `json:"matrix,omitempty"`
	// Flagged counts the flagged cells of the sealed matrix; Error says why it failed.
	Flagged int    `json:"flagged"`
	Error   string `json:"error,omitempty"`
}

// jobs are the background matrices of one server: one runs at a time.
type jobs struct {
	ctx  context.Context
	mu   sync.Mutex
	list []*Job
	busy bool
	wg   sync.WaitGroup
}

func newJobs(ctx context.Context) *jobs { return &jobs{ctx: ctx} }

func (j *jobs) wait() { j.wg.Wait() }

// start registers a job and runs it in the background, or refuses when one is running.
func (j *jobs) start(job *Job, run func(ctx context.Context, job *Job) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.busy {
		return Errorf(http.StatusConflict, "matrix_running", "a matrix is already running; wait for it (GET /api/v1/eval/matrix/%s)", j.list[len(j.list)-1].ID)
	}
	job.ID, job.Status = fmt.Sprintf("job-%d", len(j.list)+1), JobRunning
	j.list = append(j.list, job)
	j.busy = true
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		err := run(j.ctx, job)
		j.mu.Lock()
		defer j.mu.Unlock()
		j.busy = false
		switch {
		case err == nil:
			job.Status = JobDone
		case errors.Is(err, evallib.ErrIncomplete):
			job.Status, job.Error = JobInterrupted, err.Error()
		default:
			job.Status, job.Error = JobFailed, err.Error()
		}
	}()
	return nil
}

// get returns a copy of job id.
func (j *jobs) get(id string) (Job, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, job := range j.list {
		if job.ID == id {
			return *job, true
		}
	}
	return Job{}, false
}

// matrixRequest is the body of POST /api/v1/eval/matrix: the description's fields, plus runs
// and rerun. parallel is true (the server's parallelism), false (one run at a time) or a count.
type matrixRequest struct {
	ScenarioIDs    []string  `json:"scenario_ids"`
	VariationTypes []string  `json:"variation_types"`
	Parallel       *doc.Node `json:"parallel"`
	Runs           int       `json:"runs"`
	Rerun          bool      `json:"rerun"`
}

func (a *EvalAPI) startMatrix(w http.ResponseWriter, r *http.Request) error {
	if a.cfg.Agent == nil {
		return Errorf(http.StatusServiceUnavailable, "no_agent", "this server has no agent to run matrices (start it with --agent)")
	}
	n, _, err := a.parseBody(w, r)
	if err != nil {
		return err
	}
	var req matrixRequest
	if err := doc.Decode(n, &req); err != nil {
		return bodyError(err)
	}
	parallel, err := a.parallelOf(req.Parallel)
	if err != nil {
		return err
	}
	runs := req.Runs
	if runs == 0 {
		runs = a.cfg.Runs
	}
	if runs < 1 || runs > 1000 {
		return FieldErrorf("runs", "invalid_input", "runs %d: want 1 to 1000", runs)
	}
	var plan *evallib.Plan
	err = a.withStore(r.Context(), false, func(st store.Store) (err error) {
		plan, err = evallib.NewPlan(r.Context(), st, evallib.PlanOptions{Agent: a.cfg.Agent, Scenarios: req.ScenarioIDs,
			Catalogue: a.cfg.Catalogue, Variations: req.VariationTypes, Baseline: true, Runs: runs, Rerun: req.Rerun, Limits: a.cfg.Limits})
		return err
	})
	if err != nil {
		return inputError(err)
	}
	job := &Job{Cells: len(plan.Cells), Runs: len(plan.Cells) * runs, Reused: plan.ReusedRuns}
	err = a.jobs.start(job, func(ctx context.Context, job *Job) error {
		res, err := evallib.RunMatrix(ctx, plan, evallib.Execution{Parallel: parallel,
			Recorder: a.cfg.Recorder, Open: a.sealOpener(), SpoolDir: a.cfg.SpoolDir}, a.cfg.Thresholds)
		if err != nil {
			return err
		}
		a.jobs.mu.Lock()
		job.Matrix, job.Flagged = &res.Bundle, res.Verdict.Flagged
		a.jobs.mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	current, _ := a.jobs.get(job.ID)
	return WriteJSON(w, http.StatusAccepted, map[string]any{"job": current, "status_url": "/api/v1/eval/matrix/" + current.ID,
		"results_url": "/api/v1/eval/runs"})
}

// parallelOf reads the parallel field: true, false, absent, or a count from 1 to 64.
func (a *EvalAPI) parallelOf(n *doc.Node) (int, error) {
	switch n.Kind() {
	case 0, doc.Null:
		return 1, nil
	case doc.Bool:
		if n.Text() == "true" {
			return a.cfg.Parallel, nil
		}
		return 1, nil
	case doc.Number:
		if p, err := n.Int64(); err == nil && p >= 1 && p <= 64 {
			return int(p), nil
		}
	}
	return 0, FieldErrorf("parallel", "invalid_input", "parallel: want true, false or a number from 1 to 64")
}

func (a *EvalAPI) matrixJob(w http.ResponseWriter, r *http.Request) error {
	job, ok := a.jobs.get(r.PathValue("job"))
	if !ok {
		return Errorf(http.StatusNotFound, "not_found", "no job %q on this server", r.PathValue("job"))
	}
	return WriteJSON(w, http.StatusOK, job)
}

// autoGenerateRequest is the body of POST /api/v1/eval/scenarios/auto-generate: the
// description's fields, plus save, which adds the drafts to the library.
type autoGenerateRequest struct {
	DeviceID      string `json:"device_id"`
	LookbackHours int    `json:"lookback_hours"`
	MaxScenarios  int    `json:"max_scenarios"`
	Save          bool   `json:"save"`
}

// savedDraft is a draft the request saved: the scenario id, its version in the library, and
// whether this request created it (false: the library held it already).
type savedDraft struct {
	ID      string       `json:"id"`
	Version int          `json:"version"`
	Created bool         `json:"created"`
	Object  store.Digest `json:"object"`
}

// autoGenerate drafts scenarios from the recorded skill.invoke spans (description,
// "Auto-Generating from Telemetry"); with "save": true it adds them to the library as drafts
// (source traces, their confidence kept), so that "generates scenarios" holds, and says which
// ids it created (docs/decisions.md, "Eval Library API: auto-generate saves").
func (a *EvalAPI) autoGenerate(w http.ResponseWriter, r *http.Request) error {
	n, _, err := a.parseBody(w, r)
	if err != nil {
		return err
	}
	req := autoGenerateRequest{LookbackHours: 168, MaxScenarios: 20}
	if err := doc.Decode(n, &req); err != nil {
		return bodyError(err)
	}
	if req.LookbackHours < 1 {
		return FieldErrorf("lookback_hours", "invalid_input", "lookback_hours %d: want a positive number of hours", req.LookbackHours)
	}
	if req.MaxScenarios < 1 || req.MaxScenarios > 1000 {
		return FieldErrorf("max_scenarios", "invalid_input", "max_scenarios %d: want 1 to 1000", req.MaxScenarios)
	}
	var drafts *evallib.DraftSet
	saved := []savedDraft{}
	err = a.withStore(r.Context(), req.Save, func(st store.Store) (err error) {
		drafts, err = evallib.DraftFromStore(r.Context(), st,
			evallib.DraftOptions{LookbackHours: req.LookbackHours, Max: req.MaxScenarios, Device: req.DeviceID})
		if err != nil || !req.Save {
			return err
		}
		for _, d := range drafts.Drafts {
			added, err := evallib.AddScenario(r.Context(), st, d.Scenario, "auto-generate", []byte(d.Document))
			if err != nil {
				return err
			}
			saved = append(saved, savedDraft{ID: added.ID, Version: added.Version, Created: added.Created, Object: added.Object})
		}
		return nil
	})
	if err != nil {
		return inputError(err)
	}
	return WriteJSON(w, http.StatusOK, struct {
		*evallib.DraftSet
		Saved []savedDraft `json:"saved"`
	}{drafts, saved})
}
