package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/shard"
	"github.com/oasis-replay/oasis-replay/remote/remotetest"
)

// shardOrder is the order a test runs the shards of N in: the last first, then shard 0 again
// (a retried or duplicated shard).
func shardOrder(n int) []int {
	order := make([]int, 0, n+1)
	for i := n - 1; i >= 0; i-- {
		order = append(order, i)
	}
	return append(order, 0)
}

var pushedLine = regexp.MustCompile(`pushed (\d+) bundles to \S+: (\d+) of (\d+) blobs and (\d+) of (\d+) manifests uploaded`)

// pushedNothing reports whether a command's stderr says its push uploaded no blob and no
// manifest.
func pushedNothing(stderr string) bool {
	m := pushedLine.FindStringSubmatch(stderr)
	return m != nil && m[2] == "0" && m[4] == "0"
}

// TestKensaStatsFromShards: for N = 1, 2, 3, 7, kensa replay --shard I/N --push REMOTE over
// every I, the last shard first and shard 0 twice, then kensa stats --from REMOTE (into an empty
// store) prints the unsharded kensa stats --json byte for byte; the retried shard uploads
// nothing.
func TestKensaStatsFromShards(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	dir := filepath.Join(t.TempDir(), "store")
	mustRun(t, "--store", dir, "kensa", "import", filepath.Join("..", "..", "recorder", "kensa", "testdata", "twoways"))
	whole := mustRun(t, "--store", dir, "kensa", "stats", "--json")
	for _, n := range []int{1, 2, 3, 7} {
		url := fmt.Sprintf("oci://%s/kensa/n%d", reg.Host, n)
		for k, i := range shardOrder(n) {
			status, _, stderr := runArgs("--store", dir, "kensa", "replay", "--shard", shard.Shard{Index: i, Count: n}.String(), "--push", url, "--plain-http")
			if status != exitOK {
				t.Fatalf("N=%d shard %d: exit %d\n%s", n, i, status, stderr)
			}
			if k == n && !pushedNothing(stderr) {
				t.Errorf("N=%d: shard %d run again uploaded something: %s", n, i, stderr)
			}
		}
		got := mustRun(t, "--store", filepath.Join(t.TempDir(), "empty"), "kensa", "stats", "--from", url, "--plain-http", "--json")
		if got != whole {
			t.Errorf("N=%d: kensa stats --from differs from the unsharded report:\n%s\nwant\n%s", n, got, whole)
		}
	}
}

// TestKensaReplayFromShard: a shard starting from an empty store pulls only its share of the
// remote's runs (kensa replay --from), and its --json lines are the unsharded ones of that
// share.
func TestKensaReplayFromShard(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	dir := filepath.Join(t.TempDir(), "store")
	mustRun(t, "--store", dir, "kensa", "import", filepath.Join("..", "..", "recorder", "kensa", "testdata", "twoways"))
	url := "oci://" + reg.Host + "/kensa/all"
	mustRun(t, "--store", dir, "bundle", "push", url, "--all", "--plain-http")
	want := mustRun(t, "--store", dir, "kensa", "replay", "--no-store", "--json", "--shard", "1/3")
	got := mustRun(t, "--store", filepath.Join(t.TempDir(), "pod"), "kensa", "replay", "--from", url, "--plain-http", "--json", "--shard", "1/3")
	if got != want {
		t.Errorf("kensa replay --from --shard 1/3 on an empty store:\n%s\nwant\n%s", got, want)
	}
	if strings.Count(got, `"bundle"`) == 0 {
		t.Errorf("shard 1/3 replayed no run: %s", got)
	}
	for _, args := range [][]string{{"--from", url, "--no-store"}, {"--push", url, "--no-store"}} {
		if status, _, _ := runArgs(append([]string{"--store", dir, "kensa", "replay"}, args...)...); status != exitError {
			t.Errorf("%v: exit %d, want 2", args, status)
		}
	}
}
