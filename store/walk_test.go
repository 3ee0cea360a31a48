package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

func TestReachableOrder(t *testing.T) {
	s := newStore(t)
	b := storetest.NewBundle(t, 1, 20<<10)
	b.Store(t, s)
	bundle, err := store.Seal(t.Context(), s, b.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Reachable(t.Context(), s, bundle)
	if err != nil {
		t.Fatal(err)
	}
	// Dependency first, in the order References lists them: the profile tree after its file,
	// the evidence after its audit log, the manifest last.
	want := []store.Digest{
		store.Sum(b.Blobs[0]), store.Sum(b.Objects[0]),
		store.Sum(b.Blobs[1]), store.Sum(b.Objects[1]),
		bundle,
	}
	if digests := digestsOf(got); !slices.Equal(digests, want) {
		t.Fatalf("Reachable order:\n got %v\nwant %v", digests, want)
	}
	if len(got[2].Chunks) == 0 {
		t.Fatal("the 20 KiB audit log should be chunked with 4 KiB chunks and carry its chunk list")
	}
	// Roots reached from another root are listed once.
	again, err := store.Reachable(t.Context(), s, store.Sum(b.Objects[1]), bundle)
	if err != nil || len(again) != len(want) {
		t.Fatalf("Reachable(evidence, bundle) = %d entries, %v", len(again), err)
	}
	if again[1].Digest != store.Sum(b.Objects[1]) {
		t.Fatal("the first root's closure should come first")
	}
}

func digestsOf(entries []store.Entry) []store.Digest {
	out := make([]store.Digest, len(entries))
	for i, e := range entries {
		out[i] = e.Digest
	}
	return out
}

func TestReachableErrors(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, s store.Store, b storetest.Bundle) store.Digest // returns the root
		want    error
		mention []string
	}{
		{
			name: "missing blob",
			prepare: func(t *testing.T, s store.Store, b storetest.Bundle) store.Digest {
				storetest.Put(t, s, b.Blobs[0])
				putObjects(t, s, b.Objects...) // the audit log is missing
				return store.Sum(b.Objects[1])
			},
			want:    store.ErrMissingReference,
			mention: []string{"scenario-evidence", "is not in the store"},
		},
		{
			name: "missing root",
			prepare: func(t *testing.T, s store.Store, b storetest.Bundle) store.Digest {
				return store.Sum([]byte("nothing"))
			},
			want:    store.ErrMissingReference,
			mention: []string{"root refers to"},
		},
		{
			name: "wrong size",
			prepare: func(t *testing.T, s store.Store, b storetest.Bundle) store.Digest {
				storetest.Put(t, s, []byte("abc"))
				ev := &store.ScenarioEvidence{ScenarioID: "s", Observations: []store.Observation{{Type: "audit_log",
					Data: store.Descriptor{MediaType: store.MediaTypeJSON, Digest: store.Sum([]byte("abc")), Size: 4}}}}
				doc, desc := storetest.Encode(t, ev)
				putObjects(t, s, doc)
				return desc.Digest
			},
			want:    store.ErrInvalidObject,
			mention: []string{"with size 4, but the stored content has 3 bytes"},
		},
		{
			name: "wrong kind",
			prepare: func(t *testing.T, s store.Store, b storetest.Bundle) store.Digest {
				storetest.Put(t, s, []byte("{}"))
				r := &store.Receipt{Bundle: store.Sum([]byte("{}")), Profile: store.Sum([]byte("{}")), Verdict: store.Sum([]byte("{}"))}
				doc, desc := storetest.Encode(t, r)
				putObjects(t, s, doc)
				return desc.Digest
			},
			want:    store.ErrInvalidObject,
			mention: []string{"as a run-manifest, but the stored content is a raw blob"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			root := tc.prepare(t, s, storetest.NewBundle(t, 2, 100))
			_, err := store.Reachable(t.Context(), s, root)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Reachable = %v, want %v", err, tc.want)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func putObjects(t testing.TB, s store.Store, docs ...[]byte) {
	t.Helper()
	for _, doc := range docs {
		if _, err := s.PutObject(t.Context(), doc); err != nil {
			t.Fatal(err)
		}
	}
}
