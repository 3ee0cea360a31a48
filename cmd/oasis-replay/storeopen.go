package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// programVersion is the version of this build of the CLI.
const programVersion = "0.1.0"

func version() string { return programVersion }

// defaultStoreDir is the store used when neither --store nor OASIS_REPLAY_STORE is given:
// $XDG_DATA_HOME/oasis-replay/store, else ~/.local/share/oasis-replay/store.
func defaultStoreDir() string {
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		return filepath.Join(dir, "oasis-replay", "store")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "oasis-replay", "store")
	}
	return filepath.Join(".oasis-replay", "store")
}

// openStore opens the store named by --store for the duration of one command.
func openStore(c *cli.Context, readOnly bool) (*badgerstore.Store, error) {
	dir := c.String("store")
	if dir == "" {
		return nil, fmt.Errorf("%w: --store is empty", errBadUsage)
	}
	if !readOnly {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create store directory: %w", err)
		}
	}
	s, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: readOnly})
	if readOnly && errors.Is(err, badgerstore.ErrNeedsRecovery) {
		// A writer was killed before it closed the store. Opening it read-write once replays
		// its log (what was synced is kept, anything later is dropped), then the read-only
		// open works.
		if err := recoverStore(dir); err != nil {
			return nil, err
		}
		s, err = badgerstore.Open(dir, badgerstore.Options{ReadOnly: true})
	}
	if readOnly && errors.Is(err, badgerstore.ErrNotStore) {
		if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("no store at %s yet: record or import a bundle first, or choose one with --store or %s", dir, storeEnvVar)
		}
	}
	return s, err
}

// storeEnvVar names the store directory when --store is not given.
const storeEnvVar = "OASIS_REPLAY_STORE"

// withStore opens the store named by --store, runs use on it and closes it. A failure to
// close is returned when use succeeded: after a write, it means the store may not hold what
// the command reported.
func withStore(c *cli.Context, readOnly bool, use func(s *badgerstore.Store) error) error {
	s, err := openStore(c, readOnly)
	if err != nil {
		return err
	}
	useErr := use(s)
	if closeErr := s.Close(); useErr == nil && closeErr != nil {
		return fmt.Errorf("close store %s: %w", c.String("store"), closeErr)
	}
	return useErr
}

// withBundle is withStore for commands whose first argument is a BUNDLE (a digest, a unique
// prefix or a tag): use receives the digest it resolves to.
func withBundle(c *cli.Context, readOnly bool, use func(s *badgerstore.Store, d store.Digest) error) error {
	return withStore(c, readOnly, func(s *badgerstore.Store) error {
		d, err := store.Resolve(c.Context, s, c.Args().First())
		if err != nil {
			return err
		}
		return use(s, d)
	})
}

// recoverStore opens the store in dir read-write and closes it again, which replays the log a
// killed writer left behind.
func recoverStore(dir string) error {
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		return fmt.Errorf("recover store %s: %w", dir, err)
	}
	return s.Close()
}
