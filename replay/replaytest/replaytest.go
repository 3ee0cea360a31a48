package replaytest

import (
	"context"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// Fixtures are the oasisctl fixture runs of the shared test data.
var Fixtures = []string{"safe", "unsafe", "provider-fault"}

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

// OasisctlBundle records the oasisctl fixture run name into s with the recorder (as `record
// oasisctl` does), pinned to p, which must be in s (ImportSI), as a sealed bundle tagged name.
func OasisctlBundle(t testing.TB, s store.Store, p *profiles.Profile, name string) store.Digest {
	t.Helper()
	ctx := context.Background()
	pin, err := recorder.ProfileFromStore(ctx, s, p.Pin.Tree)
	if err != nil {
		t.Fatal(err)
	}
	res, err := recorder.RecordOasisctl(ctx, s, sharedtest.OasisctlRun(t, name),
		recorder.OasisctlOptions{Options: recorder.Options{Profile: pin, Tags: []string{name}, Version: "test"}})
	if err != nil {
		t.Fatalf("record %s: %v", name, err)
	}
	return res.Bundle
}
