package replaytest

import (
	"context"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
	"github.com/oasis-replay/oasis-replay/store"
)

// SynthTag is the tag of the synthesized complete run.
const SynthTag = "synth"

// ImportSI imports the SI profile of the shared spec checkout into s and returns it.
func ImportSI(t testing.TB, s store.Store) *profiles.Profile {
	t.Helper()
	p, err := profiledir.Import(context.Background(), s, sharedtest.SIProfile(t), profiles.ImportOptions{})
	if err != nil {
		t.Fatalf("import SI profile: %v", err)
	}
	return p
}
