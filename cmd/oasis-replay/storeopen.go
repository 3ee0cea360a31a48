package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

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

// access is what a command does with the store, which decides how it is opened.
type access int

const (
	// readOnly commands share the store with other readers and write nothing.
	readOnly access = iota
	// readWrite commands hold the store alone while they run.
	readWrite
)

// accessFor is readOnly when a command's flag (--no-store, --dry-run) says it writes nothing.
func accessFor(writesNothing bool) access {
	if writesNothing {
		return readOnly
	}
	return readWrite
}

// openStore opens the store named by --store for the duration of one command. It is the only
// place the CLI names a concrete store: every command works through store.Store.
//
// The store-opening policy (docs/decisions.md, "Opening the store"): a writer holds the store
// alone, readers share it. A command that finds the store held waits for it, up to --lock-wait,
// saying so on stderr, then gives up naming the holder. A store left by a killed writer is
// recovered first (a read-write open replays its log), which needs the lock and free space
// like any write.
func openStore(c *cli.Context, mode access) (store.Store, error) {
	return openStoreWith(c, mode, badgerstore.Options{})
}

// openStoreWith is openStore with store options other than the defaults.
func openStoreWith(c *cli.Context, mode access, opts badgerstore.Options) (store.Store, error) {
	dir := c.String("store")
	if dir == "" {
		return nil, usageErrorf(c, "--store is empty")
	}
	if mode == readWrite {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create store directory: %w", err)
		}
	}
	opts.ReadOnly = mode == readOnly
	wait, onWait := lockWait(c)
	opts.LockWait, opts.OnLockWait = max(opts.LockWait, wait), onWait
	s, err := badgerstore.OpenContext(c.Context, dir, opts)
	if mode == readOnly && errors.Is(err, badgerstore.ErrNeedsRecovery) {
		// A writer was killed before it closed the store. Opening it read-write once replays
		// its log (what was synced is kept, anything later is dropped), then the read-only
		// open works.
		if err := recoverStore(c, dir); err != nil {
			return nil, err
		}
		s, err = badgerstore.OpenContext(c.Context, dir, opts)
	}
	if mode == readOnly && errors.Is(err, badgerstore.ErrNotStore) {
		if _, statErr := os.Stat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("no store at %s yet: record or import a bundle first, or choose one with --store or %s", dir, storeEnvVar)
		}
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// lockWait is how long an open waits for a store another process holds (--lock-wait), and
// what it says on stderr when it starts waiting.
func lockWait(c *cli.Context) (time.Duration, func(holder string)) {
	wait := c.Duration("lock-wait")
	return wait, func(holder string) {
		if holder != "" {
			holder = " (" + holder + ")"
		}
		fmt.Fprintf(c.App.ErrWriter, "oasis-replay: store %s is in use by another process%s; waiting up to %s (--lock-wait)\n",
			c.String("store"), holder, wait)
	}
}

// openScratchStore opens an empty store in memory, for commands that build bundles they do not
// keep (golden).
func openScratchStore() (store.Store, error) {
	return badgerstore.OpenInMemory(badgerstore.Options{})
}

// openTemporaryStore opens an empty store on disk in dir (a temporary directory the caller
// removes), for a report on what a remote holds (--from): on disk, not in memory, since the
// union of a sharded run may be larger than memory.
func openTemporaryStore(c *cli.Context, dir string) (store.Store, error) {
	return badgerstore.OpenContext(c.Context, dir, badgerstore.Options{})
}

// storeEnvVar names the store directory when --store is not given.
const storeEnvVar = "OASIS_REPLAY_STORE"

// lockWaitEnvVar sets --lock-wait.
const lockWaitEnvVar = "OASIS_REPLAY_LOCK_WAIT"

// defaultLockWait is long enough for another command's short write (a record, an import, a
// replay storing its receipt) and short enough that a script blocked by a live recording
// learns it soon.
const defaultLockWait = 30 * time.Second

// withStore opens the store named by --store, runs use on it and closes it. A failure to
// close is returned when use succeeded: after a write, it means the store may not hold what
// the command reported.
func withStore(c *cli.Context, mode access, use func(s store.Store) error) error {
	s, err := openStore(c, mode)
	if err != nil {
		return err
	}
	return useAndClose(c, s, use)
}

// useAndClose runs use on s and closes it, reporting a failed close when use succeeded.
func useAndClose(c *cli.Context, s store.Store, use func(s store.Store) error) error {
	useErr := use(s)
	if closeErr := s.Close(); useErr == nil && closeErr != nil {
		return fmt.Errorf("close store %s: %w", c.String("store"), closeErr)
	}
	return useErr
}

// withBundle is withStore for commands whose first argument is a BUNDLE (a digest, a unique
// prefix or a tag): use receives the digest it resolves to.
// A BUNDLE written REMOTE@REF (oci://host/repo@sha256:…) is pulled into the store first.
func withBundle(c *cli.Context, mode access, use func(s store.Store, d store.Digest) error) error {
	arg, err := pullReference(c, c.Args().First())
	if err != nil {
		return err
	}
	return withStore(c, mode, func(s store.Store) error {
		d, err := store.Resolve(c.Context, s, arg)
		if err != nil {
			return err
		}
		return use(s, d)
	})
}

// checkStoreDir refuses a --store that cannot be a store, before a live recording journals
// into it for hours only to find it cannot seal there.
func checkStoreDir(c *cli.Context) error {
	return badgerstore.CheckDir(c.String("store"))
}

// journalsDir is where the live recorders of the store named by --store keep their journals
// (inside the store directory, which the store leaves alone).
func journalsDir(c *cli.Context) string {
	return filepath.Join(c.String("store"), badgerstore.JournalsDir)
}

// sealWait bounds how long sealing a live recording waits while another process holds the
// store, typically a short command run meanwhile.
const sealWait = 30 * time.Second

// withSealingStore opens the store for sealing a live recording: for writing, waiting up to
// sealWait while another process holds it, and sized for the live recorders' memory budget
// (DESIGN §7: 64 MiB whatever the body sizes): one compression worker, 512 KiB chunks and
// 1 MiB write batches, which bound what a large blob holds in memory (docs/decisions.md, Live
// recording), and packs compressed with the smaller of the store's encoders.
func withSealingStore(c *cli.Context, use func(s store.Store) error) error {
	s, err := openStoreWith(c, readWrite, badgerstore.Options{Workers: 1, WriteBatch: 1 << 20, ChunkSize: 512 << 10, LockWait: sealWait, SmallMemory: true})
	if err != nil {
		return err
	}
	return useAndClose(c, s, use)
}

// recoverStore opens the store in dir read-write and closes it again, which replays the log a
// killed writer left behind.
func recoverStore(c *cli.Context, dir string) error {
	var opts badgerstore.Options
	opts.LockWait, opts.OnLockWait = lockWait(c)
	s, err := badgerstore.OpenContext(c.Context, dir, opts)
	if err != nil {
		return fmt.Errorf("store %s was not closed cleanly, and replaying its log (a read-write open) failed: %w", dir, err)
	}
	return s.Close()
}

// storeLocked reports whether opening failed because another process holds the store.
func storeLocked(err error) bool { return errors.Is(err, badgerstore.ErrLocked) }
