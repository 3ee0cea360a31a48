package kensadiff

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/kensagen"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
)

// derived is one run as oasis-replay evaluates it, or why it could not.
type derived struct {
	result *ekensa.Result
	err    error
	// observed is what kensa stats' flags read of the run; traceID its spans' trace id.
	observed ekensa.Observed
	traceID  string
}

// runWithRecorder is kensa run: every scenario file planned and executed by the recorder with
// the same agent, two runs at a time, and each run evaluated. A scenario the recorder refuses
// is an error for each of its runs.
func runWithRecorder(t *testing.T, dir string, scenarios []*kensagen.Scenario) map[string][]derived {
	opts := rkensa.Options{Runs: 1, Timeout: 2 * time.Minute, RunID: "kensadiff", Version: "kensadiff"}
	out := map[string][]derived{}
	type job struct {
		sid string
		i   int
		job rkensa.Job
	}
	var jobs []job
	for _, s := range scenarios {
		planned, err := rkensa.Plan([]string{filepath.Join(dir, ".kensa", "scenarios", s.ID+".yaml")}, opts)
		if err != nil {
			for range s.Runs {
				out[s.ID] = append(out[s.ID], derived{err: fmt.Errorf("kensa run refuses the scenario: %w", err)})
			}
			continue
		}
		out[s.ID] = make([]derived, len(planned))
		for i, j := range planned {
			jobs = append(jobs, job{s.ID, i, j})
		}
	}
	spool := t.TempDir()
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan job)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				d := execute(t, opts, j.job, filepath.Join(spool, fmt.Sprintf("%s-%d", j.sid, j.i)))
				mu.Lock()
				out[j.sid][j.i] = d
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	return out
}

func execute(t *testing.T, opts rkensa.Options, job rkensa.Job, spool string) derived {
	if err := os.MkdirAll(spool, 0o700); err != nil {
		return derived{err: err}
	}
	rec, err := rkensa.Execute(t.Context(), job, opts, spool)
	if err != nil {
		return derived{err: fmt.Errorf("kensa run: %w", err)}
	}
	return evaluate(rec)
}

func evaluate(rec *rkensa.Record) derived {
	ev, err := rkensa.EvidenceOf(rec)
	if err != nil {
		return derived{err: fmt.Errorf("evidence: %w", err)}
	}
	d := derived{result: ekensa.Evaluate(ev), observed: ekensa.Observe(ev)}
	if len(ev.Spans) > 0 {
		d.traceID = ev.Spans[0].TraceID
	}
	return d
}

// importKensa is kensa import and replay: the .kensa directory Kensa wrote, read as kensa
// import reads it (every run it can read; what it cannot is a problem naming the file), each
// run evaluated.
func importKensa(dir string) (map[string][]derived, []string, error) {
	plan, err := rkensa.PlanImportAll(dir, false)
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]derived{}
	for _, r := range plan.Records {
		sid := r.Definition.Scenario.ID
		out[sid] = append(out[sid], evaluate(r))
	}
	var problems []string
	for _, p := range plan.Problems {
		problems = append(problems, p.Error())
	}
	return out, problems, nil
}
