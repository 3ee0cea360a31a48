package memstore

import (
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Store { return New() }, storetest.WithCorrupter(flipStoredByte))
}

// flipStoredByte damages the stored bytes of e: its first byte, or a byte added to an empty
// blob.
func flipStoredByte(t *testing.T, st store.Store, e store.Entry) {
	s := st.(*Store)
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.content[e.Digest]
	if !ok {
		t.Fatalf("corrupt %s: not stored", e.Digest)
	}
	damaged := slices.Clone(stored.data)
	if len(damaged) == 0 {
		damaged = []byte{0}
	} else {
		damaged[0] ^= 0x20
	}
	stored.data = damaged
}
