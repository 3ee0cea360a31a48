package badgerstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// logHeaderSize is the header Badger writes at the start of every memtable log (.mem) and
// value-log file (.vlog): a file shorter than it holds no entry.
const logHeaderSize = 20

// staleLogs lists the memtable logs and value-log files in dir that are shorter than their
// header. Badger creates such a file empty, then sets its length and maps it; a process killed
// in between leaves it empty, and Badger then fails every later open of the store, read-only
// ("truncate …: invalid argument") or read-write ("Create a new file"). Such a file holds
// nothing, so removing it loses nothing.
func staleLogs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("badgerstore: %w", err)
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".mem") && !strings.HasSuffix(name, ".vlog") {
			continue
		}
		info, err := e.Info()
		if err == nil && info.Size() < logHeaderSize {
			stale = append(stale, filepath.Join(dir, name))
		}
	}
	return stale, nil
}

// removeStaleLogs removes the files staleLogs finds. The caller holds the store's exclusive
// lock, so no writer can be creating them.
func removeStaleLogs(dir string) error {
	stale, err := staleLogs(dir)
	if err != nil {
		return err
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("badgerstore: remove the empty log %s left by a process killed while opening the store: %w", p, err)
		}
	}
	return nil
}
