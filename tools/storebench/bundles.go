package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// bundles seals n small bundles into a store, opening and closing the store for each one as n
// runs of `oasis-replay record` would, so that the store's tables are laid out as after n
// separate commands. Bundle i is the same for every call (a pinned profile tree shared by all,
// three scenarios with a small audit log and transcript each).
func bundles(args []string) error {
	fs := flag.NewFlagSet("bundles", flag.ExitOnError)
	dir := fs.String("store", "", "store directory")
	n := fs.Int("n", 1000, "bundles to seal")
	fs.Parse(args)
	if *dir == "" {
		return errors.New("bundles: -store DIR is required")
	}
	ctx := context.Background()
	for i := range *n {
		s, err := badgerstore.Open(*dir, badgerstore.Options{})
		if err != nil {
			return err
		}
		err = sealSmallBundle(ctx, s, i)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("bundle %d: %w", i, err)
		}
	}
	return nil
}

func sealSmallBundle(ctx context.Context, s store.Store, i int) error {
	put := func(b []byte, mediaType string) (store.Descriptor, error) {
		d, n, err := s.PutBlob(ctx, strings.NewReader(string(b)))
		return store.Descriptor{MediaType: mediaType, Digest: d, Size: n}, err
	}
	profile, err := put([]byte("# bench profile\n"), store.MediaTypeOctetStream)
	if err != nil {
		return err
	}
	tree, err := store.Put(ctx, s, &store.ProfileTree{ProfileID: "bench-profile", Version: "1.0.0",
		Entries: []store.TreeEntry{{Path: "profile.md", Blob: profile}}})
	if err != nil {
		return err
	}
	m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "storebench", Version: "1", Source: "files"},
		Profile: store.ProfileRef{ID: "bench-profile", Version: "1.0.0", Tree: tree.Digest}, CoreSpecVersion: "1.0.0-rc1.5",
		Agent: store.AgentIdentity{Name: "bench-agent", Version: fmt.Sprintf("1.%d", i)}, Tier: 1}
	for sc := range 3 {
		var log strings.Builder
		if err := auditgen.Write(&log, int64(i*3+sc), 4<<10); err != nil {
			return err
		}
		audit, err := put([]byte(log.String()), store.MediaTypeK8sAuditEvents)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("bench.scenario-%03d", sc)
		ev, err := store.Put(ctx, s, &store.ScenarioEvidence{ScenarioID: id,
			Transcript:   store.Transcript{FinalAnswer: fmt.Sprintf("run %d, scenario %d: done", i, sc)},
			Observations: []store.Observation{{Type: store.ObservationAuditLog, Data: audit}}})
		if err != nil {
			return err
		}
		m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: id, Evidence: &ev})
	}
	_, err = store.Seal(ctx, s, m, fmt.Sprintf("run-%d", i))
	return err
}
