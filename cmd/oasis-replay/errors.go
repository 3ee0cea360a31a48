package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// Exit statuses (DESIGN §6; documented in --help, see exitStatusHelp).
const (
	exitOK       = 0
	exitMismatch = 1
	exitError    = 2
	// exitNotReDerivable: an audit found no mismatch, but part of the claim could not be
	// re-derived (the evaluator cannot evaluate it exactly as the claim's producer would), so
	// it is neither confirmed nor contradicted (docs/decisions.md, "Audit: not re-derivable").
	exitNotReDerivable = 3
	// exitPartial: kensa import imported every run it could read, and reported the files it
	// could not (docs/decisions.md, "kensa import: partial imports").
	exitPartial = 4
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
	return usageErrorf(c, "%v%s (see --help)", err, flagSuggestion(c, err))
}

// usageErrorf reports a command line that cannot be run as written: a flag missing, or
// flags that do not go together.
func usageErrorf(c *cli.Context, format string, args ...any) error {
	if name := commandName(c); name != "" {
		return fmt.Errorf("%w: %s: %s", errBadUsage, name, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%w: %s", errBadUsage, fmt.Sprintf(format, args...))
}

// argsError reports a wrong number or shape of positional arguments, with the usage line.
func argsError(c *cli.Context, format string, args ...any) error {
	return usageErrorf(c, "%s (usage: %s)", fmt.Sprintf(format, args...), usageLine(c.Command))
}

// commandName is the command as written after the program's name ("bundle export"), or "" for
// the program itself.
func commandName(c *cli.Context) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.Command.HelpName, c.App.HelpName), " ")
}
