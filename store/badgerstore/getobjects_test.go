package badgerstore

import (
	"bytes"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// ReadOrder puts packed records in the order they were packed, session after session, and
// the others (a record written since the last Sync, a missing digest) after them in the order
// given.
func TestReadOrder(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	packed := append(putSession(t, s, 0, 1), putSession(t, s, 0, 2)...)
	unpacked, _, err := s.PutBlob(t.Context(), bytes.NewReader([]byte("not synced")))
	if err != nil {
		t.Fatal(err)
	}
	missing := store.Sum([]byte("missing"))
	given := []store.Digest{missing}
	for i := len(packed) - 1; i >= 0; i-- {
		given = append(given, packed[i])
		if i == len(packed)/2 {
			given = append(given, unpacked)
		}
	}
	order, err := s.ReadOrder(t.Context(), given)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]store.Digest, len(order))
	for k, i := range order {
		got[k] = given[i]
	}
	if want := append(slices.Clone(packed), missing, unpacked); !slices.Equal(got, want) {
		t.Errorf("ReadOrder gives\n%v\nwant\n%v", got, want)
	}
}
