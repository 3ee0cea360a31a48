package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/golden"
	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
)

// goldenShardFlags are golden check's flags for sharded work and JSON output.
func goldenShardFlags() []cli.Flag {
	return append(shardFlagList("case name"),
		&cli.BoolFlag{Name: "json", Usage: "print one record per case as JSON"},
		&cli.StringFlag{Name: "push", Usage: "then push each case's bundle and its outcome to `REMOTE`"},
		&cli.StringFlag{Name: "from", Usage: "report the outcomes REMOTE holds for the cases (pushed by golden check --push) instead of checking them"},
		plainHTTPFlag())
}

// goldenShardHelp is golden check's help on sharding.
const goldenShardHelp = "--shard I/N checks only the cases whose name hashes into shard I of N (--shards N takes I from\n" +
	"JOB_COMPLETION_INDEX). --push REMOTE then pushes each case's bundle and a record of its\n" +
	"outcome, an OCI artifact of type application/vnd.oasis-replay.golden-result.v1+json named\n" +
	"golden-<case>-<key> where the key hashes the case's input and golden files, --runs and --key:\n" +
	"golden check --from REMOTE DIR reads the outcomes of DIR's cases from REMOTE instead of checking\n" +
	"them (a case without a record for its current files is an error), and its --json is the\n" +
	"unsharded golden check --json byte for byte. --json prints {\"cases\": [...], \"counts\": {...}}:\n" +
	"per case its name, outcome, digests, evaluations, differences and reasons."

// goldenSharded reports whether golden check is asked for sharded work or JSON output, which
// runGoldenCheck handles.
func goldenSharded(c *cli.Context) bool {
	for _, f := range []string{"shard", "shards", "push", "from", "json"} {
		if c.IsSet(f) {
			return true
		}
	}
	return false
}

// runGoldenCheck is golden check with --shard, --push, --from or --json: the cases of the
// shard checked (or, with --from, their records read from the remote), then listed as records.
func runGoldenCheck(c *cli.Context, corpus *golden.Corpus, opts golden.Options) error {
	sh, err := shardFlags(c)
	if err != nil {
		return err
	}
	if c.String("from") != "" && c.String("push") != "" {
		return usageErrorf(c, "--from reads outcomes and --push writes them: give one")
	}
	cases, err := corpus.Select(opts.Cases)
	if err != nil {
		return err
	}
	cases = slices.DeleteFunc(slices.Clone(cases), func(cs *golden.Case) bool { return !sh.HasKey(cs.Name) })
	var records []golden.Record
	if from := c.String("from"); from != "" {
		records, err = goldenRecordsFrom(c, corpus, cases, opts)
	} else {
		records, err = checkGoldenCases(c, corpus, cases, opts)
	}
	if err != nil {
		return err
	}
	counts := map[golden.Outcome]int{golden.OK: 0, golden.Mismatched: 0, golden.Skipped: 0, golden.Failed: 0}
	for _, r := range records {
		counts[r.Outcome]++
	}
	if c.Bool("json") {
		if records == nil {
			records = []golden.Record{}
		}
		err = writeCanonical(c.App.Writer, map[string]any{"cases": records, "counts": counts})
	} else {
		err = golden.WriteRecords(c.App.Writer, corpus.Dir, records)
	}
	if err != nil {
		return err
	}
	switch {
	case counts[golden.Failed] > 0:
		return reported{status: exitError}
	case counts[golden.Mismatched] > 0:
		return reported{status: exitMismatch}
	case counts[golden.Skipped] > 0 && !c.Bool("allow-skip"):
		fmt.Fprintf(c.App.ErrWriter, "golden check: %d cases skipped (their shared test data is unavailable; --shared DIR supplies it, --allow-skip accepts the skips)\n",
			counts[golden.Skipped])
		return reported{status: exitMismatch}
	}
	return nil
}

