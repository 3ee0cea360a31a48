package replaytest

import (
	"fmt"
	"os"
	"testing"

	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// PrepareStoreEnv names the on-disk store TestPrepareStore writes.
const PrepareStoreEnv = "OASIS_REPLAY_PREPARE_STORE"

// TestPrepareStore records the synthesized complete run (which no recorder source produces)
// into the on-disk store named by OASIS_REPLAY_PREPARE_STORE, tagged SynthTag, and prints its
// digest. It is skipped when the variable is unset; scripts/bench-replay.sh uses it to prepare
// the store it times the CLI on.
func TestPrepareStore(t *testing.T) {
	dir := os.Getenv(PrepareStoreEnv)
	if dir == "" {
		t.Skip("set " + PrepareStoreEnv + " to a store directory to prepare it")
	}
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fmt.Printf("%s %s\n", SynthTag, SynthBundle(t, s, ImportSI(t, s)))
}
