package badgerstore

import (
	"fmt"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// SetRefs sets more refs than one transaction holds, and refuses a batch with a bad name before
// writing any of it.
func TestSetRefs(t *testing.T) {
	s, err := OpenInMemory(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := store.Sum([]byte("target"))
	var refs []store.Ref
	for i := range 2*refsPerTxn + 5 {
		refs = append(refs, store.Ref{Name: fmt.Sprintf("test/%05d", i), Digest: d})
	}
	if err := s.SetRefs(t.Context(), refs); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListRefs(t.Context(), "test/")
	if err != nil || len(got) != len(refs) {
		t.Fatalf("ListRefs: %d refs, %v", len(got), err)
	}
	bad := []store.Ref{{Name: "other/1", Digest: d}, {Name: "other/../2", Digest: d}}
	if err := s.SetRefs(t.Context(), bad); err == nil {
		t.Fatal("a bad ref name was accepted")
	}
	if got, _ := s.ListRefs(t.Context(), "other/"); len(got) != 0 {
		t.Errorf("a refused batch set %d refs", len(got))
	}
}
