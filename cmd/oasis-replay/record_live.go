package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// liveHelp explains, for the --help of both live recorders, how they record and stop.
const liveHelp = "While it records, the command does not hold the store: every exchange is written, as it\n" +
	"arrives, to a journal in the store's journals/ directory, and the store is opened only to seal\n" +
	"the bundle, so other commands keep working on it meanwhile. On SIGINT or SIGTERM, or after\n" +
	"--idle without a call, it stops accepting calls, lets calls in flight finish for --grace, cuts\n" +
	"the rest, and seals every complete exchange; the cut ones are listed on stderr. If the\n" +
	"recorder is killed, or cannot seal, `record recover` seals what its journal holds.\n" +
	"At most --max-exchanges calls are served at once (more wait for a slot); a client that takes\n" +
	"longer than --header-timeout to send its headers, pauses its body for --body-idle-timeout\n" +
	"or takes longer than --request-timeout to send it all is cut."

// liveExitStatus documents the exit statuses of the live recorders.
const liveExitStatus = "Exit status: 0 the bundle was sealed (cut exchanges are listed, not sealed); 1 it was sealed,\n" +
	"and redaction changes its verdict (a redaction-changes-verdict finding); 2 bad usage\n" +
	"or input, a listener that cannot be opened, or a recording that could not be sealed (its\n" +
	"journal is kept for record recover)."

// liveFlags are the flags of the live recorders; maxExchanges is the default of
// --max-exchanges.
func liveFlags(maxExchanges int) []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "idle", Value: recorder.DefaultIdle, Usage: "stop after this long without any call"},
		&cli.DurationFlag{Name: "grace", Value: recorder.DefaultGrace, Usage: "when stopping, let calls in flight finish for this long, then cut them"},
		&cli.IntFlag{Name: "max-exchanges", Value: maxExchanges, Usage: "calls served at once; more wait for a slot"},
		&cli.DurationFlag{Name: "header-timeout", Value: recorder.DefaultHeaderTimeout, Usage: "cut a client that takes longer to send a request's headers"},
		&cli.DurationFlag{Name: "body-idle-timeout", Value: recorder.DefaultBodyIdleTimeout, Usage: "cut a client whose body (or whose reading of the response) pauses this long"},
		&cli.DurationFlag{Name: "request-timeout", Value: recorder.DefaultRequestTimeout, Usage: "cut a client that takes longer to send a whole request body"},
	}
}

func liveOptions(c *cli.Context) recorder.LiveOptions {
	return recorder.LiveOptions{Journals: journalsDir(c), Idle: c.Duration("idle"), Grace: c.Duration("grace"),
		MaxExchanges: c.Int("max-exchanges"), HeaderTimeout: c.Duration("header-timeout"),
		BodyIdleTimeout: c.Duration("body-idle-timeout"), RequestTimeout: c.Duration("request-timeout")}
}

// liveMemoryLimit is the Go runtime's soft memory limit while a live recording runs or is
// recovered (unless $GOMEMLIMIT sets one): what the recorder holds is bounded whatever the body
// sizes, and the limit makes the collector return the garbage of streaming gigabytes before
// the heap doubles, keeping the process within its 64 MiB budget (DESIGN §7).
const liveMemoryLimit = 48 << 20

func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(liveMemoryLimit)
	}
}

// liveRecording is a live recorder once it stopped serving.
type liveRecording interface {
	Seal(ctx context.Context, s recorder.Store) (*recorder.Sealed, error)
	Close() error
	Journal() string
}

// recordLive runs a live recording: start begins it (its journal created; with
// --profile-digest the store is opened read-only meanwhile, to read the profile, and closed
// again), serve serves it until it stops, and the store is then opened, for writing, to seal
// it. A recording that cannot be sealed stays in its journal, for record recover.
func recordLive(c *cli.Context, start func(opts recorder.Options) (liveRecording, error), serve func(ctx context.Context) error) error {
	limitMemory()
	rec, err := startLive(c, start)
	if err != nil {
		return err
	}
	if err := serve(c.Context); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "recording stopped: %v\n", err)
	}
	var sealed *recorder.Sealed
	err = withSealingStore(c, func(s store.Store) error {
		var err error
		sealed, err = rec.Seal(context.WithoutCancel(c.Context), s)
		return err
	})
	if err != nil {
		_ = rec.Close()
		return fmt.Errorf("%w (the recording is kept in %s: `oasis-replay record recover` seals it)", err, rec.Journal())
	}
	err = printRecorded(c, sealed.Result)
	printIncomplete(c, sealed)
	return err
}

func startLive(c *cli.Context, start func(opts recorder.Options) (liveRecording, error)) (liveRecording, error) {
	if err := checkInputs(recordInputs(c)...); err != nil {
		return nil, err
	}
	if err := checkStoreDir(c); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.String("store"), 0o755); err != nil { // as a store is created; its journals/ is the recorder's
		return nil, fmt.Errorf("create store directory: %w", err)
	}
	var rec liveRecording
	begin := func(s store.Store) error {
		opts, err := recordOptions(c, s)
		if err != nil {
			return err
		}
		rec, err = start(opts)
		return err
	}
	var err error
	if c.String("profile-digest") == "" {
		err = begin(nil) // the profile comes from a directory: no store needed
	} else {
		err = withStore(c, readOnly, begin)
	}
	return rec, err
}

// printIncomplete lists on stderr the exchanges left out of a sealed live recording.
func printIncomplete(c *cli.Context, sealed *recorder.Sealed) {
	if sealed.CutBytes > 0 {
		fmt.Fprintf(c.App.ErrWriter, "cut a torn record of %d bytes from the end of the journal\n", sealed.CutBytes)
	}
	if len(sealed.Incomplete) == 0 {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "%d incomplete exchanges were not sealed:\n", len(sealed.Incomplete))
	for _, in := range sealed.Incomplete {
		fmt.Fprintf(c.App.ErrWriter, "  %s: %s\n", in.Exchange, in.Reason)
	}
}