// checkGoldenCases checks the cases, then pushes each case's bundle and record with --push.
func checkGoldenCases(c *cli.Context, corpus *golden.Corpus, cases []*golden.Case, opts golden.Options) ([]golden.Record, error) {
	if len(cases) == 0 {
		return nil, nil
	}
	opts.Cases = make([]string, len(cases))
	for i, cs := range cases {
		opts.Cases[i] = cs.Name
	}
	// The scratch stores are kept until the bundles built in them are pushed.
	kept := &keptStores{}
	if c.String("push") != "" {
		newStore := opts.NewStore
		opts.NewStore = func() (store.Store, error) { return kept.open(newStore) }
	}
	defer kept.closeAll()
	rep, err := corpus.Check(c.Context, opts)
	if err != nil {
		return nil, err
	}
	records := make([]golden.Record, len(rep.Results))
	for i, res := range rep.Results {
		records[i] = res.Record()
	}
	if c.String("push") == "" {
		return records, nil
	}
	b, err := openRemote(c, c.String("push"), c.Bool("plain-http"))
	if err != nil {
		return nil, err
	}
	key, err := trustedKey(c)
	if err != nil {
		return nil, err
	}
	pushed, uploaded := 0, 0
	for i, res := range rep.Results {
		if res.Bundle != (store.Digest{}) {
			s, ok := kept.holding(c.Context, res.Bundle)
			if !ok {
				return nil, fmt.Errorf("golden check --push: case %s: bundle %s is in no scratch store", res.Case.Name, res.Bundle)
			}
			if _, err := remote.Push(c.Context, s, b, []store.Digest{res.Bundle}, remote.PushOptions{}); err != nil {
				return nil, err
			}
			pushed++
		}
		name, err := corpus.RecordName(res.Case, opts.Runs, key)
		if err != nil {
			return nil, err
		}
		doc, err := store.Marshal(records[i])
		if err != nil {
			return nil, err
		}
		up, err := remote.PutRecord(c.Context, b, name, remote.ArtifactTypeGoldenResult, doc)
		if err != nil {
			return nil, err
		}
		if up {
			uploaded++
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "pushed %d case bundles and %d outcomes to %s: %d outcomes uploaded\n", pushed, len(records), b, uploaded)
	return records, nil
}

// goldenRecordsFrom reads the record of each case from --from.
func goldenRecordsFrom(c *cli.Context, corpus *golden.Corpus, cases []*golden.Case, opts golden.Options) ([]golden.Record, error) {
	b, err := openRemote(c, c.String("from"), c.Bool("plain-http"))
	if err != nil {
		return nil, err
	}
	key, err := trustedKey(c)
	if err != nil {
		return nil, err
	}
	out := make([]golden.Record, 0, len(cases))
	for _, cs := range cases {
		name, err := corpus.RecordName(cs, opts.Runs, key)
		if err != nil {
			return nil, err
		}
		doc, err := remote.GetRecord(c.Context, b, name, remote.ArtifactTypeGoldenResult)
		if errors.Is(err, remote.ErrNotFound) {
			return nil, fmt.Errorf("%w: case %s: %s holds no outcome for its current files (%s): run golden check --push on its shard first", remote.ErrNotFound, cs.Name, b, name)
		}
		if err != nil {
			return nil, err
		}
		var r golden.Record
		dec := json.NewDecoder(strings.NewReader(string(doc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil || r.Case != cs.Name {
			return nil, fmt.Errorf("%w: %s on %s: not the outcome of case %s (%v)", remote.ErrIntegrity, name, b, cs.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// keptStores are the scratch stores of golden check --push, kept open until their bundles are
// pushed.
type keptStores struct {
	mu     sync.Mutex
	stores []store.Store
}

// open opens a scratch store whose Close does nothing: closeAll closes it.
func (k *keptStores) open(newStore func() (store.Store, error)) (store.Store, error) {
	s, err := newStore()
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stores = append(k.stores, s)
	return keptStore{s}, nil
}

// holding returns the kept store in which bundle b is sealed.
func (k *keptStores) holding(ctx context.Context, b store.Digest) (store.Store, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.stores {
		if d, err := s.GetRef(ctx, store.BundleRefName(b)); err == nil && d == b {
			return s, true
		}
	}
	return nil, false
}

func (k *keptStores) closeAll() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range k.stores {
		s.Close()
	}
	k.stores = nil
}

// keptStore is a scratch store whose Close is left to keptStores.
type keptStore struct{ store.Store }

func (keptStore) Close() error { return nil }

// trustedKey is the bytes of golden check --key, nil without it: part of each record's name.
func trustedKey(c *cli.Context) ([]byte, error) {
	if c.String("key") == "" {
		return nil, nil
	}
	return os.ReadFile(c.String("key"))
}
