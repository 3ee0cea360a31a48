package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

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
			"(a list's \"{{input}}\" element left as it is, as Kensa leaves it; a run_command written as a\n" +
			"string gets the input where an argument says {{input}}), the variables of the nearest .env\n" +
			"(from the project directory up) and then env_overrides applied, once per dataset row, --runs\n" +
			"times. Output that is not UTF-8 makes the run an error, as in Kensa. What Kensa accepts and a\n" +
			"strict reader would not is a warning; --strict refuses it. The agent gets KENSA_TRACE_DIR (Kensa's JSONL exporter) and OTEL_EXPORTER_OTLP_ENDPOINT\n" +
			"(an OTLP/HTTP receiver on 127.0.0.1, protobuf and JSON, gzip-compressed or not), with\n" +
			"OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL set to http/protobuf unless\n" +
			"the scenario's env_overrides set one; every span source is kept byte-exact. A run's spans past\n" +
			"32 MiB, 20,000 spans or 524,288 values are refused (413) and the run is an error naming the limit.\n" +
			"A run past --timeout is killed with its process group and recorded as an error run; the group\n" +
			"is ended when any run ends.\n\n" +
			"The store is never held while agents run: each run is spooled to a directory (under the store's\n" +
			"journals/, or --spool), and the store is opened at most once a second to seal finished runs. A\n" +
			"killed kensa run loses only the runs in flight: the next kensa run (or record recover) seals the\n" +
			"finished runs it left. The progress line (runs done, running, failed) is drawn only when stderr\n" +
			"is a terminal.\n\n" +
			"--judge-cmd CMD runs a judge command for scenarios with criteria whose checks pass: Kensa's\n" +
			"judge prompt on its stdin, its answer (Kensa's JSON verdict) on its stdout; both are recorded.\n" +
			"Without it, criteria are recorded as pending, never as passed.\n\n" +
			"Each sealed run is listed with the status replay derives from its bundle (the recorded\n" +
			"judgement included).\n\n" + kensaRunOutputHelp + "\n\n" +
			"Exit status: 0 every run passed (criteria may be pending); 1 a run failed (a check, or the\n" +
			"judge's verdict fail or uncertain); 2 a run ended in error (the agent did not start, crashed,\n" +
			"timed out or sent no spans, the judge command failed), bad usage, invalid scenarios, or a run\n" +
			"that could not be recorded.\n\n" +
			"--shard I/N runs only the runs whose key, \"<scenario id>/<dataset row, 0 if none>/<repeat>\",\n" +
			"hashes into shard I of N (--shards N takes I from JOB_COMPLETION_INDEX); give every shard the\n" +
			"same --run-id. --push REMOTE then pushes the runs sealed (kensa stats --from REMOTE reports\n" +
			"on the union). --from REMOTE first pulls the runs REMOTE holds into the store and skips the\n" +
			"runs of the shard already there under the same --run-id: a shard retried runs only what is\n" +
			"missing.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "runs", Value: 1, Usage: "run each scenario (each dataset row) `N` times"},
			&cli.IntFlag{Name: "parallel", Value: 1, Usage: "run up to `P` agents at once"},
			&cli.DurationFlag{Name: "timeout", Value: 300 * time.Second, Usage: "kill a run after `D` (5s, 2m)"},
			&cli.StringFlag{Name: "tag", Usage: "annotate every run with `T`, and tag the last bundle of each scenario T-<scenario>"},
			&cli.StringFlag{Name: "prices", Usage: "price table `FILE` for spans without a cost (pinned in each bundle)"},
			&cli.StringFlag{Name: "judge-cmd", Usage: "judge command `CMD` (prompt on stdin, answer on stdout)"},
			&cli.StringFlag{Name: "judge-model", EnvVars: []string{"KENSA_JUDGE_MODEL"}, Usage: "model name recorded with each judgement"},
			&cli.StringFlag{Name: "run-id", Usage: "run id recorded in each bundle (default: one made from the start time)"},
			&cli.StringFlag{Name: "spool", Usage: "spool directory (default: a directory under the store's journals/, removed when every run is sealed)"},
			&cli.BoolFlag{Name: "strict", Usage: "refuse scenarios with what Kensa only tolerates (unknown params, …)"},
		}, kensaRunShardFlags()...),
		Action: runKensaRun,
	}
}

