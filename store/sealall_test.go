package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// SealAll seals several bundles with their extra refs; a bundle that cannot be sealed leaves
// every ref of the batch unset.
func TestSealAll(t *testing.T) {
	s := newStore(t)
	oasis := storetest.NewBundle(t, 1, 100)
	oasis.Store(t, s)
	var ms []store.Manifest
	for i := range 3 {
		content := fmt.Sprintf("evidence %d", i)
		evidence, _, err := s.PutBlob(t.Context(), strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, &otherManifest{Tree: oasis.Manifest.Profile.Tree,
			Evidence: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: evidence, Size: int64(len(content))}})
	}
	index := store.Ref{Name: "test/index", Digest: oasis.Manifest.Profile.Tree}
	ds, err := store.SealAll(t.Context(), s, ms, []store.Ref{index})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if sealed, err := store.IsSealed(t.Context(), s, d); err != nil || !sealed {
			t.Errorf("%s: sealed %v, %v", d, sealed, err)
		}
	}
	if got, err := s.GetRef(t.Context(), index.Name); err != nil || got != index.Digest {
		t.Errorf("extra ref = %s, %v", got, err)
	}

	missing := &otherManifest{Tree: oasis.Manifest.Profile.Tree,
		Evidence: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: store.Sum([]byte("absent")), Size: 6}}
	fineEvidence, n, err := s.PutBlob(t.Context(), strings.NewReader("evidence of a fine bundle"))
	if err != nil {
		t.Fatal(err)
	}
	fine := &otherManifest{Tree: oasis.Manifest.Profile.Tree, Evidence: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: fineEvidence, Size: n}}
	late := store.Ref{Name: "test/late", Digest: oasis.Manifest.Profile.Tree}
	if _, err := store.SealAll(t.Context(), s, []store.Manifest{fine, missing}, []store.Ref{late}); !errors.Is(err, store.ErrMissingReference) {
		t.Fatalf("a batch with a missing reference: %v", err)
	}
	_, fineDesc, _ := store.Encode(fine)
	if sealed, _ := store.IsSealed(t.Context(), s, fineDesc.Digest); sealed {
		t.Error("a bundle of a failed batch was sealed")
	}
	if _, err := s.GetRef(t.Context(), late.Name); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an extra ref of a failed batch was set: %v", err)
	}
	if err := store.SetRefs(t.Context(), s, []store.Ref{{Name: "bad name", Digest: index.Digest}}); !errors.Is(err, store.ErrInvalidRef) {
		t.Errorf("SetRefs with a bad name: %v", err)
	}
}
