package badgerstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/auditgen"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// sealedStore makes an on-disk store holding one sealed bundle and closes it.
func sealedStore(t *testing.T, opts Options) (dir string, bundle store.Digest) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	b := storeBundle(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, b
}

// storeBundle seals a small bundle with a chunked audit log into s.
func storeBundle(t *testing.T, s *Store) store.Digest {
	t.Helper()
	ctx := t.Context()
	log, n, err := s.PutBlob(ctx, auditgen.NewReader(7, 3<<20))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := store.Put(ctx, s, &store.ScenarioEvidence{ScenarioID: "s-1", Transcript: store.Transcript{FinalAnswer: "done"},
		Observations: []store.Observation{{Type: store.ObservationAuditLog, Data: store.Descriptor{MediaType: store.MediaTypeK8sAuditEvents, Digest: log, Size: n}}}})
	if err != nil {
		t.Fatal(err)
	}
	tree, err := store.Put(ctx, s, &store.ProfileTree{ProfileID: "faults", Version: "1", Entries: []store.TreeEntry{{Path: "p.md", Blob: ev}}})
	if err != nil {
		t.Fatal(err)
	}
	m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "faults", Version: "1", Source: "files"},
		Profile: store.ProfileRef{ID: "faults", Version: "1", Tree: tree.Digest}, CoreSpecVersion: "1.0.0-rc1.5",
		Agent: store.AgentIdentity{Name: "agent", Version: "1"}, Tier: 1,
		Scenarios: []store.ScenarioRef{{ScenarioID: "s-1", Evidence: &ev}}}
	d, err := store.Seal(ctx, s, m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// expectIntact opens dir, checks it and expects bundle among its sealed bundles, complete.
func expectIntact(t *testing.T, dir string, bundle store.Digest) {
	t.Helper()
	s, err := Open(dir, Options{ReadOnly: true})
	if errors.Is(err, ErrNeedsRecovery) {
		if s, err = Open(dir, Options{}); err == nil {
			err = s.Close()
		}
		if err == nil {
			s, err = Open(dir, Options{ReadOnly: true})
		}
	}
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range report.Problems {
		t.Errorf("check: %s", p)
	}
	if _, err := store.Reachable(t.Context(), s, bundle); err != nil {
		t.Errorf("bundle %s: %v", bundle, err)
	}
	if ok, err := store.IsSealed(t.Context(), s, bundle); !ok || err != nil {
		t.Errorf("bundle %s is not sealed any more: %v", bundle, err)
	}
}

// TestOpenAfterKilledOpener: a process killed while Badger creates a memtable log or a value-log
// file leaves that file empty; every later open, read-only or not, must still work and lose
// nothing. Badger alone fails them all ("truncate …: invalid argument", "Create a new file").
func TestOpenAfterKilledOpener(t *testing.T) {
	for _, file := range []string{"00099.mem", "000099.vlog", "00099.mem+000099.vlog"} {
		for _, readOnly := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/readOnly=%v", file, readOnly), func(t *testing.T) {
				dir, bundle := sealedStore(t, Options{ChunkSize: 64 << 10})
				for name := range strings.SplitSeq(file, "+") {
					if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				s, err := Open(dir, Options{ReadOnly: readOnly})
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				expectIntact(t, dir, bundle)
			})
		}
	}
}

// killedOpenersSeedEnv fixes the seed of TestKilledWhileOpening to replay a failure.
const killedOpenersSeedEnv = "OASIS_REPLAY_OPEN_KILL_SEED"

