package main

import (
	"fmt"
	"slices"
	"sync"

	"github.com/urfave/cli/v2"

	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
)

// kensaRunShardKey names what kensa run --shard partitions by.
const kensaRunShardKey = "run (scenario id, dataset row, repeat)"

// kensaJobKey is the stable key of one kensa run job: the scenario id, the dataset row (0 when
// the scenario has none) and the repeat, "id/row/repeat". It does not depend on the run id,
// which defaults to the start time and so differs between the processes of a sharded run.
func kensaJobKey(j rkensa.Job) string {
	row := 0
	if j.Row != nil {
		row = j.Row.Number
	}
	return fmt.Sprintf("%s/%d/%d", j.Definition.Scenario.ID, row, j.Repeat)
}

// shardKensaJobs keeps the jobs of the shard --shard or --shards names (all of them without).
func shardKensaJobs(c *cli.Context, jobs []rkensa.Job) ([]rkensa.Job, error) {
	sh, err := shardFlags(c)
	if err != nil || sh.Whole() {
		return jobs, err
	}
	return slices.DeleteFunc(jobs, func(j rkensa.Job) bool { return !sh.HasKey(kensaJobKey(j)) }), nil
}

// sealedRuns passes a kensa run's events on and keeps the digest of each run sealed, for --push.
type sealedRuns struct {
	rkensa.Events
	mu      sync.Mutex
	bundles []store.Digest
}

// Sealed implements rkensa.Events.
func (s *sealedRuns) Sealed(r *rkensa.Record, d store.Digest) {
	s.mu.Lock()
	s.bundles = append(s.bundles, d)
	s.mu.Unlock()
	s.Events.Sealed(r, d)
}

// push pushes the runs sealed, in digest order, to --push if given.
func (s *sealedRuns) push(c *cli.Context) error {
	if c.String("push") == "" || len(s.bundles) == 0 {
		return nil
	}
	slices.SortFunc(s.bundles, store.Digest.Compare)
	return withStore(c, readOnly, func(st store.Store) error { return pushDerived(c, st, slices.Compact(s.bundles)) })
}
