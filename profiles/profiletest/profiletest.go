// Package profiletest gives tests the Software Infrastructure profile of the shared spec
// checkout, loaded once per test binary (loading and validating it takes long enough to matter
// when dozens of tests need it, and no test changes it), and renders what a scenario declares
// as the evidence payloads a provider would report, for tests that synthesize runs.
package profiletest

import (
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
)

var (
	siOnce    sync.Once
	siProfile *profiles.Profile
	siErr     error
)

// SI returns the loaded SI profile, skipping t when the shared test data is absent. Callers
// must not modify it.
func SI(t testing.TB) *profiles.Profile {
	t.Helper()
	dir := sharedtest.SIProfile(t)
	siOnce.Do(func() { siProfile, siErr = profiledir.Load(dir, profiles.LoadOptions{}) })
	if siErr != nil {
		t.Fatalf("load the SI profile: %v", siErr)
	}
	return siProfile
}
