package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// newStore opens an empty in-memory store with small chunks, closed when the test ends.
func newStore(t testing.TB) *badgerstore.Store {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{ChunkSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestValidateRefName(t *testing.T) {
	d := store.Sum([]byte("x"))
	tests := []struct {
		name string
		ok   bool
	}{
		{store.BundleRefName(d), true},
		{store.ProfileRefName(d), true},
		{store.ReceiptRefName(d), true},
		{"tags/v1.2.3", true},
		{"tags/nightly_2026-08-20", true},
		{"golden/si-suite", true},
		{"", false},
		{"tags/", false},
		{"tags/.hidden", false},
		{"tags/a..b", false},
		{"a/../b", false},
		{"/abs", false},
		{"trailing/", false},
		{"double//slash", false},
		{"space here", false},
		{"tab\there", false},
		{"back\\slash", false},
		{"tags/ünicode", false},
		{"bundles/" + d.Hex()[:63], false},
		{"bundles/" + strings.ToUpper(d.Hex()), false},
		{"profiles/not-a-digest", false},
		{"tags/" + strings.Repeat("v", store.MaxTagLength), true},
		{"tags/" + strings.Repeat("v", store.MaxTagLength+1), false},
		{strings.Repeat("n", store.MaxRefNameLength), true},
		{strings.Repeat("n", store.MaxRefNameLength+1), false},
	}
	for _, tc := range tests {
		err := store.ValidateRefName(tc.name)
		if tc.ok && err != nil {
			t.Errorf("ValidateRefName(%q) = %v, want ok", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, store.ErrInvalidRef) {
			t.Errorf("ValidateRefName(%q) = %v, want ErrInvalidRef", tc.name, err)
		}
	}
}

func TestValidateTag(t *testing.T) {
	for _, tag := range []string{"v1", "V1.0", "_private", "2026-08-20", "release-candidate.3", "abcd"} {
		if err := store.ValidateTag(tag); err != nil {
			t.Errorf("ValidateTag(%q) = %v", tag, err)
		}
	}
	for _, tag := range []string{"", "-x", ".x", "a/b", "a:b", "a..b", "sha256:abcd", "a b", "é"} {
		if err := store.ValidateTag(tag); !errors.Is(err, store.ErrInvalidRef) {
			t.Errorf("ValidateTag(%q) = %v, want ErrInvalidRef", tag, err)
		}
	}
	if name, err := store.TagRefName("v1"); err != nil || name != "tags/v1" {
		t.Errorf("TagRefName(v1) = %q, %v", name, err)
	}
}

func TestDigestOfRef(t *testing.T) {
	d := store.Sum([]byte("x"))
	for _, name := range []string{store.BundleRefName(d), store.ProfileRefName(d), store.ReceiptRefName(d)} {
		if got, ok := store.DigestOfRef(name); !ok || got != d {
			t.Errorf("DigestOfRef(%q) = %s, %v", name, got, ok)
		}
	}
	for _, name := range []string{"tags/" + d.Hex(), "bundles/xyz", "other/" + d.Hex()} {
		if _, ok := store.DigestOfRef(name); ok {
			t.Errorf("DigestOfRef(%q) claims a digest", name)
		}
	}
}