// TestKilledWhileOpening kills processes that open and close the store in a loop (read-write,
// as a recovery does) at random moments, 40 times (400 with OASIS_REPLAY_LONG=1); after each
// kill the store must open read-only (recovering its log first when it asks to), pass Check
// and keep its sealed bundle.
func TestKilledWhileOpening(t *testing.T) {
	kills := 40
	if os.Getenv("OASIS_REPLAY_LONG") == "1" {
		kills = 400
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv(killedOpenersSeedEnv); v != "" {
		fmt.Sscan(v, &seed)
	}
	t.Logf("seed %d (set %s to replay)", seed, killedOpenersSeedEnv)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	dir, bundle := sealedStore(t, Options{ChunkSize: 64 << 10})
	for i := range kills {
		child := childCommand(roleOpenClose, dir)
		out, err := child.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n') // "started": the loop is about to begin
		time.Sleep(time.Duration(rng.Int64N(int64(30 * time.Millisecond))))
		child.Process.Signal(syscall.SIGKILL)
		child.Wait()
		expectIntact(t, dir, bundle)
		if t.Failed() {
			t.Fatalf("after kill %d", i)
		}
	}
}

// openCloseUntilKilled is the child of TestKilledWhileOpening.
func openCloseUntilKilled(dir string) {
	fmt.Println("started")
	for {
		s, err := Open(dir, Options{ChunkSize: 64 << 10, LockWait: time.Second})
		if err != nil {
			fmt.Fprintln(os.Stderr, "open-close:", err)
			os.Exit(1)
		}
		s.Close()
	}
}

// TestOpenWaitsForTheLock: a second opener waits, within LockWait, for the holder to close,
// says once that it waits and for whom, and gives up with ErrLocked naming the holder and the
// wait when the holder does not let go.
func TestOpenWaitsForTheLock(t *testing.T) {
	dir := t.TempDir()
	holder := childCommand(roleHoldLock, dir)
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer holder.Process.Kill()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "open\n" {
		t.Fatalf("holder said %q", line)
	}
	pid := fmt.Sprintf("pid %d", holder.Process.Pid)

	// The holder does not let go: both kinds of openers give up after the wait.
	for _, readOnly := range []bool{false, true} {
		var told []string
		start := time.Now()
		_, err := Open(dir, Options{ReadOnly: readOnly, LockWait: 200 * time.Millisecond, OnLockWait: func(h string) { told = append(told, h) }})
		want := fmt.Sprintf("badgerstore: locked: store %s is in use by another process (%s); gave up after waiting 200ms", dir, pid)
		if !errors.Is(err, ErrLocked) || err.Error() != want {
			t.Errorf("Open(ReadOnly: %v) = %v, want %q", readOnly, err, want)
		}
		if len(told) != 1 || told[0] != pid {
			t.Errorf("OnLockWait calls %q, want one naming %s", told, pid)
		}
		if waited := time.Since(start); waited < 200*time.Millisecond {
			t.Errorf("gave up after %s, before the wait ran out", waited)
		}
	}

	// The holder lets go (it is killed) while a writer waits: the writer gets the store.
	var waiting atomic.Bool
	var wg sync.WaitGroup
	var s *Store
	wg.Go(func() {
		s, err = Open(dir, Options{LockWait: 10 * time.Second, OnLockWait: func(string) { waiting.Store(true) }})
	})
	for !waiting.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	holder.Process.Kill()
	wg.Wait()
	if err != nil {
		t.Fatalf("Open after the holder went away: %v", err)
	}
	s.Close()
}

// fakeFree is a file system whose free space the test sets.
type fakeFree struct{ bytes atomic.Int64 }

func (f *fakeFree) free(string) (int64, error) { return f.bytes.Load(), nil }

// TestNoSpace injects a nearly full file system under the store: an open for writing, a write
// and a compaction that would leave less than the store's reserve are refused with ErrNoSpace
// (naming the store and the free space) before anything is written; reads, refs and deletions
// that fit still work; the store closes, reopens, checks clean and keeps its sealed bundle.
func TestNoSpace(t *testing.T) {
	dir, bundle := sealedStore(t, Options{ChunkSize: 64 << 10})
	disk := &fakeFree{}
	opts := Options{ChunkSize: 64 << 10, freeSpace: disk.free}
	reserve, err := spaceReserve(dir, badgerMemtables, badgerMemtableSize)
	if err != nil {
		t.Fatal(err)
	}

	disk.bytes.Store(reserve - 1)
	if _, err := Open(dir, opts); !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("Open with less than the reserve free = %v, want ErrNoSpace naming the store", err)
	}
	if s, err := Open(dir, Options{ReadOnly: true, freeSpace: disk.free}); err != nil {
		t.Fatalf("read-only Open on a full file system: %v", err)
	} else {
		s.Close()
	}

	disk.bytes.Store(reserve + contentMargin + 1<<20)
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open with room: %v", err)
	}
	ctx := t.Context()
	small, _, err := s.PutBlob(ctx, strings.NewReader("fits"))
	if err != nil {
		t.Fatalf("a small blob that fits: %v", err)
	}
	if _, _, err := s.PutBlob(ctx, bytes.NewReader(storetest.RandomBytes(8, 4<<20))); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a blob larger than the free space = %v, want ErrNoSpace", err)
	}
	disk.bytes.Store(reserve + 1<<10) // within the content margin: refs and deletions only
	if _, _, err := s.PutBlob(ctx, strings.NewReader("no room left")); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("a blob inside the content margin = %v, want ErrNoSpace", err)
	}
	if err := s.SetRef(ctx, "tags/kept", bundle); err != nil {
		t.Fatalf("a ref inside the content margin: %v", err)
	}
	if err := s.Delete(ctx, small); err != nil {
		t.Fatalf("a deletion inside the content margin: %v", err)
	}
	if err := s.Compact(ctx); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Compact without room to rewrite a value-log file = %v, want ErrNoSpace", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	expectIntact(t, dir, bundle)
}
