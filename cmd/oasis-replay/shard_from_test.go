package main

import (
	"encoding/json"
	"fmt"
	"os"
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
		kensaStatsShards(t, dir, whole, fmt.Sprintf("oci://%s/kensa/n%d", reg.Host, n), []string{"--plain-http"}, n)
	}
}

// TestKensaStatsFromShardsS3 is TestKensaStatsFromShards for N = 3 on an S3 bucket (versitygw).
func TestKensaStatsFromShardsS3(t *testing.T) {
	s3 := remotetest.StartS3(t, "evidence")
	s3.Env(t)
	dir := filepath.Join(t.TempDir(), "store")
	mustRun(t, "--store", dir, "kensa", "import", filepath.Join("..", "..", "recorder", "kensa", "testdata", "twoways"))
	kensaStatsShards(t, dir, mustRun(t, "--store", dir, "kensa", "stats", "--json"), "s3://evidence/kensa/n3", nil, 3)
}

// kensaStatsShards runs kensa replay --shard I/n --push url over every I (the last first, shard
// 0 twice), then checks that kensa stats --from url is whole, and that the retried shard
// uploaded nothing.
func kensaStatsShards(t *testing.T, dir, whole, url string, flags []string, n int) {
	t.Helper()
	for k, i := range shardOrder(n) {
		args := append([]string{"--store", dir, "kensa", "replay", "--shard", shard.Shard{Index: i, Count: n}.String(), "--push", url}, flags...)
		status, _, stderr := runArgs(args...)
		if status != exitOK {
			t.Fatalf("N=%d shard %d: exit %d\n%s", n, i, status, stderr)
		}
		if k == n && !pushedNothing(stderr) {
			t.Errorf("N=%d: shard %d run again uploaded something: %s", n, i, stderr)
		}
	}
	got := mustRun(t, append([]string{"--store", filepath.Join(t.TempDir(), "empty"), "kensa", "stats", "--from", url, "--json"}, flags...)...)
	if got != whole {
		t.Errorf("N=%d: kensa stats --from %s differs from the unsharded report:\n%s\nwant\n%s", n, url, got, whole)
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

// TestEvalReportFromShards: for N = 1, 2, 3, 7, eval matrix --shard I/N --push REMOTE over every
// I (the last first, shard 0 twice) pushes the matrix's runs; eval matrix --from REMOTE --push
// REMOTE on another store seals the same matrix without running the agent, and eval report
// --from REMOTE prints the unsharded eval report --json byte for byte. Shards that run the agent
// themselves, each on an empty store, give the same cells (their answers are the same; only the
// run bundles, which record each run's duration, differ).
func TestEvalReportFromShards(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	dir := t.TempDir()
	scenario := filepath.Join(dir, "deploy.json")
	if err := os.WriteFile(scenario, []byte(evalTestScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	newStore := func() string {
		s := filepath.Join(t.TempDir(), "store")
		mustRun(t, "--store", s, "eval", "scenario", "add", scenario)
		return s
	}
	matrix := []string{"eval", "matrix", "--agent", "eval-agent pressure", "--runs", "2", "--variation", "time_pressure",
		"--variation", "authority_bias", "--variation", "social_anchoring", "--plain-http"}
	a := newStore()
	if status, out, errOut := runArgs(append([]string{"--store", a}, matrix...)...); status != exitMismatch {
		t.Fatalf("eval matrix: exit %d\n%s%s", status, out, errOut)
	}
	whole := mustRun(t, "--store", a, "eval", "report", "--json")
	for _, n := range []int{1, 2, 3, 7} {
		url := fmt.Sprintf("oci://%s/eval/n%d", reg.Host, n)
		for k, i := range shardOrder(n) {
			status, _, stderr := runArgs(append([]string{"--store", a}, append(matrix, "--shard", shard.Shard{Index: i, Count: n}.String(), "--push", url)...)...)
			// Shard 0/1 is the whole matrix, sealed and flagged as without --shard.
			if want := map[bool]int{true: exitMismatch, false: exitOK}[n == 1]; status != want {
				t.Fatalf("N=%d shard %d: exit %d\n%s", n, i, status, stderr)
			}
			if k == n && strings.Contains(stderr, "pushed") && !pushedNothing(stderr) {
				t.Errorf("N=%d: shard %d run again uploaded something: %s", n, i, stderr)
			}
			// Each run goes with its receipt (eval/verdicts/<run>), as a referrer.
			if m := pushedLine.FindStringSubmatch(stderr); m != nil && !strings.Contains(stderr, ", "+m[1]+" receipts") {
				t.Errorf("N=%d: shard %d did not push one receipt per run: %s", n, i, stderr)
			}
		}
		if status, out, errOut := runArgs(append([]string{"--store", newStore()}, append(matrix, "--from", url, "--push", url)...)...); status != exitMismatch {
			t.Fatalf("N=%d: eval matrix --from: exit %d\n%s%s", n, status, out, errOut)
		}
		got := mustRun(t, "--store", filepath.Join(t.TempDir(), "empty"), "eval", "report", "--from", url, "--plain-http", "--json")
		if got != whole {
			t.Errorf("N=%d: eval report --from differs from the unsharded report:\n%s\nwant\n%s", n, got, whole)
		}
	}

	// Shards that run the agent, each from an empty store.
	url := "oci://" + reg.Host + "/eval/fresh"
	for _, i := range shardOrder(2) {
		if status, _, stderr := runArgs(append([]string{"--store", newStore()}, append(matrix, "--shard", shard.Shard{Index: i, Count: 2}.String(), "--from", url, "--push", url)...)...); status != exitOK {
			t.Fatalf("fresh shard %d: exit %d\n%s", i, status, stderr)
		}
	}
	status, out, errOut := runArgs(append([]string{"--store", newStore()}, append(matrix, "--from", url, "--json")...)...)
	if status != exitMismatch || !strings.Contains(errOut, "8 eval runs") {
		t.Fatalf("eval matrix --from the fresh shards: exit %d\n%s%s", status, out, errOut)
	}
	digest := regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	if got, want := digest.ReplaceAllString(out, "D"), digest.ReplaceAllString(whole, "D"); got != want {
		t.Errorf("the matrix of shards run from empty stores differs beyond its digests:\n%s\nwant\n%s", got, want)
	}
}

// TestGoldenCheckFromShards: for N = 1, 2, 3, 7, golden check --shard I/N --push REMOTE over
// every I (the last first, shard 0 twice) stores each case's outcome; golden check --from REMOTE
// prints the unsharded golden check --json byte for byte, a mismatched case included, and the
// retried shard uploads nothing. A case whose golden file changed since has no outcome there.
func TestGoldenCheckFromShards(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	corpus := t.TempDir()
	src := filepath.Join("..", "..", "golden", "testdata", "corpus")
	for _, name := range []string{"example-abort-empty-window", "example-abort-missing-evidence", "example-abort-partial", "example-capability-untraced"} {
		for _, suffix := range []string{".recipe.yaml", ".bundle", ".verdict.json", ".receipt.json"} {
			b, err := os.ReadFile(filepath.Join(src, name+suffix))
			if err != nil {
				t.Fatal(err)
			}
			if name == "example-abort-partial" && suffix == ".receipt.json" {
				b = []byte(strings.Replace(string(b), `"receipt"`, `"receipt-edited"`, 1))
			}
			if err := os.WriteFile(filepath.Join(corpus, name+suffix), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := []string{"golden", "check", corpus, "--runs", "2", "--json", "--plain-http"}
	status, whole, stderr := runArgs(check...)
	if status != exitMismatch || !strings.Contains(whole, `"MISMATCH"`) {
		t.Fatalf("golden check: exit %d\n%s%s", status, whole, stderr)
	}
	for _, n := range []int{1, 2, 3, 7} {
		url := fmt.Sprintf("oci://%s/golden/n%d", reg.Host, n)
		for k, i := range shardOrder(n) {
			status, _, stderr := runArgs(append(check, "--shard", shard.Shard{Index: i, Count: n}.String(), "--push", url)...)
			if status != exitOK && status != exitMismatch {
				t.Fatalf("N=%d shard %d: exit %d\n%s", n, i, status, stderr)
			}
			if k == n && strings.Contains(stderr, "pushed") && !strings.Contains(stderr, ": 0 outcomes uploaded") {
				t.Errorf("N=%d: shard %d run again uploaded outcomes: %s", n, i, stderr)
			}
		}
		status, got, stderr := runArgs(append(check, "--from", url)...)
		if status != exitMismatch || got != whole {
			t.Errorf("N=%d: golden check --from: exit %d, output differs from the unsharded one:\n%s%s\nwant\n%s", n, status, got, stderr, whole)
		}
	}
	if err := os.WriteFile(filepath.Join(corpus, "example-abort-partial.receipt.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	status, _, stderr = runArgs(append(check, "--from", fmt.Sprintf("oci://%s/golden/n2", reg.Host))...)
	if status != exitError || !strings.Contains(stderr, "example-abort-partial") {
		t.Errorf("golden check --from after an edit of a golden file: exit %d, %s", status, stderr)
	}
}

// TestKensaRunShards: kensa run --shard I/3 --from REMOTE --push REMOTE, each shard on an empty
// store as a pod starts, the last first, then the busiest again: the remote ends with each run of the
// plan once (the retried shard finds its runs there and runs none), and kensa stats --from
// counts them all.
func TestKensaRunShards(t *testing.T) {
	reg := remotetest.StartRegistry(t)
	project := kensaProject(t, "")
	url := "oci://" + reg.Host + "/kensa/run"
	runShard := func(i int) (int, string) {
		status, stdout, stderr := runArgs("--store", filepath.Join(t.TempDir(), "pod"), "kensa", "run", "--runs", "7", "--run-id", "sharded",
			"--shard", shard.Shard{Index: i, Count: 3}.String(), "--from", url, "--push", url, "--plain-http", project)
		if status != exitOK {
			t.Fatalf("shard %d: exit %d\n%s%s", i, status, stdout, stderr)
		}
		return strings.Count(stdout, "  where  pass\n"), stderr
	}
	sealed, busiest, most := 0, 0, 0
	for _, i := range []int{2, 1, 0} {
		n, _ := runShard(i)
		sealed += n
		if n > most {
			busiest, most = i, n
		}
	}
	if n, stderr := runShard(busiest); n != 0 || !strings.Contains(stderr, fmt.Sprintf("%d runs of run id sharded are sealed already", most)) {
		t.Errorf("shard %d retried ran %d runs again:\n%s", busiest, n, stderr)
	}
	if sealed != 7 {
		t.Errorf("the shards sealed %d runs, want 7", sealed)
	}
	pulled := filepath.Join(t.TempDir(), "pulled")
	mustRun(t, "--store", pulled, "bundle", "pull", url, "--all", "--plain-http")
	var all struct {
		Runs []struct {
			RunID string `json:"run_id"`
		}
	}
	if err := json.Unmarshal([]byte(mustRun(t, "--store", pulled, "kensa", "replay", "--no-store", "--json")), &all); err != nil || len(all.Runs) != 7 {
		t.Errorf("the remote holds %d runs (%v), want 7", len(all.Runs), err)
	}
	stats := mustRun(t, "--store", filepath.Join(t.TempDir(), "empty"), "kensa", "stats", "--from", url, "--plain-http", "--json")
	if want := mustRun(t, "--store", pulled, "kensa", "stats", "--json"); stats != want {
		t.Errorf("kensa stats --from differs from the stats of a store holding the remote's runs:\n%s\nwant\n%s", stats, want)
	}
}
