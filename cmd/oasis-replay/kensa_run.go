package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	fkensa "github.com/oasis-replay/oasis-replay/formats/kensa"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

func kensaRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "execute Kensa scenarios, record each run's output and spans, and seal each run as a bundle",
		ArgsUsage: "[PATH…]",
		Description: "PATH is a .kensa directory, a scenarios directory or scenario files (default ./.kensa). Each\n" +
			"scenario's run_command runs as Kensa runs it: no shell, the input appended as the last argument\n" +
			"(or put where an argument says {{input}}), env_overrides applied, once per dataset row, --runs\n" +
			"times. The agent gets KENSA_TRACE_DIR (Kensa's JSONL exporter) and OTEL_EXPORTER_OTLP_ENDPOINT\n" +
			"(an OTLP/HTTP receiver on 127.0.0.1, protobuf and JSON); every span source is kept byte-exact.\n" +
			"A run past --timeout is killed with its process group and recorded as an error run.\n\n" +
			"The store is never held while agents run: each run is spooled to a directory, and the store is\n" +
			"opened briefly to seal finished runs. A killed kensa run loses only the runs in flight.\n\n" +
			"--judge-cmd CMD runs a judge command for scenarios with criteria whose checks pass: Kensa's\n" +
			"judge prompt on its stdin, its answer (Kensa's JSON verdict) on its stdout; both are recorded.\n" +
			"Without it, criteria are recorded as pending, never as passed.\n\n" +
			"Exit status: 0 every run passed its checks (criteria may be pending); 1 a run failed a check or\n" +
			"ended in error; 2 bad usage, invalid scenarios, or a run that could not be recorded.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "runs", Value: 1, Usage: "run each scenario (each dataset row) `N` times"},
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "run up to `P` agents at once"},
			&cli.DurationFlag{Name: "timeout", Value: 300 * time.Second, Usage: "kill a run after `D` (5s, 2m)"},
			&cli.StringFlag{Name: "tag", Usage: "annotate every run with `T`, and tag the last bundle of each scenario T-<scenario>"},
			&cli.StringFlag{Name: "prices", Usage: "price table `FILE` for spans without a cost (pinned in each bundle)"},
			&cli.StringFlag{Name: "judge-cmd", Usage: "judge command `CMD` (prompt on stdin, answer on stdout)"},
			&cli.StringFlag{Name: "judge-model", EnvVars: []string{"KENSA_JUDGE_MODEL"}, Usage: "model name recorded with each judgement"},
			&cli.StringFlag{Name: "run-id", Usage: "run id recorded in each bundle (default: one made from the start time)"},
			&cli.StringFlag{Name: "spool", Usage: "spool directory (default: a temporary directory, removed when done)"},
		},
		Action: runKensaRun,
	}
}

func runKensaRun(c *cli.Context) error {
	opts, err := kensaRunOptions(c)
	if err != nil {
		return err
	}
	paths := c.Args().Slice()
	if len(paths) == 0 {
		paths = []string{".kensa"}
	}
	jobs, err := rkensa.Plan(paths, opts)
	if err != nil {
		return err
	}
	spool := c.String("spool")
	if spool == "" {
		if spool, err = os.MkdirTemp("", "oasis-replay-kensa-"); err != nil {
			return err
		}
		defer os.RemoveAll(spool)
	}
	r := &kensaRunner{c: c, opts: opts, spool: spool, total: len(jobs), status: newRunStatus(c, len(jobs))}
	return r.run(jobs)
}

func kensaRunOptions(c *cli.Context) (rkensa.Options, error) {
	opts := rkensa.Options{Runs: c.Int("runs"), Timeout: c.Duration("timeout"), Tag: c.String("tag"),
		JudgeModel: c.String("judge-model"), RunID: c.String("run-id")}
	if opts.Runs < 1 || c.Int("parallel") < 1 || opts.Timeout <= 0 {
		return opts, argsError(c, "--runs and --parallel must be at least 1 and --timeout positive")
	}
	if opts.RunID == "" {
		opts.RunID = time.Now().UTC().Format("20060102T150405.000000")
	}
	if !fkensa.ValidRunID(opts.RunID) {
		return opts, argsError(c, "--run-id %q: want letters, digits, '_', '.' or '-'", opts.RunID)
	}
	if p := c.String("prices"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return opts, err
		}
		if _, err := fkensa.ParsePrices(p, b); err != nil {
			return opts, err
		}
		opts.Prices = b
	}
	if j := c.String("judge-cmd"); j != "" {
		argv, err := fkensa.SplitCommand(j)
		if err != nil || len(argv) == 0 {
			return opts, argsError(c, "--judge-cmd %q: %v", j, err)
		}
		opts.JudgeCmd = argv
	}
	return opts, nil
}

