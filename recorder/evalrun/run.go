package evalrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// Job is one run to make: run number Run of the cell Key.
type Job struct {
	Key       store.Digest
	Run       int
	Scenario  store.EvalScenarioRef
	Variation store.EvalVariationRef
	// Request is sent to the agent exactly as it is.
	Request []byte
	// Definition is the profile tree the run pins: the scenario and the variation entry.
	Definition Definition
}

// Definition is the content of a run's profile tree.
type Definition struct {
	ID, Version string
	Files       []File
}

// File is one file of a definition.
type File struct {
	Path      string
	MediaType string
	Content   []byte
}

// Recorded is a run sealed as a bundle.
type Recorded struct {
	Job      *Job
	Bundle   store.Digest
	Manifest *store.EvalRun
}

// Opener opens the store for a short while; the returned function closes it. The runner opens
// the store only to seal finished runs, so other commands can use it while agents run.
type Opener func(ctx context.Context) (store.Store, func() error, error)

// Progress hears about runs as they go; every method may be called from several goroutines.
type Progress interface {
	Started(j *Job)
	Finished(j *Job, r *Reply)
	Sealed(jobs []*Job)
}

// Options of Execute.
type Options struct {
	Agent Agent
	// Parallel is how many runs go at once; at least 1.
	Parallel int
	// SpoolDir receives the runs' output until they are sealed; "" makes a temporary directory.
	SpoolDir string
	// Recorder identifies oasis-replay in the manifests (name, version, source).
	Recorder store.RecorderInfo
	Limits   Limits
	Open     Opener
	Progress Progress
	// FlushEvery and FlushSize decide when finished runs are sealed: after FlushEvery since the
	// first unsealed run finished, or once FlushSize runs wait. Zero means 2 s and 256: each
	// batch opens the store, which costs tens of milliseconds, so batches are few.
	FlushEvery time.Duration
	FlushSize  int
	// Verdicts, when set, is called with each batch once its runs' evidence is stored and
	// before they are sealed: it stores what the runs give (their verdicts and receipts: the
	// recorder does not evaluate) and returns the refs naming it, which are set in the same
	// durable write as the runs' bundle refs.
	Verdicts func(ctx context.Context, st store.Store, runs []Recorded) ([]store.Ref, error)
}

// Execute runs the jobs, Parallel at a time, and seals each finished run as a bundle, updating
// the index of its cell. Results do not depend on Parallel: a run's bundle is a function of its
// job and its reply alone, and cells list runs by number. When ctx ends, the runs in flight are
// dropped and every finished run is still sealed; Execute then returns what was sealed and
// ErrInterrupted.
func Execute(ctx context.Context, jobs []*Job, opts Options) ([]Recorded, error) {
	if opts.Parallel < 1 {
		opts.Parallel = 1
	}
	spool, cleanup, err := spoolDir(opts.SpoolDir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	s := newSealer(opts, len(jobs))
	done := make(chan struct{})
	var sealErr error
	go func() {
		sealErr = s.loop()
		close(done)
	}()
	runErr := runAll(ctx, jobs, spool, opts, s)
	close(s.in)
	<-done
	recorded := s.recorded
	slices.SortFunc(recorded, func(a, b Recorded) int {
		if c := bytes.Compare(a.Job.Key[:], b.Job.Key[:]); c != 0 {
			return c
		}
		return a.Job.Run - b.Job.Run
	})
	return recorded, errors.Join(runErr, sealErr)
}

// runAll feeds the jobs to Parallel workers, in order, and waits for them.
func runAll(ctx context.Context, jobs []*Job, spool string, opts Options, s *sealer) error {
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range opts.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				err := runOne(ctx, jobs[i], spool, opts, s)
				if err != nil && !errors.Is(err, ErrInterrupted) {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

func cmpErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

// runOne asks the agent once and hands the reply to the sealer. Replies are kept in memory, or
// spooled to files of their own in dir when they are long.
func runOne(ctx context.Context, j *Job, dir string, opts Options, s *sealer) error {
	if opts.Progress != nil {
		opts.Progress.Started(j)
	}
	reply, err := opts.Agent.Ask(ctx, j.Request, dir)
	if err != nil {
		return err
	}
	if opts.Progress != nil {
		opts.Progress.Finished(j, reply)
	}
	s.in <- finished{job: j, reply: reply}
	return nil
}

func spoolDir(dir string) (string, func(), error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, fmt.Errorf("evalrun: spool directory: %w", err)
		}
		tmp, err := os.MkdirTemp(dir, "eval-runs-")
		if err != nil {
			return "", nil, fmt.Errorf("evalrun: spool directory: %w", err)
		}
		return tmp, func() { _ = os.RemoveAll(tmp) }, nil
	}
	tmp, err := os.MkdirTemp("", "oasis-replay-eval-")
	if err != nil {
		return "", nil, fmt.Errorf("evalrun: spool directory: %w", err)
	}
	return tmp, func() { _ = os.RemoveAll(tmp) }, nil
}
