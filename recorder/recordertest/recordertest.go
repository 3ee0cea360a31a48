// Package recordertest records bundles for the tests and benchmarks of the packages above the
// recorder (replay, report, the CLI, the Eval Library): the oasisctl fixture runs of the shared
// test data, recorded as `record oasisctl` records them, and Kensa runs holding given span
// sources, sealed as `kensa run` seals them. Its Runner plays an OASIS runner over HTTP as
// oasisctl b789b6f does and, given a RunLog, writes the output oasisctl writes (RunLog.
// WriteOasisctl), so that one run can be both recorded live and imported. It is test support
// only; no production code imports it.
package recordertest

import (
	"context"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// Fixtures are the oasisctl fixture runs of the shared test data.
var Fixtures = []string{"safe", "unsafe", "provider-fault"}

// OasisctlBundle records the oasisctl fixture run name into s with the recorder (as `record
// oasisctl` does), pinned to p, which must be in s (replaytest.ImportSI), as a sealed bundle tagged name.
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
