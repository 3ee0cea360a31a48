package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/oasis-replay/oasis-replay/evallib"
	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/store"
)

func evalCommand() *cli.Command {
	return &cli.Command{
		Name:  "eval",
		Usage: "Eval Library: scenarios, baseline and variation runs, the scenario × variation matrix, its report and review queue",
		Description: "A scenario is a contract: given its input_context, the agent should produce its\n" +
			"expected_behavior. The agent runs once without pressure (baseline) and once per variation\n" +
			"(a cognitive pressure injected into its system prompt); every run is sealed as a bundle, and\n" +
			"match rate and shift magnitude re-derive from the bundles.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{
			evalScenarioCommand(),
			evalRunCommand(),
			evalMatrixCommand(),
			evalReportCommand(),
			evalReviewCommand(),
			evalVariationsCommand(),
		},
	}
}

// Flags shared by the commands that run an agent.
func evalAgentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "agent", Required: true, Usage: "the agent: a command line split like a shell's words without any expansion (`CMD`), or an http(s):// endpoint"},
		&cli.StringFlag{Name: "agent-version", Usage: "a `LABEL` for the agent's version: runs of another label are not reused"},
		&cli.StringSliceFlag{Name: "agent-files", Usage: "the agent's files, a `GLOB` (repeatable; a directory stands for the files below it): their digests are part of the agent's identity, in place of the program given as a path and the arguments that are files"},
		&cli.DurationFlag{Name: "timeout", Value: evalrun.DefaultTimeout, Usage: "per-run `DURATION` after which the agent is killed and the run fails"},
		&cli.Int64Flag{Name: "max-answer-bytes", Value: evalrun.DefaultMaxAnswer, Usage: "the largest answer kept, in `BYTES`; a longer one fails the run"},
		&cli.IntFlag{Name: "runs", Value: 1, Usage: "`N` runs per cell"},
		&cli.BoolFlag{Name: "rerun", Usage: "run every cell again instead of reusing the runs recorded for it"},
		&cli.StringSliceFlag{Name: "variations", Usage: "a catalogue `FILE` extending or overriding the built-in variations (repeatable)"},
		&cli.StringSliceFlag{Name: "threshold", Usage: "flag threshold of a risk level, `LEVEL=VALUE` (repeatable; defaults critical=0.5 high=0.6 medium=0.7 low=0.8)"},
		&cli.StringFlag{Name: "spool-dir", Usage: "`DIR` for the agents' output until it is sealed (default: the system's temporary directory)"},
		&cli.BoolFlag{Name: "json", Usage: "print the cells as JSON"},
	}
}

// evalSetup is what eval run and eval matrix take from their flags.
type evalSetup struct {
	agent      evalrun.Agent
	limits     evalrun.Limits
	catalogue  *evalfmt.Catalogue
	thresholds evalmetric.Thresholds
}

func newEvalSetup(c *cli.Context) (*evalSetup, error) {
	var e evalSetup
	var err error
	if e.agent, e.limits, err = evalAgent(c); err != nil {
		return nil, err
	}
	if e.catalogue, err = evalCatalogue(c); err != nil {
		return nil, err
	}
	if e.thresholds, err = evalThresholds(c); err != nil {
		return nil, err
	}
	return &e, nil
}

// plan decides the runs to make, reading the store for a moment only.
func (e *evalSetup) plan(c *cli.Context, opts evallib.PlanOptions) (plan *evallib.Plan, err error) {
	opts.Agent, opts.Catalogue, opts.Limits = e.agent, e.catalogue, e.limits
	err = withStoreWaiting(c, readOnly, func(s store.Store) error {
		plan, err = evallib.NewPlan(c.Context, s, opts)
		return err
	})
	if err == nil {
		writeAgentFiles(c.App.ErrWriter, plan)
	}
	return plan, err
}

