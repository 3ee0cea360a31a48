package main

import (
	"bufio"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/internal/shard"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

func kensaReplayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "re-derive the verdict of every recorded Kensa run in one process, and store the receipts",
		ArgsUsage: "[SCENARIO…]",
		Description: "replay BUNDLE for every Kensa run in the store (only the SCENARIOs named, if any): each run's\n" +
			"checks re-derived from its evidence, its verdict and receipt stored (verdict objects, receipt\n" +
			"objects and receipts/<hex> refs) unless --no-store. Runs are loaded and evaluated\n" +
			"concurrently, and listed in digest order: bundle, scenario (and dataset row), status, verdict.\n\n" +
			"--json prints {\"runs\": [{\"bundle\", \"scenario\", \"case\", \"run_id\", \"status\", \"verdict\",\n" +
			"\"receipt\"}, …]}.\n\n" +
			"--shard I/N replays only the runs whose bundle digest falls in shard I of N (its first 8\n" +
			"bytes, big-endian, modulo N): N processes with I = 0…N-1 replay every run once, and the\n" +
			"union of their lines, in digest order, is the unsharded output. --shards N takes I from\n" +
			"JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it.\n\n" +
			"--from REMOTE first pulls into the store the bundles REMOTE names whose digest is in the shard\n" +
			"(all of them without --shard), with their receipts: a pod starting from an empty store replays\n" +
			"its share of what the runs' recorders pushed. --push REMOTE then pushes the shard's runs with\n" +
			"their receipts (only what REMOTE lacks: a retried shard uploads nothing new); kensa stats\n" +
			"--from REMOTE reports on the union.\n\n" +
			"Exit status: 0 every verdict was derived (whatever it is); 1 the store's content does not match\n" +
			"its digests; 2 bad usage or unreadable evidence.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the runs as JSON"},
			&cli.BoolFlag{Name: "no-store", Usage: "do not store verdicts and receipts (the store is opened read-only)"},
			&cli.StringFlag{Name: "shard", Usage: "replay only shard `I/N` of the runs (0 ≤ I < N), partitioned by bundle digest"},
			&cli.IntFlag{Name: "shards", Usage: "replay shard $JOB_COMPLETION_INDEX of `N` (a Kubernetes Indexed Job's pods)"},
			&cli.StringFlag{Name: "from", Usage: "first pull the shard's bundles and receipts from `REMOTE` into the store"},
			&cli.StringFlag{Name: "push", Usage: "then push the shard's runs and their receipts to `REMOTE`"},
			plainHTTPFlag(),
		},
		Action: runKensaReplay,
	}
}

func runKensaReplay(c *cli.Context) error {
	noStore := c.Bool("no-store")
	sh, err := shardFlags(c)
	if err != nil {
		return err
	}
	if err := checkPushable(c); err != nil {
		return err
	}
	if c.String("from") != "" && noStore {
		return usageErrorf(c, "--from pulls into the store, which --no-store opens read-only")
	}
	return withStore(c, accessFor(noStore), func(s store.Store) error {
		if from := c.String("from"); from != "" {
			if _, err := pullShard(c, s, from, sh); err != nil {
				return err
			}
		}
		var keep func(store.Digest) bool
		if !sh.Whole() {
			keep = func(d store.Digest) bool { return sh.Has(d[:]) }
		}
		runs, err := replay.ReplayKensaWhere(c.Context, s, keep, c.Args().Slice(), !noStore || c.Bool("json"))
		if err != nil {
			return err
		}
		if !noStore {
			if err := replay.SaveAllKensa(c.Context, s, runs); err != nil {
				return err
			}
		}
		if err := pushDerived(c, s, replayedBundles(runs)); err != nil {
			return err
		}
		if c.Bool("json") {
			if runs == nil {
				runs = []replay.KensaReplayed{}
			}
			return writeCanonical(c.App.Writer, map[string]any{"runs": runs})
		}
		w := bufio.NewWriter(c.App.Writer) // one write for all the lines, not one per run
		for _, r := range runs {
			subject := r.Scenario
			if r.Case > 0 {
				subject = fmt.Sprintf("%s row %d", r.Scenario, r.Case)
			}
			fmt.Fprintf(w, "%s  %s  %s  verdict %s\n", r.Bundle, subject, r.Status, r.Verdict)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		stored := "stored"
		if noStore {
			stored = "not stored (--no-store)"
		}
		fmt.Fprintf(c.App.ErrWriter, "%d runs replayed; verdicts and receipts %s\n", len(runs), stored)
		return nil
	})
}

// shardFlags reads --shard I/N, or --shards N with JOB_COMPLETION_INDEX; neither is the whole.
func shardFlags(c *cli.Context) (shard.Shard, error) {
	switch {
	case c.IsSet("shard") && c.IsSet("shards"):
		return shard.Shard{}, usageErrorf(c, "--shard and --shards do not go together")
	case c.IsSet("shard"):
		sh, err := shard.Parse(c.String("shard"))
		if err != nil {
			return shard.Shard{}, usageErrorf(c, "--shard: %v", err)
		}
		return sh, nil
	case c.IsSet("shards"):
		sh, err := shard.FromEnv(c.Int("shards"))
		if err != nil {
			return shard.Shard{}, usageErrorf(c, "--shards: %v", err)
		}
		return sh, nil
	}
	return shard.Shard{}, nil
}

// replayedBundles lists the bundles of the runs replayed, in their order (digest order).
func replayedBundles(runs []replay.KensaReplayed) []store.Digest {
	out := make([]store.Digest, len(runs))
	for i, r := range runs {
		out[i] = r.Bundle
	}
	return out
}