func runKensaRun(c *cli.Context) error {
	// A live recording too: within the same memory budget, whatever the agents print.
	limitMemory()
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
	if jobs, err = shardKensaJobs(c, jobs, opts.RunID); err != nil {
		return err
	}
	spool, spoolDone, err := kensaRunSpool(c)
	if err != nil {
		return err
	}
	open := func(use func(s rkensa.Writer) error) error {
		return withStore(c, readWrite, func(s store.Store) error { return use(s) })
	}
	var tag func(*rkensa.Record) []string
	if opts.Tag != "" {
		tag = func(rec *rkensa.Record) []string { return []string{rkensa.ScenarioTag(opts.Tag, rec)} }
	}
	status := newRunStatus(c.App.Writer, c.App.ErrWriter, len(jobs))
	sealed := &sealedRuns{Events: status}
	sum, err := rkensa.RunJobs(c.Context, jobs, opts, c.Int("parallel"), spool, open, tag, sealed)
	spoolDone(err)
	status.finish(sum)
	if err == nil {
		err = sealed.push(c)
	}
	switch {
	case err != nil:
		return err
	case c.Context.Err() != nil:
		return fmt.Errorf("kensa run: interrupted; %d runs sealed are kept, %d in flight were not recorded", sum.Sealed, sum.Interrupted)
	case sum.Errored > 0:
		return reported{status: exitError}
	case sum.Failed > 0:
		return reported{status: exitMismatch}
	}
	return nil
}

func kensaRunOptions(c *cli.Context) (rkensa.Options, error) {
	opts := rkensa.Options{Runs: c.Int("runs"), Timeout: c.Duration("timeout"), Tag: c.String("tag"),
		JudgeModel: c.String("judge-model"), RunID: c.String("run-id"), Version: version(), Strict: c.Bool("strict"),
		Warn: func(err error) { fmt.Fprintf(c.App.ErrWriter, "warning: %v\n", err) }}
	if opts.Runs < 1 || c.Int("parallel") < 1 || opts.Timeout <= 0 {
		return opts, argsError(c, "--runs and --parallel must be at least 1 and --timeout positive")
	}
	if opts.RunID == "" {
		opts.RunID = time.Now().UTC().Format("20060102T150405.000000")
	}
	if !fkensa.ValidRunID(opts.RunID) {
		return opts, argsError(c, "--run-id %q: want letters, digits, '_', '.' or '-'", opts.RunID)
	}
	if opts.Tag != "" {
		if err := store.ValidateTag(opts.Tag); err != nil {
			return opts, argsError(c, "--tag: %v", err)
		}
	}
	if p := c.String("prices"); p != "" {
		b, err := rkensa.ReadInput(c.Context, p) // the input policy
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

// runStatus prints each sealed run on stdout and, only when stderr is a terminal, a progress
// line on stderr: runs done, running, failed. Scripts and CI logs get no control characters.
type runStatus struct {
	out, errw                        io.Writer
	mu                               sync.Mutex
	tty                              bool
	total, finished, running, failed int
}

func newRunStatus(out, errw io.Writer, total int) *runStatus {
	f, ok := errw.(*os.File)
	return &runStatus{out: out, errw: errw, total: total, tty: ok && term.IsTerminal(int(f.Fd()))}
}

// Started implements rkensa.Events.
func (s *runStatus) Started(rkensa.Job) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running++
	s.draw()
}

// Finished implements rkensa.Events.
func (s *runStatus) Finished(_ rkensa.Job, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	s.finished++
	if rkensa.Outcome(status) != rkensa.OutcomePassed {
		s.failed++
	}
	s.draw()
}

// Sealed implements rkensa.Events.
func (s *runStatus) Sealed(rec *rkensa.Record, d store.Digest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty {
		fmt.Fprint(s.errw, "\r\033[K")
	}
	what := rec.Status
	if rec.Case > 0 {
		what = fmt.Sprintf("row %d %s", rec.Case, rec.Status)
	}
	fmt.Fprintf(s.out, "%s  %s  %s%s\n", d, rec.Definition.Scenario.ID, what, reasonColumn(rec))
	s.draw()
}

func (s *runStatus) draw() {
	if s.tty {
		fmt.Fprintf(s.errw, "\r%d/%d done, %d running, %d failed ", s.finished, s.total, s.running, s.failed)
	}
}

func (s *runStatus) finish(sum rkensa.Summary) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty {
		fmt.Fprint(s.errw, "\r\033[K")
	}
	fmt.Fprintf(s.errw, "%d runs sealed, %d did not pass", sum.Sealed, sum.Failed+sum.Errored)
	if sum.Failed+sum.Errored > 0 {
		fmt.Fprintf(s.errw, ": %d failed, %d in error", sum.Failed, sum.Errored)
	}
	fmt.Fprintln(s.errw)
}
