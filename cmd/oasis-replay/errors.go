package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// Exit statuses (documented in --help, see exitStatusHelp).
const (
	exitOK       = 0
	exitMismatch = 1
	exitError    = 2
)

// errMismatch marks an outcome that is a finding rather than a failure to run: a verdict that
// differs from the claim or the golden copy, content that does not match its digest.
var errMismatch = errors.New("mismatch")

// errBadUsage marks a command line that cannot be run as written.
var errBadUsage = errors.New("bad usage")

// reported is an outcome whose explanation the command already printed; only its exit status
// remains to be returned.
type reported struct{ status int }

func (r reported) Error() string { return fmt.Sprintf("exit status %d", r.status) }

// integrityErrors are the sentinels of other packages that mean "content does not match its
// digest or its references", or "this archive does not verify": a finding about the data,
// exit status 1. Every archive error caused by the archive's bytes is one of them — whatever
// byte of an archive is damaged, the answer to "does it verify?" is the same.
var integrityErrors = []error{
	errMismatch, store.ErrCorrupt, store.ErrMissingReference,
	archive.ErrCompression, archive.ErrMalformed, archive.ErrTruncated, archive.ErrTrailingData,
	archive.ErrLimit, archive.ErrUnsafePath, archive.ErrBadName, archive.ErrEntryType,
	archive.ErrUnsupportedDigest, archive.ErrDuplicate, archive.ErrMissingEntry, archive.ErrLayout,
	archive.ErrIndex, archive.ErrUnreferenced, archive.ErrMissingBlob, archive.ErrDigestMismatch,
	archive.ErrSizeMismatch, archive.ErrConflict, archive.ErrInvalidObject,
	attest.ErrInvalid, attest.ErrMismatch,
}

// exitStatus maps an error to the process exit status.
func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var r reported
	if errors.As(err, &r) {
		return r.status
	}
	for _, sentinel := range integrityErrors {
		if errors.Is(err, sentinel) {
			return exitMismatch
		}
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