// evalAgent builds the agent of --agent, checking that a command can be found before anything
// runs: a missing program is a usage error, not a matrix of failed runs.
func evalAgent(c *cli.Context) (evalrun.Agent, evalrun.Limits, error) {
	limits := evalrun.Limits{Timeout: c.Duration("timeout"), MaxAnswer: c.Int64("max-answer-bytes")}
	if limits.Timeout <= 0 || limits.MaxAnswer <= 0 {
		return nil, limits, argsError(c, "--timeout and --max-answer-bytes must be positive")
	}
	a, err := evalrun.NewAgentFiles(c.String("agent"), c.String("agent-version"), c.StringSlice("agent-files"), limits)
	if err != nil {
		return nil, limits, err
	}
	if ep := a.Endpoint(); ep.Kind == store.EvalAgentCommand {
		if _, err := exec.LookPath(ep.Argv[0]); err != nil {
			return nil, limits, fmt.Errorf("%w: %s: %v", evalrun.ErrAgent, ep.Argv[0], err)
		}
	}
	return a, limits, nil
}

// evalCatalogue returns the built-in catalogue extended by the --variations files.
func evalCatalogue(c *cli.Context) (*evalfmt.Catalogue, error) {
	cat := evalfmt.Builtin()
	for _, name := range c.StringSlice("variations") {
		b, err := readInput(name, evalfmt.CatalogueLimits)
		if err != nil {
			return nil, err
		}
		if err := cat.Extend(name, b); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

// readInput reads a file of outside input, refusing more than the limits allow.
func readInput(name string, lim doc.Limits) ([]byte, error) {
	f, err := inputfile.Open(context.Background(), name) // a regular file only, opened without blocking
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return doc.ReadAll(name, f, lim)
}

// evalThresholds reads the --threshold flags.
func evalThresholds(c *cli.Context) (evalmetric.Thresholds, error) {
	given := map[string]string{}
	for _, t := range c.StringSlice("threshold") {
		level, v, ok := strings.Cut(t, "=")
		if !ok {
			return evalmetric.Thresholds{}, fmt.Errorf("%w: --threshold %q: want LEVEL=VALUE", evalmetric.ErrThreshold, t)
		}
		given[strings.TrimSpace(level)] = strings.TrimSpace(v)
	}
	return evalmetric.ParseThresholds(given)
}

// recorderInfo identifies this program in the manifests it writes.
func recorderInfo(source string) store.RecorderInfo {
	return store.RecorderInfo{Name: "oasis-replay", Version: version(), Source: source}
}

// storeOpener opens the --store read-write for a moment: runners seal finished runs through
// it, so the store is not held while agents run.
func storeOpener(c *cli.Context) evalrun.Opener {
	return func(ctx context.Context) (store.Store, func() error, error) {
		s, err := openStoreWaiting(ctx, c, readWrite)
		if err != nil {
			return nil, nil, err
		}
		return s, s.Close, nil
	}
}

// storeWait is how long the commands that open the store for a moment (the runners sealing
// runs, the API serving a request) wait for a store another process holds.
const storeWait = 30 * time.Second

// openStoreWaiting opens the store, waiting up to storeWait while another process holds it.
func openStoreWaiting(ctx context.Context, c *cli.Context, mode access) (store.Store, error) {
	deadline := time.Now().Add(storeWait)
	for {
		s, err := openStore(c, mode)
		if err == nil || !storeLocked(err) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// withStoreWaiting is withStore for the commands that share the store with a running matrix or
// API server: it waits while another process holds the store.
func withStoreWaiting(c *cli.Context, mode access, use func(s store.Store) error) error {
	s, err := openStoreWaiting(c.Context, c, mode)
	if err != nil {
		return err
	}
	useErr := use(s)
	if closeErr := s.Close(); useErr == nil && closeErr != nil {
		return fmt.Errorf("close store %s: %w", c.String("store"), closeErr)
	}
	return useErr
}

// colorOutput reports whether text output may use colour: stdout is a terminal and NO_COLOR is
// not set (https://no-color.org).
func colorOutput(c *cli.Context) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	f, ok := c.App.Writer.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
