package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/evallib"
	"github.com/oasis-replay/oasis-replay/internal/shard"
	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// evalMatrixShardKey names what eval matrix --shard partitions by.
const evalMatrixShardKey = "run (cell key, run number)"

// evalMatrixShardFlags are the flags of a sharded eval matrix: --shard, --shards, --push,
// --from and --plain-http.
func evalMatrixShardFlags() []cli.Flag {
	return append(shardFlagList(evalMatrixShardKey),
		&cli.StringFlag{Name: "push", Usage: "then push the runs (and, unsharded, the matrix) to `REMOTE`"},
		&cli.StringFlag{Name: "from", Usage: "first pull the runs `REMOTE` holds into the store, so that they are reused"},
		plainHTTPFlag())
}

// evalRunKey is the stable key of one run of a matrix: the cell key (the agent and the request,
// evallib.CellKey) and the run number, "<cell key hex>/<run>". Neither depends on the machine,
// the time or the order of the cells.
func evalRunKey(cell store.Digest, run int) string {
	return cell.Hex() + "/" + strconv.Itoa(run)
}

// pullEvalRuns, with --from, pulls every bundle the remote names into the store and records
// the eval runs among them in their cells' indexes, so that planning the matrix reuses them:
// a shard retried on an empty store re-runs nothing another attempt pushed, and eval matrix
// --from, unsharded, seals the matrix of the runs the shards pushed without running the agent.
func pullEvalRuns(c *cli.Context) error {
	if _, err := shardFlags(c); err != nil {
		return err // a bad --shard is bad usage before anything is pulled or planned
	}
	from := c.String("from")
	if from == "" {
		return nil
	}
	b, err := openRemote(c, from, c.Bool("plain-http"))
	if err != nil {
		return err
	}
	refs, err := remote.AllBundles(c.Context, b)
	if err != nil || len(refs) == 0 {
		return err
	}
	return withStoreWaiting(c, readWrite, func(s store.Store) error {
		rep, err := remote.Pull(c.Context, s, b, refs, remote.PullOptions{Limits: archive.DefaultLimits()})
		if err != nil {
			return err
		}
		n, err := evalrun.IndexRuns(c.Context, s, rep.Bundles)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "pulled %d bundles from %s (%d blobs downloaded, %s), %d eval runs\n",
			len(rep.Bundles), b, rep.Downloaded, humanBytes(rep.DownloadedBytes), n)
		return nil
	})
}

// shardRun is one run of a matrix shard, as --json lists it.
type shardRun struct {
	Scenario  string       `json:"scenario"`
	Variation string       `json:"variation"`
	Run       int          `json:"run"`
	Bundle    store.Digest `json:"bundle"`
	Reused    bool         `json:"reused"`
}

// runEvalMatrixShard runs a shard of the matrix when --shard or --shards asks for one: the
// plan's runs whose key (evalRunKey) is in the shard, recorded now or reused, then pushed with
// --push. A shard does not seal the matrix, which names every cell's runs: eval matrix --from
// REMOTE, unsharded, seals it from the union. done is false when the whole matrix is asked for.
func runEvalMatrixShard(c *cli.Context, plan *evallib.Plan) (done bool, err error) {
	sh, err := shardFlags(c)
	if err != nil || sh.Whole() {
		return err != nil, err
	}
	plan.Jobs = slices.DeleteFunc(plan.Jobs, func(j *evalrun.Job) bool { return !sh.HasKey(evalRunKey(j.Key, j.Run)) })
	progress := newCellProgress(c.App.ErrWriter, plan)
	recorded, err := plan.Execute(c.Context, evallib.Execution{Parallel: c.Int("parallel"), Recorder: recorderInfo("eval matrix"),
		Open: storeOpener(c), Progress: progress, SpoolDir: c.String("spool-dir")})
	progress.finish()
	if errors.Is(err, evalrun.ErrInterrupted) {
		return true, fmt.Errorf("%w: %d of %d runs of shard %s recorded before the interruption; run the shard again to finish it",
			evallib.ErrIncomplete, len(recorded), len(plan.Jobs), sh)
	}
	if err != nil {
		return true, err
	}
	runs := shardRuns(plan, recorded, sh)
	bundles := make([]store.Digest, len(runs))
	for i, r := range runs {
		bundles[i] = r.Bundle
	}
	if c.String("push") != "" && len(bundles) > 0 {
		err = withStoreWaiting(c, readOnly, func(s store.Store) error { return pushDerived(c, s, bundles) })
		if err != nil {
			return true, err
		}
	}
	if c.Bool("json") {
		if runs == nil {
			runs = []shardRun{}
		}
		return true, writeCanonical(c.App.Writer, map[string]any{"shard": sh.String(), "runs": runs})
	}
	reused := 0
	for _, r := range runs {
		if r.Reused {
			reused++
		}
	}
	fmt.Fprintf(c.App.Writer, "shard %s: %d runs of %d cells, %d recorded now, %d reused; the matrix is sealed by eval matrix --from REMOTE\n",
		sh, len(runs), len(plan.Cells), len(recorded), reused)
	return true, nil
}

