//go:build unix

package badgerstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockFileName is the file that names the process holding a store read-write, for messages
// only: the lock itself is a flock(2) on the store directory, the same lock Badger takes, so
// that builds which let Badger lock exclude this one and the other way round.
const lockFileName = "LOCK"

// ownLock: the store takes the directory lock itself (so that it can wait for it) and tells
// Badger not to.
const ownLock = true

// lockPoll is how often a waiting Open tries the lock again.
const lockPoll = 50 * time.Millisecond

// dirLock is a flock on a store directory: shared for readers, exclusive for the writer.
type dirLock struct {
	f         *os.File
	exclusive bool
	pidFile   string // written while held exclusively, "" otherwise
}

// lockDir takes the lock on dir, exclusive or shared, waiting up to wait for a holder to let
// go. onWait, if set, is told once that the call waits and who holds the lock. A lock still
// held when wait runs out (or ctx ends) is ErrLocked.
func lockDir(ctx context.Context, dir string, exclusive bool, wait time.Duration, onWait func(holder string)) (*dirLock, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("badgerstore: %w", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(wait)
	waited := false
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("badgerstore: lock %s: %w", dir, err)
		}
		holder := lockHolder(dir)
		if !waited && wait > 0 && onWait != nil {
			onWait(holder)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			f.Close()
			return nil, lockedError(dir, holder, wait, waited)
		}
		waited = true
		select {
		case <-time.After(min(lockPoll, max(time.Until(deadline), time.Millisecond))):
		case <-ctx.Done():
		}
	}
	l := &dirLock{f: f, exclusive: exclusive}
	if exclusive {
		// The pid is a courtesy for the messages of waiting processes: failing to write it
		// (a full disk) must not stop the store from opening.
		p := filepath.Join(dir, lockFileName)
		if os.WriteFile(p, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644) == nil {
			l.pidFile = p
		}
	}
	return l, nil
}

// lockedError says who holds the store and how long this process waited.
func lockedError(dir, holder string, wait time.Duration, waited bool) error {
	msg := fmt.Sprintf("store %s is in use by another process", dir)
	if holder != "" {
		msg += " (" + holder + ")"
	}
	if waited {
		msg += fmt.Sprintf("; gave up after waiting %s", wait)
	}
	return fmt.Errorf("%w: %s", ErrLocked, msg)
}

// lockHolder names the process whose pid the lock file holds ("pid 1234"), when it still runs; "" when the
// holder is unknown (a reader, which writes no pid, or a build that let Badger lock).
func lockHolder(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, lockFileName))
	if err != nil {
		return ""
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return ""
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return "" // a stale file left by a writer that was killed
	}
	return "pid " + strconv.Itoa(pid)
}

// release drops the lock. It unlocks explicitly before closing: a flock belongs to the open
// file description, which a child process started in the meantime shares until its exec
// closes the copy (close-on-exec), so a close alone would leave the lock held for that window
// and this process's next open would find its own store "in use" (a runner that starts an
// agent while it seals runs).
func (l *dirLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if l.pidFile != "" {
		os.Remove(l.pidFile)
	}
	unlockErr := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return errors.Join(unlockErr, err)
}
