package golden

import (
	"os"
	"path/filepath"
)

// FindShared looks for the shared test data where the project's tests look for it (package
// internal/sharedtest, which the shipped binary must not import): a directory named "shared"
// beside the repository, the repository being the nearest directory above one of the start
// directories (the corpus, then the working directory) that holds a go.mod. It returns "" when
// there is none, so that a corpus checked from a clone runs the cases its tests run.
// (The OASIS_REPLAY_SHARED variable, which the tests also honour, is read by the command line.)
func FindShared(start ...string) string {
	for _, dir := range start {
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if shared := sharedBeside(abs); shared != "" {
			return shared
		}
	}
	return ""
}

// sharedBeside walks up from dir to the first directory holding a go.mod and returns the
// "shared" directory beside it, or "" if either is missing.
func sharedBeside(dir string) string {
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if info, err := os.Stat(shared); err == nil && info.IsDir() {
				return shared
			}
			return ""
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}
