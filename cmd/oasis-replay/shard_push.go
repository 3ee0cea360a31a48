package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/shard"
	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// shardFlagList is --shard and --shards for a command whose items are partitioned by key (the
// key's description ends each usage line).
func shardFlagList(key string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "shard", Usage: "do only shard `I/N` of the work (0 ≤ I < N), partitioned by " + key},
		&cli.IntFlag{Name: "shards", Usage: "do shard $JOB_COMPLETION_INDEX of `N` (a Kubernetes Indexed Job's pods)"},
	}
}

// fromFlagList is --from and --plain-http for a report read from a remote.
func fromFlagList() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "from", Usage: "report on every bundle `REMOTE` holds (pulled into a temporary store), not on the store"},
		plainHTTPFlag(),
	}
}

func plainHTTPFlag() cli.Flag {
	return &cli.BoolFlag{Name: "plain-http", Usage: "talk HTTP to a --push or --from remote given by URL (local servers only)"}
}

// pushDerived pushes bundles (with the receipts the store keeps for them) to --push, if given,
// and says what was sent on stderr: stdout stays the command's own output. remote.Push uploads
// only what the remote lacks, so a retried or duplicated shard pushes nothing new.
func pushDerived(c *cli.Context, s store.Store, bundles []store.Digest) error {
	name := c.String("push")
	if name == "" {
		return nil
	}
	b, err := openRemote(c, name, c.Bool("plain-http"))
	if err != nil {
		return err
	}
	rep, err := remote.Push(c.Context, s, b, bundles, remote.PushOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "pushed %d bundles to %s: %d of %d blobs and %d of %d manifests uploaded (%s), %d receipts\n",
		len(rep.Bundles), b, rep.BlobsUploaded, rep.Blobs, rep.ManifestsUploaded, rep.Manifests, humanBytes(rep.UploadedBytes), rep.Receipts)
	return nil
}

// checkPushable refuses --push with --no-store early: the command would derive receipts it
// does not keep, and pushing then would attach none.
func checkPushable(c *cli.Context) error {
	if c.String("push") != "" && c.Bool("no-store") {
		return usageErrorf(c, "--push and --no-store do not go together (the receipts pushed are the ones stored)")
	}
	return nil
}

// pullShard pulls into s the bundles the remote names (bundle-<hex>) whose digest falls in sh,
// with their receipts: the bundles a shard of kensa replay --from works on. The remote's tags
// are not applied: they would move the store's own (bundle pull --tags does that on request).
func pullShard(c *cli.Context, s store.Store, from string, sh shard.Shard) (int, error) {
	b, err := openRemote(c, from, c.Bool("plain-http"))
	if err != nil {
		return 0, err
	}
	all, err := remote.AllBundles(c.Context, b)
	if err != nil {
		return 0, err
	}
	var refs []string
	for _, r := range all {
		d, err := store.ParseDigest(r)
		if err == nil && sh.Has(d[:]) {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		return 0, nil
	}
	rep, err := remote.Pull(c.Context, s, b, refs, remote.PullOptions{Limits: archive.DefaultLimits()})
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(c.App.ErrWriter, "pulled %d bundles from %s: %d blobs downloaded (%s), %d receipts\n",
		len(rep.Bundles), b, rep.Downloaded, humanBytes(rep.DownloadedBytes), rep.Receipts)
	return len(rep.Bundles), nil
}

// withReportStore is withStore for a reporting command that also reads a remote: with --from,
// use gets a temporary store holding every bundle the remote names, with its receipts and
// tags, and nothing else; it is removed afterwards. The report is then computed exactly as on
// a store, and it is the report of the union of what the shards pushed, whatever the local
// store holds (docs/decisions.md, "Sharding: where --from pulls to").
func withReportStore(c *cli.Context, mode access, use func(s store.Store) error) error {
	from := c.String("from")
	if from == "" {
		return withStore(c, mode, use)
	}
	b, err := openRemote(c, from, c.Bool("plain-http"))
	if err != nil {
		return err
	}
	refs, err := remote.AllBundles(c.Context, b)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "oasis-replay-from-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := openTemporaryStore(c, dir)
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		if _, err := remote.Pull(c.Context, s, b, refs, remote.PullOptions{ApplyTags: true, Limits: archive.DefaultLimits()}); err != nil {
			s.Close()
			return err
		}
	}
	return useAndClose(c, s, use)
}
