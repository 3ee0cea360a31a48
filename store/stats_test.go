package store_test

import (
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

func TestGatherStats(t *testing.T) {
	s := newStore(t)
	b := storetest.NewBundle(t, 20, 40<<10)
	b.Store(t, s)
	if _, err := store.Seal(t.Context(), s, b.Manifest, "v1"); err != nil {
		t.Fatal(err)
	}
	// The same log with lines appended shares all but its last chunks with the first.
	grown := append(slices.Clone(b.Blobs[1]), storetest.LogBytes(21, 8<<10)...)
	storetest.Put(t, s, grown)
	storetest.Put(t, s, []byte("small"))

	st, err := store.GatherStats(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, k := range st.Kinds {
		counts[k.Name] = k.Count
		if k.Size <= 0 || k.StoredSize <= 0 {
			t.Errorf("%s: size %d, stored %d", k.Name, k.Size, k.StoredSize)
		}
	}
	want := map[string]int{"blob": 2, "chunked-blob": 2, "run-manifest": 1, "scenario-evidence": 1, "profile-tree": 1}
	for name, n := range want {
		if counts[name] != n {
			t.Errorf("%d %s, want %d (all: %v)", counts[name], name, n, counts)
		}
	}
	if counts["chunk"] >= (40<<10+48<<10)/(4<<10) {
		t.Errorf("%d chunks: the grown log should share the first log's chunks", counts["chunk"])
	}
	if st.Logical <= st.Unique || st.DedupRatio() < 1.5 {
		t.Errorf("logical %d, unique %d, dedup ratio %.2f: the shared chunks should count once", st.Logical, st.Unique, st.DedupRatio())
	}
	if st.CompressionRatio() <= 1 {
		t.Errorf("compression ratio %.2f for JSON lines", st.CompressionRatio())
	}
	wantRefs := []store.RefStats{{Namespace: "bundles/", Count: 1}, {Namespace: "tags/", Count: 1}}
	if !slices.Equal(st.Refs, wantRefs) {
		t.Errorf("Refs = %v, want %v", st.Refs, wantRefs)
	}
}
