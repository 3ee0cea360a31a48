package main

import (
	"fmt"
	"slices"
	"sync"

	"github.com/urfave/cli/v2"

	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
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

// kensaRunShardFlags are kensa run's flags for sharded work.
func kensaRunShardFlags() []cli.Flag {
	return append(shardFlagList(kensaRunShardKey),
		&cli.StringFlag{Name: "push", Usage: "then push the runs sealed to `REMOTE` (a remote's name or URL)"},
		&cli.StringFlag{Name: "from", Usage: "first pull `REMOTE`'s runs, and skip those of the same --run-id"},
		plainHTTPFlag())
}

// shardKensaJobs keeps the jobs of the shard --shard or --shards names (all of them without)
// and, with --from, pulls the remote's runs into the store and drops the jobs already sealed
// there under run id runID.
func shardKensaJobs(c *cli.Context, jobs []rkensa.Job, runID string) ([]rkensa.Job, error) {
	sh, err := shardFlags(c)
	if err != nil {
		return nil, err
	}
	if !sh.Whole() {
		jobs = slices.DeleteFunc(jobs, func(j rkensa.Job) bool { return !sh.HasKey(kensaJobKey(j)) })
	}
	from := c.String("from")
	if from == "" {
		return jobs, nil
	}
	b, err := openRemote(c, from, c.Bool("plain-http"))
	if err != nil {
		return nil, err
	}
	refs, err := remote.AllBundles(c.Context, b)
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	err = withStore(c, readWrite, func(s store.Store) error {
		if len(refs) > 0 {
			if _, err := remote.Pull(c.Context, s, b, refs, remote.PullOptions{Limits: archive.DefaultLimits()}); err != nil {
				return err
			}
		}
		sealed, err := s.ListRefs(c.Context, store.RefBundlePrefix)
		if err != nil {
			return err
		}
		for _, r := range sealed {
			raw, err := s.GetObject(c.Context, r.Digest)
			if err != nil {
				return err
			}
			m, err := store.DecodeBundleManifest(raw)
			if err != nil {
				return fmt.Errorf("bundle %s: %w", r.Digest, err)
			}
			if run, ok := m.(*store.KensaRun); ok && run.RunID == runID {
				done[fmt.Sprintf("%s/%d/%s", run.Scenario, run.Case, run.Annotations[rkensa.AnnotationRepeat])] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	kept := slices.DeleteFunc(jobs, func(j rkensa.Job) bool { return done[kensaJobKey(j)] })
	if skipped := len(jobs) - len(kept); skipped > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%d runs of run id %s are sealed already (pulled from %s): not run again\n", skipped, runID, b)
	}
	return kept, nil
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
