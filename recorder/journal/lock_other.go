//go:build !unix

package journal

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("journal: locked")

// lock does nothing where flock is missing (see doc.go, Locking).
func lock(*os.File) error { return nil }
