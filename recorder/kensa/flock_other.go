//go:build !unix

package kensa

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// flock does nothing where flock(2) is missing: recovering a spool beside the kensa run writing
// it is then the user's mistake to avoid.
func flock(*os.File) error { return nil }