// shardRuns lists the runs of the shard, recorded now or reused, in cell order then run order.
func shardRuns(plan *evallib.Plan, recorded []evalrun.Recorded, sh shard.Shard) []shardRun {
	now := map[string]store.Digest{}
	for _, r := range recorded {
		now[evalRunKey(r.Job.Key, r.Job.Run)] = r.Bundle
	}
	var out []shardRun
	for _, cell := range plan.Cells {
		for run := 1; run <= plan.Options.Runs; run++ {
			k := evalRunKey(cell.Key, run)
			if !sh.HasKey(k) {
				continue
			}
			r := shardRun{Scenario: cell.Scenario.ID, Variation: cell.VariationID(), Run: run}
			if d, ok := now[k]; ok {
				r.Bundle = d
			} else if reused, ok := cell.Reused[run]; ok {
				r.Bundle, r.Reused = reused.Digest, true
			} else {
				continue
			}
			out = append(out, r)
		}
	}
	return out
}

// pushMatrix pushes a sealed matrix (the DAG of its runs, with their receipts) to --push.
func pushMatrix(c *cli.Context, matrix store.Digest) error {
	if c.String("push") == "" {
		return nil
	}
	return withStoreWaiting(c, readOnly, func(s store.Store) error { return pushDerived(c, s, []store.Digest{matrix}) })
}

// withMatrixReportStore is withReportStore for eval report: with --from and no MATRIX, the
// matrix reported is the one of the remote that no other matrix there names as its previous
// (the newest of its chain); several such matrices need MATRIX to choose.
func withMatrixReportStore(c *cli.Context, mode access, use func(s store.Store) error) error {
	if c.String("from") == "" {
		return withStore(c, mode, use)
	}
	return withReportStore(c, mode, func(s store.Store) error {
		if c.NArg() == 0 {
			if err := markLatestMatrix(c, s); err != nil {
				return err
			}
		}
		return use(s)
	})
}

// markLatestMatrix points the latest-matrix ref of a store pulled from --from at its newest
// matrix (see withMatrixReportStore).
func markLatestMatrix(c *cli.Context, s store.Store) error {
	refs, err := s.ListRefs(c.Context, store.RefBundlePrefix)
	if err != nil {
		return err
	}
	var matrices []store.Digest
	previous := map[store.Digest]bool{}
	for _, r := range refs {
		b, err := s.GetObject(c.Context, r.Digest)
		if err != nil {
			return err
		}
		m, err := store.DecodeBundleManifest(b)
		if err != nil {
			return fmt.Errorf("bundle %s: %w", r.Digest, err)
		}
		if mx, ok := m.(*store.EvalMatrix); ok {
			matrices = append(matrices, r.Digest)
			if mx.Previous != nil {
				previous[*mx.Previous] = true
			}
		}
	}
	heads := slices.DeleteFunc(matrices, func(d store.Digest) bool { return previous[d] })
	switch len(heads) {
	case 0:
		return fmt.Errorf("%w on %s: run eval matrix --from REMOTE --push REMOTE to seal one", evallib.ErrNoMatrix, c.String("from"))
	case 1:
		return s.SetRef(c.Context, store.RefEvalLatestMatrix, heads[0])
	}
	names := make([]string, len(heads))
	for i, d := range heads {
		names[i] = d.String()
	}
	return usageErrorf(c, "%s holds %d matrices that are no other's previous (%s): name the MATRIX to report", c.String("from"), len(heads), strings.Join(names, ", "))
}
