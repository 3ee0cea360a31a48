package store_test

import (
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// TestListingCache: Seal keeps each bundle's listing; ListBundles serves it without reading the
// manifest and reads the manifest of a bundle the cache lacks; Check reports a kept listing
// that differs from the manifest; GC drops the listing of a bundle that is no longer sealed.
func TestListingCache(t *testing.T) {
	ctx := t.Context()
	s := newStore(t)
	var sealed []store.Digest
	for seed := range uint64(3) {
		b := storetest.NewBundle(t, 30+seed, 100)
		b.Store(t, s)
		d, err := store.Seal(ctx, s, b.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		sealed = append(sealed, d)
	}
	cached, err := s.Listings(ctx)
	if err != nil || len(cached) != 3 {
		t.Fatalf("Listings = %d entries, %v; want 3", len(cached), err)
	}
	want, err := store.ListBundles(ctx, s)
	if err != nil {
		t.Fatal(err)
	}

	// Without its cached listing, a bundle is listed from its manifest, the same.
	if err := s.DeleteListing(ctx, sealed[0]); err != nil {
		t.Fatal(err)
	}
	got, err := store.ListBundles(ctx, s)
	if err != nil || len(got) != 3 || got[0].Subject != want[0].Subject || *got[0].Profile != *want[0].Profile {
		t.Fatalf("ListBundles without a cached listing = %+v, %v; want %+v", got, err, want)
	}

	// A kept listing that says something else is a problem for Check.
	other := cached[sealed[2]]
	if err := s.PutListing(ctx, sealed[1], other); err != nil {
		t.Fatal(err)
	}
	report, err := store.Check(ctx, s, store.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Problems) != 1 || report.Problems[0].Ref != store.BundleRefName(sealed[1]) {
		t.Fatalf("Check problems = %v, want one naming bundle %s", report.Problems, sealed[1])
	}

	// Unsealed: GC drops its listing.
	if err := s.DeleteRef(ctx, store.BundleRefName(sealed[2])); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GC(ctx, s, store.GCOptions{}); err != nil {
		t.Fatal(err)
	}
	if cached, err := s.Listings(ctx); err != nil || len(cached) != 1 {
		t.Errorf("after GC: %d listings, %v; want the one of %s", len(cached), err, sealed[1])
	}
}
