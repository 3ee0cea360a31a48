package archive

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/memstore"
)

// testStore is the in-memory store (store/memstore) as these tests use it: it logs the calls
// that make a bundle durable (Sync and SetRef, in order), so that tests can check that a bundle
// ref is written only after a Sync, and it can be made to lie: reads of a digest in lie return
// those bytes unverified, a corrupt store for tests of what Export does with one.
type testStore struct {
	*memstore.Store
	mu  sync.Mutex
	ops []string // "sync", "ref <name>"
	lie map[store.Digest][]byte
}

func newTestStore() *testStore {
	return &testStore{Store: memstore.New(), lie: map[store.Digest][]byte{}}
}

func (s *testStore) log(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
}

func (s *testStore) Sync(ctx context.Context) error {
	s.log("sync")
	return s.Store.Sync(ctx)
}

func (s *testStore) SetRef(ctx context.Context, name string, d store.Digest) error {
	s.log("ref " + name)
	return s.Store.SetRef(ctx, name, d)
}

func (s *testStore) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	if b, ok := s.lie[d]; ok {
		return io.NopCloser(strings.NewReader(string(b))), int64(len(b)), nil
	}
	return s.Store.OpenBlob(ctx, d)
}

func (s *testStore) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	if b, ok := s.lie[d]; ok {
		return b, nil
	}
	return s.Store.GetObject(ctx, d)
}

// content returns the stored bytes of d; ok is false when d is not stored.
func (s *testStore) content(d store.Digest) (b []byte, ok bool) {
	r, _, err := s.Store.OpenBlob(context.Background(), d)
	if err != nil {
		return nil, false
	}
	defer r.Close()
	b, err = io.ReadAll(r)
	return b, err == nil
}

// bytesOf returns the stored bytes of d, nil when d is not stored.
func (s *testStore) bytesOf(d store.Digest) []byte {
	b, _ := s.content(d)
	return b
}

// snapshot renders the store's whole state (content digests with kinds and sizes, and refs) as
// text, to compare two stores.
func (s *testStore) snapshot() string {
	var sb strings.Builder
	_ = s.Walk(context.Background(), func(e store.Entry) error {
		fmt.Fprintf(&sb, "%s %q %d\n", e.Digest, e.Kind, e.Size)
		return nil
	})
	refs, _ := s.ListRefs(context.Background(), "")
	for _, r := range refs {
		fmt.Fprintf(&sb, "ref %s -> %s\n", r.Name, r.Digest)
	}
	return sb.String()
}
