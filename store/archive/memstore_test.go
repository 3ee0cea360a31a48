package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/store"
)

// memStore is an in-memory store.Store for tests. It keeps the contract's promises that the
// archive relies on: objects are checked for header and canonical form on PutObject, content is
// verified on read, and it logs the order of durability-relevant calls so tests can check that a
// bundle ref is written only after a Sync.
type memStore struct {
	mu      sync.Mutex
	content map[store.Digest][]byte
	kinds   map[store.Digest]store.Kind
	refs    map[string]store.Digest
	ops     []string // "sync", "ref <name>"
	// lie, when set, makes reads return these bytes for a digest without verifying them: a
	// corrupt store, for tests of what Export does with one.
	lie map[store.Digest][]byte
}

var _ store.Store = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{
		content: make(map[store.Digest][]byte),
		kinds:   make(map[store.Digest]store.Kind),
		refs:    make(map[string]store.Digest),
		lie:     make(map[store.Digest][]byte),
	}
}

func (m *memStore) PutBlob(ctx context.Context, r io.Reader) (store.Digest, int64, error) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return store.Digest{}, 0, err
	}
	b := buf.Bytes()
	d := store.Sum(b)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.content[d]; !ok {
		m.content[d] = b
	}
	return d, int64(len(b)), nil
}

func (m *memStore) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	b, err := m.read(d)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
}

func (m *memStore) read(d store.Digest) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.lie[d]; ok {
		return b, nil
	}
	b, ok := m.content[d]
	if !ok {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, d)
	}
	if store.Sum(b) != d {
		return nil, fmt.Errorf("%w: %s", store.ErrCorrupt, d)
	}
	return b, nil
}

func (m *memStore) PutObject(ctx context.Context, canonical []byte) (store.Descriptor, error) {
	c, err := store.Canonicalize(canonical)
	if err != nil {
		return store.Descriptor{}, err
	}
	if !bytes.Equal(c, canonical) {
		return store.Descriptor{}, fmt.Errorf("%w: object not in canonical form", store.ErrNotCanonical)
	}
	kind, _, err := store.ReferencesOf(canonical)
	if err != nil {
		return store.Descriptor{}, err
	}
	d := store.Sum(canonical)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.content[d] = slices.Clone(canonical)
	m.kinds[d] = kind
	return store.Descriptor{MediaType: store.MediaTypeOf(kind), Digest: d, Size: int64(len(canonical))}, nil
}

func (m *memStore) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	m.mu.Lock()
	kind := m.kinds[d]
	m.mu.Unlock()
	b, err := m.read(d)
	if err != nil {
		return nil, err
	}
	if kind == "" {
		return nil, fmt.Errorf("%w: %s: not a structured object", store.ErrNotFound, d)
	}
	return b, nil
}

func (m *memStore) Stat(ctx context.Context, d store.Digest) (store.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.content[d]
	if !ok {
		return store.Entry{}, fmt.Errorf("%w: %s", store.ErrNotFound, d)
	}
	return store.Entry{Digest: d, Size: int64(len(b)), Kind: m.kinds[d], StoredSize: int64(len(b))}, nil
}

func (m *memStore) Delete(ctx context.Context, d store.Digest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.content, d)
	delete(m.kinds, d)
	return nil
}

func (m *memStore) Walk(ctx context.Context, fn func(store.Entry) error) error {
	m.mu.Lock()
	entries := make([]store.Entry, 0, len(m.content))
	for d, b := range m.content {
		entries = append(entries, store.Entry{Digest: d, Size: int64(len(b)), Kind: m.kinds[d], StoredSize: int64(len(b))})
	}
	m.mu.Unlock()
	slices.SortFunc(entries, func(a, b store.Entry) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (m *memStore) Sync(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ops = append(m.ops, "sync")
	return nil
}

func (m *memStore) SetRef(ctx context.Context, name string, d store.Digest) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs[name] = d
	m.ops = append(m.ops, "ref "+name)
	return nil
}

func (m *memStore) GetRef(ctx context.Context, name string) (store.Digest, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.refs[name]
	if !ok {
		return store.Digest{}, fmt.Errorf("%w: ref %s", store.ErrNotFound, name)
	}
	return d, nil
}

func (m *memStore) DeleteRef(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.refs, name)
	return nil
}

func (m *memStore) ListRefs(ctx context.Context, prefix string) ([]store.Ref, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var refs []store.Ref
	for name, d := range m.refs {
		if strings.HasPrefix(name, prefix) {
			refs = append(refs, store.Ref{Name: name, Digest: d})
		}
	}
	slices.SortFunc(refs, func(a, b store.Ref) int { return strings.Compare(a.Name, b.Name) })
	return refs, nil
}

func (m *memStore) Close() error { return nil }

// snapshot renders the store's whole state (content digests with kinds and sizes, and refs) as
// text, to compare two stores.
func (m *memStore) snapshot() string {
	var sb strings.Builder
	_ = m.Walk(context.Background(), func(e store.Entry) error {
		fmt.Fprintf(&sb, "%s %q %d\n", e.Digest, e.Kind, e.Size)
		return nil
	})
	refs, _ := m.ListRefs(context.Background(), "")
	for _, r := range refs {
		fmt.Fprintf(&sb, "ref %s -> %s\n", r.Name, r.Digest)
	}
	return sb.String()
}
