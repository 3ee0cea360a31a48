package kensa

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// Events hears how kensa run goes; its methods are called from several goroutines, one at a
// time.
type Events interface {
	// Started is called when a job's agent starts.
	Started(job Job)
	// Finished is called when a job's run ended and was evaluated (not yet sealed).
	Finished(job Job, status string)
	// Sealed is called for each run sealed, with its bundle id.
	Sealed(r *Record, bundle store.Digest)
}

// Summary counts what RunJobs did.
type Summary struct {
	// Sealed runs; Failed and Errored count those among them whose status is a failure (fail,
	// uncertain) or an error (see Outcome). A pending run counts as neither: its checks
	// passed and its criteria await a judge.
	Sealed, Failed, Errored int
	// Interrupted runs were in flight when ctx ended: they are not recorded.
	Interrupted int
}

// Outcomes of a run's status for kensa run's listing and exit status.
const (
	OutcomePassed = iota // pass, or pending
	OutcomeFailed        // fail, uncertain
	OutcomeError         // error
)

// Outcome classes a status as kensa run's exit status reads it: every run passed (0), a run
// failed (1), a run ended in error (2, whatever else happened).
func Outcome(status string) int {
	switch status {
	case ekensa.StatusPass, ekensa.StatusPending:
		return OutcomePassed
	case ekensa.StatusFail, ekensa.StatusUncertain:
		return OutcomeFailed
	}
	return OutcomeError
}

// OpenStore gives a store to use for the duration of one call: kensa run opens the store only
// while it seals finished runs, never while agents run.
type OpenStore func(use func(s Writer) error) error

// RunJobs executes the jobs on up to parallel agents at once, each spooled to a directory of
// its own under spool, and seals every finished run as soon as the store is free, tagging it
// with tag(record) when tag is not nil. It stops starting jobs when ctx ends or a run cannot
// be recorded; runs cut short by ctx are not sealed. The bundles do not depend on parallel:
// each run's evidence is its own.
func RunJobs(ctx context.Context, jobs []Job, opts Options, parallel int, spool string, open OpenStore, tag func(*Record) []string, ev Events) (sum Summary, err error) {
	lock, err := lockSpool(spool)
	if err != nil {
		return Summary{}, err
	}
	defer func() { releaseSpool(spool, lock, err == nil && sum.Interrupted == 0) }()
	r := &runner{ctx: ctx, opts: opts, spool: spool, open: open, tag: tag, ev: ev, wake: make(chan struct{}, 1), ending: make(chan struct{})}
	sealed := make(chan struct{})
	go r.sealLoop(sealed)
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(parallel, 1) {
		wg.Go(func() {
			for i := range work {
				r.one(jobs[i], i)
			}
		})
	}
	for i := range jobs {
		if ctx.Err() != nil || r.failed() {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	close(r.ending)
	close(r.wake)
	<-sealed
	return r.sum, r.err
}

type runner struct {
	ctx   context.Context
	opts  Options
	spool string
	open  OpenStore
	tag   func(*Record) []string
	ev    Events
	wake  chan struct{}
	// ending is closed when every job has run: the sealer then stops waiting.
	ending chan struct{}

	mu      sync.Mutex
	pending []*Record
	sum     Summary
	err     error
}

func (r *runner) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

func (r *runner) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

// one executes job i and hands its record to the sealer.
func (r *runner) one(job Job, i int) {
	dir := filepath.Join(r.spool, fmt.Sprintf("run-%06d", i+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.fail(err)
		return
	}
	r.ev.Started(job)
	rec, err := Execute(r.ctx, job, r.opts, dir)
	if err == nil && !rec.Interrupted {
		rec.Status, err = statusOf(rec)
	}
	if err == nil && !rec.Interrupted {
		// Kept before it waits for the sealer: a kensa run killed from now on leaves the run
		// to be recovered (RecoverSpool).
		err = keepRecord(r.spool, rec)
	}
	r.mu.Lock()
	switch {
	case err != nil:
		r.err = cmpErr(r.err, fmt.Errorf("kensa run: %s: %w", job.Definition.Scenario.ID, err))
	case rec.Interrupted:
		r.sum.Interrupted++
	default:
		r.pending = append(r.pending, rec)
	}
	r.mu.Unlock()
	status := "interrupted"
	if rec != nil && !rec.Interrupted {
		status = rec.Status
	}
	if err != nil {
		status = ekensa.StatusError
	}
	r.ev.Finished(job, status)
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func cmpErr(first, next error) error {
	if first != nil {
		return first
	}
	return next
}

// statusOf evaluates a record as replay will, for kensa run's exit status and listing.
func statusOf(rec *Record) (string, error) {
	decoding.Lock()
	defer decoding.Unlock()
	ev, err := EvidenceOf(rec)
	if err != nil {
		return "", err
	}
	return ekensa.Evaluate(ev).Status, nil
}

// sealEvery is how often at most kensa run opens the store to seal finished runs: opening
// it costs tens of milliseconds, which a run of a fast agent must not pay each time, and a
// finished run waits at most this long before it is sealed.
const sealEvery = time.Second

// sealLoop seals whatever has finished when woken, at most once per sealEvery, until wake is
// closed; then it seals the rest.
func (r *runner) sealLoop(done chan<- struct{}) {
	defer close(done)
	var last time.Time
	for range r.wake {
		if wait := sealEvery - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-r.ending:
			}
		}
		r.sealPending()
		last = time.Now()
	}
	r.sealPending()
}

// sealPending seals the finished runs in one opening of the store and one sync (SealAll), and
// removes their spool directories once sealed.
func (r *runner) sealPending() {
	r.mu.Lock()
	batch := r.pending
	r.pending = nil
	r.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	// Sealing finishes even when ctx has ended: these runs are complete.
	ctx := context.WithoutCancel(r.ctx)
	err := r.open(func(s Writer) error {
		digests, err := SealAll(ctx, s, batch, r.opts.Version, r.tag)
		if err != nil {
			return err
		}
		for i, rec := range batch {
			r.mu.Lock()
			r.sum.Sealed++
			switch Outcome(rec.Status) {
			case OutcomeFailed:
				r.sum.Failed++
			case OutcomeError:
				r.sum.Errored++
			}
			r.mu.Unlock()
			r.ev.Sealed(rec, digests[i])
			if rec.spool != "" {
				_ = os.RemoveAll(rec.spool)
			}
		}
		return nil
	})
	if err != nil {
		r.fail(err)
	}
}

// ScenarioTag is the tag kensa run --tag T gives the runs of a scenario: T-<scenario id>, the
// last run of the scenario keeping it.
func ScenarioTag(tag string, rec *Record) string {
	return tag + "-" + strings.ReplaceAll(rec.Definition.Scenario.ID, "/", "-")
}
