package badgerstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
)

// crashSeedEnv fixes the seed of TestCrashSafety to replay a failure.
const crashSeedEnv = "OASIS_REPLAY_CRASH_SEED"

// TestCrashSafety kills a writer process at random points while it records and seals bundles
// (and collects garbage) in an on-disk store, then reopens the store after each kill: it must
// open, pass Check with no problem, and still hold every bundle the writer had reported sealed,
// complete. The same store is reused across kills, so damage would accumulate.
func TestCrashSafety(t *testing.T) {
	iterations := 20
	if os.Getenv("OASIS_REPLAY_LONG") == "1" {
		iterations = 100
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv(crashSeedEnv); v != "" {
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("%s: %v", crashSeedEnv, err)
		}
	}
	t.Logf("seed %d (set %s=%d to replay)", seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	dir := t.TempDir()
	sealed := map[string]bool{} // bundles reported sealed and not being unsealed
	var seals, unseals int
	for i := range iterations {
		// One kill in five lands while the child opens the store (log replay); the others
		// after a random delay into its writing.
		early := rng.IntN(5) == 0
		delay := time.Duration(rng.Int64N(int64(500 * time.Millisecond)))
		lines := runAndKill(t, dir, rng.Int64(), early, delay)
		for _, line := range lines {
			verb, hex, _ := strings.Cut(line, " ")
			switch verb {
			case "sealed":
				sealed[hex] = true
				seals++
			case "unsealing":
				delete(sealed, hex)
				unseals++
			}
		}
		checkAfterCrash(t, i, dir, sealed)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d kills, %d bundles sealed and %d unsealed before them; %d sealed bundles expected at the end", iterations, seals, unseals, len(sealed))
}

// runAndKill starts a writer child, kills it with SIGKILL and returns what it printed.
func runAndKill(t *testing.T, dir string, seed int64, early bool, delay time.Duration) []string {
	t.Helper()
	cmd := childCommand(roleWriter, dir, "BADGERSTORE_TEST_SEED="+strconv.FormatInt(seed, 10))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	opened := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if sc.Text() == "open" {
				close(opened)
			}
		}
	}()
	if !early {
		select {
		case <-opened:
		case <-done:
		}
		time.Sleep(delay)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	return lines
}

func checkAfterCrash(t *testing.T, i int, dir string, sealed map[string]bool) {
	t.Helper()
	// A read-only open either works or asks for a read-write one, in plain words. A child
	// killed before it created anything leaves the directory empty, which is no store yet.
	if ro, err := Open(dir, Options{ReadOnly: true}); err == nil {
		ro.Close()
	} else if !errors.Is(err, ErrNeedsRecovery) && !(errors.Is(err, ErrNotStore) && dirIsEmpty(t, dir)) {
		t.Fatalf("kill %d: read-only open: %v", i, err)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("kill %d: reopen: %v", i, err)
	}
	defer s.Close()
	ctx := t.Context()
	report, err := store.Check(ctx, s, store.CheckOptions{})
	if err != nil {
		t.Fatalf("kill %d: check: %v", i, err)
	}
	for _, p := range report.Problems {
		t.Errorf("kill %d: %s", i, p)
	}
	bundles, err := store.SealedBundles(ctx, s)
	if err != nil {
		t.Fatalf("kill %d: %v", i, err)
	}
	present := map[string]bool{}
	for _, d := range bundles {
		present[d.Hex()] = true
		if _, err := store.Reachable(ctx, s, d); err != nil {
			t.Errorf("kill %d: sealed bundle %s is incomplete: %v", i, d, err)
		}
	}
	for hex := range sealed {
		if !present[hex] {
			t.Errorf("kill %d: bundle %s was reported sealed but is gone", i, hex)
		}
	}
}

// growingLogSeed generates the log every writer records again, a little longer each bundle,
// so that bundles (and the chunks of writes cut short by a kill) share prefix chunks.
const growingLogSeed = 42

// writeUntilKilled is the writer child: it records bundles into the store in dir and seals
// them, announcing each seal on stdout, and every few bundles unseals old ones and collects
// garbage, until it is killed.
func writeUntilKilled(dir, seedText string) {
	seed, _ := strconv.ParseInt(seedText, 10, 64)
	rng := rand.New(rand.NewPCG(uint64(seed), 1))
	s, err := Open(dir, Options{ChunkSize: 16 << 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		os.Exit(1)
	}
	fmt.Println("open")
	ctx := context.Background()
	grown := int64(0)
	for n := 0; ; n++ {
		grown += 1 + rng.Int64N(100<<10)
		d, err := recordBundle(ctx, s, rng, grown)
		if err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		fmt.Println("sealed", d.Hex())
		if n%3 == 2 {
			if err := unsealOldAndCollect(ctx, s); err != nil {
				fmt.Fprintln(os.Stderr, "writer:", err)
				os.Exit(1)
			}
		}
	}
}

// recordBundle writes one bundle of several scenarios, blobs first, then objects, then seals.
// The first scenario's audit log is the growing log, cut at grown bytes.
func recordBundle(ctx context.Context, s *Store, rng *rand.Rand, grown int64) (store.Digest, error) {
	putLog := func(seed, size int64) (store.Descriptor, error) {
		d, n, err := s.PutBlob(ctx, auditgen.NewReader(seed, size))
		return store.Descriptor{MediaType: store.MediaTypeK8sAuditEvents, Digest: d, Size: n}, err
	}
	put := func(size int64) (store.Descriptor, error) { return putLog(rng.Int64(), size) }
	file, err := put(2 << 10)
	if err != nil {
		return store.Digest{}, err
	}
	tree, err := store.Put(ctx, s, &store.ProfileTree{ProfileID: "crash-test", Version: strconv.Itoa(rng.IntN(3)),
		Entries: []store.TreeEntry{{Path: "profile.md", Blob: file}}})
	if err != nil {
		return store.Digest{}, err
	}
	m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "crash-test", Version: "1", Source: "files"},
		Profile: store.ProfileRef{ID: "crash-test", Version: "1", Tree: tree.Digest}, CoreSpecVersion: "1.0.0-rc1.5",
		Agent: store.AgentIdentity{Name: "agent", Version: "1"}, Tier: 1}
	for sc := range 2 + rng.IntN(4) {
		var log store.Descriptor
		if sc == 0 {
			log, err = putLog(growingLogSeed, grown)
		} else {
			log, err = put(20<<10 + rng.Int64N(400<<10))
		}
		if err != nil {
			return store.Digest{}, err
		}
		snapshot, err := put(1 << 10)
		if err != nil {
			return store.Digest{}, err
		}
		ev, err := store.Put(ctx, s, &store.ScenarioEvidence{ScenarioID: fmt.Sprintf("scenario-%d", sc),
			Transcript: store.Transcript{FinalAnswer: "done"},
			Observations: []store.Observation{
				{Type: store.ObservationAuditLog, Data: log},
				{Type: store.ObservationResourceState, Phase: store.PhaseAfter, Data: snapshot},
			}})
		if err != nil {
			return store.Digest{}, err
		}
		m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: ev.Digest.Hex()[:12], Evidence: &ev})
	}
	return store.Seal(ctx, s, m, "latest")
}

// unsealOldAndCollect unseals all but the last four bundles in digest order and runs GC.
func unsealOldAndCollect(ctx context.Context, s *Store) error {
	bundles, err := store.SealedBundles(ctx, s)
	if err != nil {
		return err
	}
	for _, d := range bundles[:max(0, len(bundles)-4)] {
		fmt.Println("unsealing", d.Hex())
		if err := s.DeleteRef(ctx, store.BundleRefName(d)); err != nil {
			return err
		}
	}
	_, err = store.GC(ctx, s, store.GCOptions{})
	return err
}

func dirIsEmpty(t *testing.T, dir string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries) == 0
}
