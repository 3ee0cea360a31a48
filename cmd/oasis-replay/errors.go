package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Exit statuses (DESIGN §6; documented in --help, see exitStatusHelp).
const (
	exitOK       = 0
	exitMismatch = 1
	exitError    = 2
)

// errBadUsage marks a command line that cannot be run as written.
var errBadUsage = errclass.New(errclass.Input, "bad usage")

// reported is an outcome whose explanation the command already printed; only its exit status
// remains to be returned.
type reported struct{ status int }

func (r reported) Error() string { return fmt.Sprintf("exit status %d", r.status) }

// classStatus is the exit status of each class of error: a finding about the data (content
// that does not match its digest, a damaged archive) is 1, as a mismatch is; every failure to
// run is 2. It lists every class, Unclassified (errors of the standard library) included;
// TestEveryClassHasAStatus fails when errclass gains a class this table does not list.
var classStatus = map[errclass.Class]int{
	errclass.Unclassified: exitError,
	errclass.Input:        exitError,
	errclass.NotFound:     exitError,
	errclass.Environment:  exitError,
	errclass.InUse:        exitError,
	errclass.Internal:     exitError,
	errclass.Integrity:    exitMismatch,
}

// exitStatus maps an error to the process exit status: the status a command chose and
// reported itself, else the status of the error's class.
func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var r reported
	if errors.As(err, &r) {
		return r.status
	}
	if status, ok := classStatus[errclass.Of(err)]; ok {
		return status
	}
	return exitError
}

// reportError prints err for the user (unless the command already did) and returns the exit
// status.
func reportError(stderr io.Writer, err error) int {
	status := exitStatus(err)
	var r reported
	if err != nil && !errors.As(err, &r) {
		fmt.Fprintf(stderr, "oasis-replay: %v\n", err)
	}
	return status
}

// usageError turns a flag-parsing failure into a bad-usage error naming the command.
func usageError(c *cli.Context, err error, _ bool) error {
	return fmt.Errorf("%w: %s: %v (see --help)", errBadUsage, c.Command.FullName(), err)
}

// argsError reports a wrong number or shape of positional arguments.
func argsError(c *cli.Context, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s (usage: %s %s)", errBadUsage, c.Command.FullName(),
		fmt.Sprintf(format, args...), c.Command.HelpName, c.Command.ArgsUsage)
}

// wantArgs checks the number of positional arguments and rejects flags written after them,
// which urfave/cli v2 would otherwise ignore silently.
func wantArgs(c *cli.Context, n int) error {
	for _, a := range c.Args().Slice() {
		if len(a) > 1 && a[0] == '-' {
			return argsError(c, "flag %q after a positional argument: put flags first", a)
		}
	}
	if c.NArg() != n {
		return argsError(c, "want %d argument(s), got %d", n, c.NArg())
	}
	return nil
}
