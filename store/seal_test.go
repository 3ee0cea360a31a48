package store_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

func TestSeal(t *testing.T) {
	s := newStore(t)
	b := storetest.NewBundle(t, 3, 10<<10)
	b.Store(t, s)
	_, want := storetest.Encode(t, b.Manifest)
	d, err := store.Seal(t.Context(), s, b.Manifest, "v1", "nightly")
	if err != nil || d != want.Digest {
		t.Fatalf("Seal = %s, %v; want %s", d, err, want.Digest)
	}
	for _, name := range []string{store.BundleRefName(d), "tags/v1", "tags/nightly"} {
		if got, err := s.GetRef(t.Context(), name); err != nil || got != d {
			t.Errorf("ref %s = %s, %v", name, got, err)
		}
	}
	if sealed, err := store.IsSealed(t.Context(), s, d); !sealed || err != nil {
		t.Fatalf("IsSealed = %v, %v", sealed, err)
	}
	// Sealing again is idempotent and may add tags.
	if again, err := store.Seal(t.Context(), s, b.Manifest, "latest"); err != nil || again != d {
		t.Fatalf("second Seal = %s, %v", again, err)
	}
	other := storetest.NewBundle(t, 4, 100)
	other.Store(t, s)
	d2, err := store.Seal(t.Context(), s, other.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	bundles, err := store.SealedBundles(t.Context(), s)
	if err != nil || len(bundles) != 2 {
		t.Fatalf("SealedBundles = %v, %v", bundles, err)
	}
	if bytes.Compare(bundles[0][:], bundles[1][:]) >= 0 || !slices.Contains(bundles, d) || !slices.Contains(bundles, d2) {
		t.Fatalf("SealedBundles not in digest order: %v", bundles)
	}
}

func TestSealRefusesIncompleteBundles(t *testing.T) {
	tests := []struct {
		name  string
		store func(t *testing.T, s store.Store, b storetest.Bundle)
		tags  []string
		want  error
	}{
		{"missing audit log", func(t *testing.T, s store.Store, b storetest.Bundle) {
			storetest.Put(t, s, b.Blobs[0])
			putObjects(t, s, b.Objects...)
		}, nil, store.ErrMissingReference},
		{"missing profile tree", func(t *testing.T, s store.Store, b storetest.Bundle) {
			for _, blob := range b.Blobs {
				storetest.Put(t, s, blob)
			}
			putObjects(t, s, b.Objects[1])
		}, nil, store.ErrMissingReference},
		{"missing evidence", func(t *testing.T, s store.Store, b storetest.Bundle) {
			for _, blob := range b.Blobs {
				storetest.Put(t, s, blob)
			}
			putObjects(t, s, b.Objects[0])
		}, nil, store.ErrMissingReference},
		{"bad tag", func(t *testing.T, s store.Store, b storetest.Bundle) { b.Store(t, s) }, []string{"ok", "not/a/tag"}, store.ErrInvalidRef},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			b := storetest.NewBundle(t, 5, 10<<10)
			tc.store(t, s, b)
			_, manifest := storetest.Encode(t, b.Manifest)
			if _, err := store.Seal(t.Context(), s, b.Manifest, tc.tags...); !errors.Is(err, tc.want) {
				t.Fatalf("Seal = %v, want %v", err, tc.want)
			}
			if _, err := s.Stat(t.Context(), manifest.Digest); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a refused Seal stored the manifest: %v", err)
			}
			if refs, _ := s.ListRefs(t.Context(), ""); len(refs) != 0 {
				t.Errorf("a refused Seal wrote refs: %v", refs)
			}
		})
	}
}
