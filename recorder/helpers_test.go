package recorder

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// longTests enables the longer variants (make test-long).
var longTests = os.Getenv("OASIS_REPLAY_LONG") == "1"

var (
	siOnce    sync.Once
	siProfile *Profile
	siErr     error
)

// siProfileForTest loads the SI profile of the shared spec checkout once, skipping when absent.
func siProfileForTest(t testing.TB) *Profile {
	t.Helper()
	dir := sharedtest.SIProfile(t)
	siOnce.Do(func() { siProfile, siErr = ProfileFromDir(dir, "") })
	if siErr != nil {
		t.Fatalf("load SI profile: %v", siErr)
	}
	return siProfile
}

// memStore opens an in-memory store closed at the end of the test.
func memStore(t testing.TB) *badgerstore.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// diskStore opens an on-disk store in a temporary directory.
func diskStore(t testing.TB) *badgerstore.Store {
	t.Helper()
	s, err := badgerstore.Open(filepath.Join(t.TempDir(), "store"), badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// liveOptions are the options of a live recording journaling into a temporary directory.
func liveOptions(t testing.TB) LiveOptions { return LiveOptions{Journals: t.TempDir()} }

func testOptions(t testing.TB) Options {
	return Options{Profile: siProfileForTest(t), Version: "test"}
}

// storeSnapshot is what `store fsck` and `store stats` report, for "nothing changed" checks.
type storeSnapshot struct {
	stats  store.Stats
	report store.CheckReport
	refs   []store.Ref
}

func storeState(t testing.TB, s store.Store) storeSnapshot {
	t.Helper()
	ctx := context.Background()
	st, err := store.GatherStats(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := store.Check(ctx, s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("store check: %v", rep.Problems)
	}
	refs, err := s.ListRefs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	return storeSnapshot{stats: *st, report: *rep, refs: refs}
}

func sameSnapshot(t testing.TB, before, after storeSnapshot) {
	t.Helper()
	if before.stats.Logical != after.stats.Logical || before.stats.Unique != after.stats.Unique ||
		before.report.Blobs != after.report.Blobs || before.report.Objects != after.report.Objects ||
		before.report.Chunks != after.report.Chunks || len(before.refs) != len(after.refs) {
		t.Errorf("the store changed: before %+v / %d refs, after %+v / %d refs",
			before.report, len(before.refs), after.report, len(after.refs))
	}
}

// allStoredBytes concatenates every blob and object of the store, for "nothing of the secret
// is stored" checks.
func allStoredBytes(t testing.TB, s store.Store) []byte {
	t.Helper()
	ctx := context.Background()
	var all bytes.Buffer
	err := s.Walk(ctx, func(e store.Entry) error {
		if e.Chunk {
			return nil // chunks are read through their blob
		}
		rc, _, err := s.OpenBlob(ctx, e.Digest)
		if err != nil {
			return err
		}
		defer rc.Close()
		_, err = io.Copy(&all, rc)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := s.ListRefs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		all.WriteString(r.Name)
	}
	return all.Bytes()
}

// loadEvidence reads the evidence object of a scenario of a bundle.
func loadEvidence(t testing.TB, s store.Store, m *store.RunManifest, id string) *store.ScenarioEvidence {
	t.Helper()
	for _, ref := range m.Scenarios {
		if ref.ScenarioID != id || ref.Evidence == nil {
			continue
		}
		b, err := s.GetObject(context.Background(), ref.Evidence.Digest)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := store.DecodeScenarioEvidence(b)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	t.Fatalf("no evidence for %s", id)
	return nil
}

func readBlob(t testing.TB, s store.Store, d store.Digest) []byte {
	t.Helper()
	rc, _, err := s.OpenBlob(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func findingsWith(m *store.RunManifest, code string) []store.Finding {
	var out []store.Finding
	for _, f := range m.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

// copyDir copies a directory tree (test fixtures) into a temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
