package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// sealTwins seals two bundles whose digests share their first four hex characters, by varying
// an annotation until two manifests collide on that prefix (about 300 tries on average).
func sealTwins(t *testing.T, s store.Store) (a, b store.Digest) {
	t.Helper()
	base := storetest.NewBundle(t, 6, 100)
	base.Store(t, s)
	seen := map[string]*store.RunManifest{}
	for i := 0; ; i++ {
		m := *base.Manifest
		m.Annotations = map[string]string{"attempt": fmt.Sprint(i)}
		_, desc := storetest.Encode(t, &m)
		prefix := desc.Digest.Hex()[:store.MinPrefixLength]
		if first, ok := seen[prefix]; ok {
			da, err := store.Seal(t.Context(), s, first)
			if err != nil {
				t.Fatal(err)
			}
			db, err := store.Seal(t.Context(), s, &m)
			if err != nil {
				t.Fatal(err)
			}
			return da, db
		}
		seen[prefix] = &m
	}
}

func TestResolve(t *testing.T) {
	s := newStore(t)
	twinA, twinB := sealTwins(t, s)
	lone := storetest.NewBundle(t, 7, 100)
	lone.Store(t, s)
	d, err := store.Seal(t.Context(), s, lone.Manifest, "release")
	if err != nil {
		t.Fatal(err)
	}
	// A tag that looks like a prefix of another bundle.
	clash := twinA.Hex()[:8]
	if err := s.SetRef(t.Context(), "tags/"+clash, d); err != nil {
		t.Fatal(err)
	}
	unsealed := storetest.NewBundle(t, 8, 100)
	unsealed.Store(t, s)
	_, unsealedDesc := storetest.Encode(t, unsealed.Manifest)
	if err := s.SetRef(t.Context(), "tags/dangling", unsealedDesc.Digest); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		arg     string
		want    store.Digest
		err     error
		mention string
	}{
		{arg: d.String(), want: d},
		{arg: "release", want: d},
		{arg: d.Hex()[:12], want: d},
		{arg: "sha256:" + d.Hex()[:12], want: d},
		{arg: d.Hex(), want: d},
		{arg: twinA.Hex()[:store.MinPrefixLength], err: store.ErrAmbiguous, mention: twinB.String()},
		{arg: twinB.Hex()[:store.MinPrefixLength+8], want: twinB},
		{arg: clash, err: store.ErrAmbiguous, mention: "tag " + clash},
		{arg: d.Hex()[:3], err: store.ErrNotFound, mention: "too short"},
		{arg: unsealedDesc.Digest.String(), err: store.ErrNotFound, mention: "not a sealed bundle"},
		{arg: "dangling", err: store.ErrNotFound, mention: "not a sealed bundle"},
		{arg: "no-such-tag", err: store.ErrNotFound},
		{arg: "", err: store.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			got, err := store.Resolve(t.Context(), s, tc.arg)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.mention) {
					t.Fatalf("Resolve(%q) = %s, %v; want %v mentioning %q", tc.arg, got, err, tc.err, tc.mention)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve(%q) = %s, %v; want %s", tc.arg, got, err, tc.want)
			}
		})
	}
}
