package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// garbageStore builds a store holding a sealed bundle, a profile tree kept by a profiles/ ref,
// and garbage: an unsealed bundle whose manifest was stored, the evidence beside the kept
// profile tree, and the chunks of a deleted blob.
func garbageStore(t *testing.T, s *badgerstore.Store) (sealed store.Digest, garbage []store.Digest) {
	t.Helper()
	kept := storetest.NewBundle(t, 10, 30<<10)
	kept.Store(t, s)
	sealed, err := store.Seal(t.Context(), s, kept.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	profile := storetest.NewBundle(t, 11, 100)
	profile.Store(t, s)
	if err := s.SetRef(t.Context(), store.ProfileRefName(store.Sum(profile.Objects[0])), store.Sum(profile.Objects[0])); err != nil {
		t.Fatal(err)
	}
	loose := storetest.NewBundle(t, 12, 30<<10)
	loose.Store(t, s)
	doc, desc := storetest.Encode(t, loose.Manifest)
	putObjects(t, s, doc)
	garbage = []store.Digest{desc.Digest, store.Sum(loose.Objects[1]), store.Sum(loose.Objects[0]), store.Sum(loose.Blobs[0]), store.Sum(loose.Blobs[1])}
	garbage = append(garbage, store.Sum(profile.Objects[1]), store.Sum(profile.Blobs[1])) // evidence of the profile-only bundle
	orphan := storetest.Put(t, s, storetest.LogBytes(13, 20<<10))
	if err := s.Delete(t.Context(), orphan); err != nil {
		t.Fatal(err)
	}
	return sealed, garbage
}

func TestGC(t *testing.T) {
	s := newStore(t)
	sealed, garbage := garbageStore(t, s)
	before := walkDigests(t, s)

	dry, err := store.GC(t.Context(), s, store.GCOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if after := walkDigests(t, s); !slices.Equal(before, after) {
		t.Fatal("a dry run removed something")
	}
	removed := map[store.Digest]bool{}
	for _, e := range dry.Removed {
		if !e.Chunk {
			removed[e.Digest] = true
		}
	}
	for _, d := range garbage {
		if !removed[d] {
			t.Errorf("garbage %s is not in the dry run's list", d)
		}
	}
	if len(removed) != len(garbage) {
		t.Errorf("dry run removes %d blobs and objects, want %d", len(removed), len(garbage))
	}
	assertReferrersFirst(t, s, dry.Removed)
	if dry.Roots != 2 || len(dry.Missing) != 0 || dry.RemovedBytes <= 0 || dry.RemovedStored <= 0 {
		t.Errorf("dry run report: %+v", dry)
	}

	report, err := store.GC(t.Context(), s, store.GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(report.Removed, dry.Removed, func(a, b store.Entry) bool { return a.Digest == b.Digest && a.Chunk == b.Chunk }) {
		t.Error("GC removed something other than what the dry run listed")
	}
	for _, d := range garbage {
		if _, err := s.Stat(t.Context(), d); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("garbage %s survived: %v", d, err)
		}
	}
	if _, err := store.Reachable(t.Context(), s, sealed); err != nil {
		t.Fatalf("the sealed bundle lost content: %v", err)
	}
	assertClean(t, s)
	again, err := store.GC(t.Context(), s, store.GCOptions{})
	if err != nil || len(again.Removed) != 0 {
		t.Fatalf("a second GC removes %d entries, %v", len(again.Removed), err)
	}
}

// assertReferrersFirst checks that no removed object comes after something it refers to, so
// that stopping anywhere leaves no dangling reference.
func assertReferrersFirst(t *testing.T, s store.Store, removed []store.Entry) {
	t.Helper()
	pos := map[store.Digest]int{}
	for i, e := range removed {
		if !e.Chunk {
			pos[e.Digest] = i
		}
	}
	for i, e := range removed {
		if e.Kind == "" {
			continue
		}
		b, err := s.GetObject(t.Context(), e.Digest)
		if err != nil {
			t.Fatal(err)
		}
		_, refs, err := store.ReferencesOf(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			if j, ok := pos[r.Digest]; ok && j < i {
				t.Errorf("%s is removed before %s, which refers to it", r.Digest, e.Digest)
			}
		}
	}
	var sawBlob, sawChunk bool
	for _, e := range removed {
		switch {
		case e.Chunk:
			sawChunk = true
		case e.Kind == "":
			sawBlob = true
			if sawChunk {
				t.Errorf("blob %s is removed after a chunk", e.Digest)
			}
		case sawBlob || sawChunk:
			t.Errorf("object %s is removed after a blob or chunk", e.Digest)
		}
	}
}

func walkDigests(t *testing.T, s store.Store) []string {
	t.Helper()
	var out []string
	if err := s.Walk(t.Context(), func(e store.Entry) error {
		out = append(out, fmt.Sprint(e.Digest, e.Chunk))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func assertClean(t *testing.T, s store.Store) {
	t.Helper()
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range report.Problems {
		t.Error(p)
	}
}

var errInterrupted = errors.New("interrupted")

// interruptedStore fails every deletion after the first left ones, like a GC killed midway.
type interruptedStore struct {
	*badgerstore.Store
	left int
}

func (s *interruptedStore) Delete(ctx context.Context, d store.Digest) error {
	if s.left == 0 {
		return errInterrupted
	}
	s.left--
	return s.Store.Delete(ctx, d)
}

func (s *interruptedStore) DeleteChunk(ctx context.Context, d store.Digest) error {
	if s.left == 0 {
		return errInterrupted
	}
	s.left--
	return s.Store.DeleteChunk(ctx, d)
}

// TestGCInterrupted stops GC after every possible number of deletions: the store must stay
// consistent each time, and a second GC must finish the job.
func TestGCInterrupted(t *testing.T) {
	probe := newStore(t)
	garbageStore(t, probe)
	plan, err := store.GC(t.Context(), probe, store.GCOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for k := range len(plan.Removed) {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			s := newStore(t)
			sealed, _ := garbageStore(t, s)
			if _, err := store.GC(t.Context(), &interruptedStore{Store: s, left: k}, store.GCOptions{}); !errors.Is(err, errInterrupted) {
				t.Fatalf("GC = %v, want the interruption", err)
			}
			assertClean(t, s)
			if _, err := store.Reachable(t.Context(), s, sealed); err != nil {
				t.Fatalf("an interrupted GC damaged the sealed bundle: %v", err)
			}
			report, err := store.GC(t.Context(), s, store.GCOptions{})
			if err != nil || len(report.Removed) != len(plan.Removed)-k {
				t.Fatalf("resumed GC removed %d of the %d left, %v", len(report.Removed), len(plan.Removed)-k, err)
			}
		})
	}
}

// unreadableStore reports one object as corrupt.
type unreadableStore struct {
	*badgerstore.Store
	bad store.Digest
}

func (s *unreadableStore) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	if d == s.bad {
		return nil, fmt.Errorf("%w: %s: test damage", store.ErrCorrupt, d)
	}
	return s.Store.GetObject(ctx, d)
}

func TestGCStopsOnUnreadableReachableObject(t *testing.T) {
	s := newStore(t)
	sealed, _ := garbageStore(t, s)
	before := walkDigests(t, s)
	_, err := store.GC(t.Context(), &unreadableStore{Store: s, bad: sealed}, store.GCOptions{})
	if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("GC over an unreadable manifest = %v, want ErrCorrupt", err)
	}
	if after := walkDigests(t, s); !slices.Equal(before, after) {
		t.Fatal("GC removed content although it could not mark everything")
	}
}

func TestGCReportsDanglingRefs(t *testing.T) {
	s := newStore(t)
	gone := store.Sum([]byte("gone"))
	if err := s.SetRef(t.Context(), "tags/gone", gone); err != nil {
		t.Fatal(err)
	}
	report, err := store.GC(t.Context(), s, store.GCOptions{})
	if err != nil || len(report.Missing) != 1 || report.Missing[0].Ref != "tags/gone" || !strings.Contains(report.Missing[0].Message, gone.String()) {
		t.Fatalf("GC = %+v, %v; want the dangling tag reported", report, err)
	}
}

// TestCheckAndGCAgree: what Check reports as garbage is exactly what GC then removes, entry for
// entry and byte for byte, whatever left it: a recording that failed after writing a large
// blob (the case fsck used to call clean while gc removed hundreds of MiB), an unsealed
// bundle, an interrupted chunked write, an object naming missing content. After GC, Check
// reports no garbage.
func TestCheckAndGCAgree(t *testing.T) {
	tests := []struct {
		name  string
		leave func(t *testing.T, s *badgerstore.Store)
		want  int // garbage entries at least
	}{
		{"nothing", func(*testing.T, *badgerstore.Store) {}, 0},
		{"a failed recording's large blob", func(t *testing.T, s *badgerstore.Store) {
			storetest.Put(t, s, storetest.LogBytes(20, 300<<10))
		}, 1 + 300/4},
		{"an unsealed bundle and chunks of a deleted blob", func(t *testing.T, s *badgerstore.Store) { garbageStore(t, s) }, 7},
		{"an object naming missing content", func(t *testing.T, s *badgerstore.Store) {
			b := storetest.NewBundle(t, 21, 100)
			putObjects(t, s, b.Objects[0]) // its blobs were never written
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			kept := storetest.NewBundle(t, 22, 40<<10)
			kept.Store(t, s)
			if _, err := store.Seal(t.Context(), s, kept.Manifest); err != nil {
				t.Fatal(err)
			}
			tc.leave(t, s)
			report, err := store.Check(t.Context(), s, store.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !report.OK() || report.Garbage == nil {
				t.Fatalf("check: problems %v, garbage %v", report.Problems, report.Garbage)
			}
			checked := report.Garbage.Entries()
			if len(checked) < tc.want {
				t.Errorf("check reports %d garbage entries, want at least %d", len(checked), tc.want)
			}
			gc, err := store.GC(t.Context(), s, store.GCOptions{})
			if err != nil {
				t.Fatal(err)
			}
			same := func(a, b store.Entry) bool {
				return a.Digest == b.Digest && a.Chunk == b.Chunk && a.StoredSize == b.StoredSize
			}
			if !slices.EqualFunc(checked, gc.Removed, same) {
				t.Errorf("check called %d entries garbage, gc removed %d:\ncheck %v\ngc    %v", len(checked), len(gc.Removed), checked, gc.Removed)
			}
			if content, stored := report.Garbage.Bytes(); content != gc.RemovedBytes || stored != gc.RemovedStored {
				t.Errorf("check counts %d bytes (%d stored) of garbage, gc removed %d (%d)", content, stored, gc.RemovedBytes, gc.RemovedStored)
			}
			after, err := store.Check(t.Context(), s, store.CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !after.OK() || after.Garbage == nil || after.Garbage.Len() != 0 || after.OrphanChunks != 0 || after.DanglingGarbage != 0 {
				t.Errorf("after gc: %+v", after)
			}
		})
	}
}
