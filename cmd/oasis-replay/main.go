package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
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
	limitHeap()
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
	program := "oasis-replay"
	if len(args) > 0 {
		program = args[0]
	}
	app := newApp(program, stdin, stdout, stderr)
	err := app.RunContext(ctx, flagsFirst(app, args))
	return reportError(stderr, err)
}

// heapLimit is the soft limit of the Go runtime's memory (runtime/debug.SetMemoryLimit), unless
// $GOMEMLIMIT sets another. The readers' limits bound what an input keeps alive; without this, the
// garbage collector lets the heap grow to twice that before collecting (GOGC=100), and an input
// within the limits could take the process past 256 MiB (DESIGN §7; docs/decisions.md, "Memory
// of untrusted input"). A soft limit costs nothing below it.
const heapLimit = 192 << 20

func limitHeap() {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 { // neither $GOMEMLIMIT nor an earlier call
		debug.SetMemoryLimit(heapLimit)
	}
}

const exitStatusHelp = `EXIT STATUS:
   0  success: everything reproduced, verified or checked clean
   1  mismatch or integrity failure: a verdict differs from the claim or the golden copy,
      or stored/archived content does not match its digest
   2  bad usage or bad input: unknown flags or commands, unreadable or malformed input,
      unknown bundle, or any other error
   3  (audit) not re-derivable: no mismatch, but part of the claim cannot be evaluated exactly
      as its producer would, so it is neither confirmed nor contradicted
   4  (kensa import) partial: every readable run was imported; the files that could not be
      read are listed with their reasons`

// readExitStatus states the exit statuses of the commands that only read the store.
const readExitStatus = "Exit status: 0 success; 1 the store's content does not match its digests; 2 bad usage,\n" +
	"an unknown bundle or profile, a store that cannot be opened, or any other error."

// recordExitStatus states the exit statuses of the record commands.
const recordExitStatus = "Exit status: 0 the bundle was sealed (findings do not change the status, but one); 1 the\n" +
	"bundle was sealed and redaction changes its verdict (a redaction-changes-verdict finding), or\n" +
	"the store's content does not match its digests; 2 bad usage, input that cannot be recorded (nothing is\n" +
	"written), an unknown profile, a store in use by another process, or any other error."

// groupExitStatus states the exit statuses of a command that groups others.
const groupExitStatus = "Exit status: that of the command run (see its --help); 2 for an unknown command."

// newApp builds the program; program is its name as it was invoked (args[0]).
func newApp(program string, stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "oasis-replay",
		Usage:   "record OASIS evaluation evidence into content-addressed bundles and replay it through a pure evaluator",
		Version: version(),
		Description: "Flags may come before or after positional arguments (bundle export BUNDLE -o FILE is\n" +
			"bundle export -o FILE BUNDLE); -- ends the flags. The global --store may follow the command.\n" +
			"BUNDLE is a digest (sha256:<64 hex>), a unique digest prefix, or a tag.\n" +
			"oasis-replay help COMMAND, or COMMAND --help, describes one command and its exit statuses.\n\n" + exitStatusHelp,
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
		Action:                    runGroup,
		CustomAppHelpTemplate:     cli.AppHelpTemplate,
		EnableBashCompletion:      true,
		ExitErrHandler:            func(*cli.Context, error) {}, // run maps errors to statuses
		OnUsageError:              usageError,
		UseShortOptionHandling:    true,
		Suggest:                   true,
		DisableSliceFlagSeparator: true,
		Metadata:                  map[string]any{programKey: program},
	}
	prepareCommands(app.Name, app.Commands)
	return app
}

// commands lists every command, in the order --help shows them.
func commands() []*cli.Command {
	return []*cli.Command{
		demoCommand(),
		demoAgentCommand(),
		recordCommand(),
		replayCommand(),
		auditCommand(),
		receiptCommand(),
		profileCommand(),
		conformanceCommand(),
		bundleCommand(),
		catCommand(),
		remoteCommand(),
		storeCommand(),
		goldenCommand(),
		kensaCommand(),
		evalCommand(),
		serveCommand(),
		versionCommand(),
	}
}
