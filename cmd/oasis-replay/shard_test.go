package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/shard"
)

// TestKensaReplayShards: for N = 1, 2, 3, 7, the runs of kensa replay --shard I/N over every I,
// taken in any order, with a shard run twice, merge (by bundle, each once) into exactly the
// unsharded --json output, bytes and all; --shards N with JOB_COMPLETION_INDEX is --shard I/N.
func TestKensaReplayShards(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	mustRun(t, "--store", dir, "kensa", "import", filepath.Join("..", "..", "recorder", "kensa", "testdata", "twoways"))
	whole := mustRun(t, "--store", dir, "kensa", "replay", "--no-store", "--json")
	var all struct{ Runs []json.RawMessage }
	if err := json.Unmarshal([]byte(whole), &all); err != nil || len(all.Runs) < 10 {
		t.Fatalf("unsharded output: %v, %d runs", err, len(all.Runs))
	}
	for _, n := range []int{1, 2, 3, 7} {
		order := make([]int, n)
		for i := range order {
			order[i] = n - 1 - i // the last shard first
		}
		order = append(order, 0) // and one retried
		byBundle := map[string]json.RawMessage{}
		for _, i := range order {
			args := []string{"--store", dir, "kensa", "replay", "--no-store", "--json", "--shard", shard.Shard{Index: i, Count: n}.String()}
			if n > 1 && i == 1 { // as pod 1 of an Indexed Job of n completions runs it
				t.Setenv(shard.IndexEnv, "1")
				args = []string{"--store", dir, "kensa", "replay", "--no-store", "--json", "--shards", strconv.Itoa(n)}
			}
			var part struct{ Runs []json.RawMessage }
			if err := json.Unmarshal([]byte(mustRun(t, args...)), &part); err != nil {
				t.Fatal(err)
			}
			for _, r := range part.Runs {
				var id struct{ Bundle string }
				json.Unmarshal(r, &id)
				byBundle[id.Bundle] = r
			}
		}
		bundles := make([]string, 0, len(byBundle))
		for b := range byBundle {
			bundles = append(bundles, b)
		}
		slices.Sort(bundles)
		merged := []json.RawMessage{}
		for _, b := range bundles {
			merged = append(merged, byBundle[b])
		}
		var got strings.Builder
		if err := writeCanonical(&got, map[string]any{"runs": merged}); err != nil {
			t.Fatal(err)
		}
		if got.String() != whole {
			t.Errorf("N=%d: merged shards differ from the unsharded output:\n%s\nwant\n%s", n, got.String(), whole)
		}
	}
	for _, args := range [][]string{{"--shard", "3/3"}, {"--shard", "1"}, {"--shards", "3", "--shard", "0/3"}} {
		if status, _, _ := runArgs(append([]string{"--store", dir, "kensa", "replay", "--no-store"}, args...)...); status != exitError {
			t.Errorf("%v: exit %d, want 2", args, status)
		}
	}
}
