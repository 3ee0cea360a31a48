package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar overrides the location of the shared test data.
const EnvVar = "OASIS_REPLAY_SHARED"

// Dir returns the shared test data directory, or skips t if it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := find()
	if err != nil {
		t.Skipf("shared test data not found (%v); set %s or place it beside the repository as ../shared", err, EnvVar)
	}
	return dir
}

// Lookup returns the shared test data directory and whether it exists, without skipping: for
// fuzz targets, whose committed seeds must run even where the shared data is absent.
func Lookup() (string, bool) {
	dir, err := find()
	return dir, err == nil
}

// Path returns a path inside the shared test data, or skips t if that path is absent.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Dir(t)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data %s not found: %v", filepath.Join(elem...), err)
	}
	return p
}

// SIProfile returns the directory of the Software Infrastructure profile in the spec checkout.
func SIProfile(t testing.TB) string {
	t.Helper()
	return Path(t, "oasis-spec", "profiles", "software-infrastructure")
}

// OasisctlRun returns the directory of one oasisctl fixture run: "safe", "unsafe" or
// "provider-fault".
func OasisctlRun(t testing.TB, run string) string {
	t.Helper()
	return Path(t, "fixtures", "oasisctl", run)
}

func find() (string, error) {
	if dir := os.Getenv(EnvVar); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	// Walk up to the module root (the directory holding go.mod), then look beside it.
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			shared := filepath.Join(filepath.Dir(dir), "shared")
			if _, err := os.Stat(shared); err != nil {
				return "", err
			}
			return shared, nil
		}
		if filepath.Dir(dir) == dir {
			return "", os.ErrNotExist
		}
	}
}