// kensaRunner executes jobs on --parallel workers and seals finished runs in batches, opening
// the store only while it seals.
type kensaRunner struct {
	c      *cli.Context
	opts   rkensa.Options
	spool  string
	total  int
	status *runStatus

	mu       sync.Mutex
	pending  []*rkensa.Record
	failures int
	err      error
}

func (r *kensaRunner) run(jobs []rkensa.Job) error {
	work := make(chan int)
	var wg sync.WaitGroup
	ready := make(chan struct{}, 1)
	sealed := make(chan struct{})
	go r.sealLoop(ready, sealed)
	for range r.c.Int("parallel") {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r.one(jobs[i], i, ready)
			}
		}()
	}
	for i := range jobs {
		if r.c.Context.Err() != nil || r.failed() {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	close(ready)
	<-sealed
	r.status.finish()
	if r.err != nil {
		return r.err
	}
	if err := r.c.Context.Err(); err != nil {
		return fmt.Errorf("kensa run: interrupted; the runs sealed so far are kept")
	}
	if r.failures > 0 {
		return reported{status: exitMismatch}
	}
	return nil
}

func (r *kensaRunner) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

func (r *kensaRunner) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
}

func (r *kensaRunner) one(job rkensa.Job, i int, ready chan<- struct{}) {
	dir := filepath.Join(r.spool, fmt.Sprintf("run-%06d", i+1))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		r.fail(err)
		return
	}
	r.status.started()
	rec, err := rkensa.Execute(r.c.Context, job, r.opts, dir)
	if err != nil {
		r.status.done(false)
		r.fail(err)
		return
	}
	res := ekensa.Evaluate(rkensa.EvidenceOf(rec))
	ok := res.Status == ekensa.StatusPass || res.Status == ekensa.StatusPending
	r.status.done(ok)
	r.mu.Lock()
	r.pending = append(r.pending, rec)
	if !ok {
		r.failures++
	}
	r.mu.Unlock()
	select {
	case ready <- struct{}{}:
	default:
	}
}

// sealLoop seals whatever has finished each time it is woken, until ready is closed.
func (r *kensaRunner) sealLoop(ready <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for range ready {
		r.sealPending()
	}
	r.sealPending()
}

func (r *kensaRunner) sealPending() {
	r.mu.Lock()
	batch := r.pending
	r.pending = nil
	r.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	err := withStore(r.c, readWrite, func(s store.Store) error {
		for _, rec := range batch {
			var tags []string
			if r.opts.Tag != "" {
				tags = []string{r.opts.Tag + "-" + strings.ReplaceAll(rec.Definition.Scenario.ID, "/", "-")}
			}
			d, err := rkensa.Seal(r.c.Context, s, rec, version(), tags...)
			if err != nil {
				return err
			}
			r.status.line(fmt.Sprintf("%s  %s  %s", d, rec.Definition.Scenario.ID, describeRun(rec)))
		}
		return nil
	})
	if err != nil {
		r.fail(err)
	}
}

func describeRun(rec *rkensa.Record) string {
	res := ekensa.Evaluate(rkensa.EvidenceOf(rec))
	s := res.Status
	if rec.Case > 0 {
		s = fmt.Sprintf("row %d %s", rec.Case, s)
	}
	return s
}

// runStatus prints sealed runs on stdout and, on a terminal, a progress line on stderr: runs
// done, running, failed.
type runStatus struct {
	c                           *cli.Context
	mu                          sync.Mutex
	tty                         bool
	total, done_, running, fail int
}

func newRunStatus(c *cli.Context, total int) *runStatus {
	f, ok := c.App.ErrWriter.(*os.File)
	return &runStatus{c: c, total: total, tty: ok && term.IsTerminal(int(f.Fd()))}
}

func (s *runStatus) started() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running++
	s.draw()
}

func (s *runStatus) done(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.done_++
	if !ok {
		s.fail++
	}
	s.draw()
}

func (s *runStatus) draw() {
	if s.tty {
		fmt.Fprintf(s.c.App.ErrWriter, "\r%d/%d done, %d running, %d failed ", s.done_, s.total, s.running, s.fail)
	}
}

func (s *runStatus) line(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty {
		fmt.Fprint(s.c.App.ErrWriter, "\r\033[K")
	}
	fmt.Fprintln(s.c.App.Writer, text)
	s.draw()
}

func (s *runStatus) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty {
		fmt.Fprintln(s.c.App.ErrWriter)
	}
	fmt.Fprintf(s.c.App.ErrWriter, "%d runs, %d failed\n", s.done_, s.fail)
}
