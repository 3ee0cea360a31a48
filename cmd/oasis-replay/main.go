package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit status. It is the one user-facing error
// path: every command returns an error, and exitStatus maps it to 0, 1 or 2.
//
// SIGINT and SIGTERM cancel the commands' context instead of killing the process, so a command
// interrupted mid-way returns, closes its store cleanly and reports what it did (the recording
// servers seal their bundle on it). A closed stdout (replay | head) makes writes fail instead of
// killing the process with SIGPIPE, for the same reason: a store left open by a killed process
// must replay its log before the next read-only command can open it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	defer func() {
		// A panic is a bug, never an answer to user input; say so briefly instead of
		// dumping a stack trace on the user.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "oasis-replay: internal error: %v\n", r)
			status = exitError
		}
	}()
	app := newApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, args)
	return reportError(stderr, err)
}

const exitStatusHelp = `EXIT STATUS:
   0  success: everything reproduced, verified or checked clean
   1  mismatch or integrity failure: a verdict differs from the claim or the golden copy,
      or stored/archived content does not match its digest
   2  bad usage or bad input: unknown flags or commands, unreadable or malformed input,
      unknown bundle, or any other error`

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "oasis-replay",
		Usage:   "record OASIS evaluation evidence into content-addressed bundles and replay it through a pure evaluator",
		Version: version(),
		Description: "Flags go before positional arguments (oasis-replay bundle export -o FILE BUNDLE).\n" +
			"BUNDLE is a digest (sha256:<64 hex>), a unique digest prefix, or a tag.\n\n" + exitStatusHelp,
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Flags: []cli.Flag{
			&cli.StringFlag{
				Name:    "store",
				Usage:   "store directory",
				EnvVars: []string{storeEnvVar},
				Value:   defaultStoreDir(),
			},
			&cli.DurationFlag{
				Name:    "lock-wait",
				Usage:   "how long to wait for a store another process is using",
				EnvVars: []string{lockWaitEnvVar},
				Value:   defaultLockWait,
			},
		},
		Commands:                  commands(),
		HideHelpCommand:           true,
		CustomAppHelpTemplate:     cli.AppHelpTemplate,
		EnableBashCompletion:      true,
		ExitErrHandler:            func(*cli.Context, error) {}, // run maps errors to statuses
		OnUsageError:              usageError,
		UseShortOptionHandling:    true,
		Suggest:                   true,
		DisableSliceFlagSeparator: true,
	}
	return app
}

// commands lists every command, in the order --help shows them.
func commands() []*cli.Command {
	return []*cli.Command{
		demoCommand(),
		recordCommand(),
		replayCommand(),
		auditCommand(),
		profileCommand(),
		bundleCommand(),
		storeCommand(),
		goldenCommand(),
	}
}
