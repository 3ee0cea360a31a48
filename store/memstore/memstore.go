package memstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// ErrClosed: the store was closed.
var ErrClosed = errclass.New(errclass.Internal, "memstore: store is closed")

// Store is an in-memory store.Store. The zero Store is not usable; call New. It is safe for
// concurrent use.
type Store struct {
	mu      sync.RWMutex
	closed  bool
	content map[store.Digest]*entry
	refs    map[string]store.Digest
}

// entry is one stored blob or object: its bytes and, for an object, its kind.
type entry struct {
	data []byte
	kind store.Kind
}

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{content: map[store.Digest]*entry{}, refs: map[string]store.Digest{}}
}

// readPiece is how much PutBlob reads between two looks at its context.
const readPiece = 64 << 10

// PutBlob implements store.Store. The whole content is held in memory, in one piece.
func (s *Store) PutBlob(ctx context.Context, r io.Reader) (store.Digest, int64, error) {
	var buf bytes.Buffer
	for {
		if err := ctx.Err(); err != nil {
			return store.Digest{}, 0, err
		}
		n, err := io.CopyN(&buf, r, readPiece)
		if err == io.EOF {
			break
		}
		if err != nil {
			return store.Digest{}, 0, fmt.Errorf("memstore: put blob: %w", err)
		}
		if n < readPiece {
			break
		}
	}
	data := buf.Bytes()
	d := store.Sum(data)
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return store.Digest{}, 0, err
	}
	defer unlock()
	if _, ok := s.content[d]; !ok { // content is immutable: an object stays an object
		s.content[d] = &entry{data: data}
	}
	return d, int64(len(data)), nil
}

// OpenBlob implements store.Store. The content is verified against its digest when it is opened,
// and the reader stops at the first read after ctx is done.
func (s *Store) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	e, err := s.verified(ctx, d)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(&ctxReader{ctx: ctx, r: bytes.NewReader(e.data)}), int64(len(e.data)), nil
}

// ctxReader reads r until ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// PutObject implements store.Store: the bytes must be a structured object of a known kind and
// schema version, valid under its schema, and exactly canonical JSON, as for every store.
func (s *Store) PutObject(ctx context.Context, canonical []byte) (store.Descriptor, error) {
	kind, _, err := store.ReferencesOf(canonical)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("memstore: put object: %w", err)
	}
	again, err := store.Canonicalize(canonical)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("memstore: put %s object: %w", kind, err)
	}
	if !bytes.Equal(again, canonical) {
		return store.Descriptor{}, fmt.Errorf("%w: %s object bytes are not in canonical form", store.ErrNotCanonical, kind)
	}
	d := store.Sum(canonical)
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return store.Descriptor{}, err
	}
	defer unlock()
	if e, ok := s.content[d]; ok {
		e.kind = kind // the same bytes stored as a blob become the object
	} else {
		s.content[d] = &entry{data: slices.Clone(canonical), kind: kind}
	}
	return store.Descriptor{MediaType: store.MediaTypeOf(kind), Digest: d, Size: int64(len(canonical))}, nil
}

// GetObject implements store.Store.
func (s *Store) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	e, err := s.verified(ctx, d)
	if err != nil {
		return nil, err
	}
	if e.kind == "" {
		return nil, fmt.Errorf("%w: %s: not a structured object", store.ErrNotFound, d)
	}
	return slices.Clone(e.data), nil
}

// GetObjects returns what GetObject returns for each of ds, in order; the first failure is
// the error.
func (s *Store) GetObjects(ctx context.Context, ds []store.Digest) ([][]byte, error) {
	out := make([][]byte, len(ds))
	for i, d := range ds {
		b, err := s.GetObject(ctx, d)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// verified returns the entry of d once its bytes are checked against d.
func (s *Store) verified(ctx context.Context, d store.Digest) (entry, error) {
	e, err := s.lookup(ctx, d)
	if err != nil {
		return entry{}, err
	}
	if got := store.Sum(e.data); got != d {
		return entry{}, fmt.Errorf("%w: %s holds content %s", store.ErrCorrupt, d, got)
	}
	return e, nil
}

// lookup returns a copy of the entry of d (its bytes are never changed in place).
func (s *Store) lookup(ctx context.Context, d store.Digest) (entry, error) {
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return entry{}, err
	}
	defer unlock()
	e, ok := s.content[d]
	if !ok {
		return entry{}, fmt.Errorf("%w: %s", store.ErrNotFound, d)
	}
	return *e, nil
}

// Stat implements store.Store. Nothing is compressed: StoredSize is Size.
func (s *Store) Stat(ctx context.Context, d store.Digest) (store.Entry, error) {
	e, err := s.lookup(ctx, d)
	if err != nil {
		return store.Entry{}, err
	}
	return entryOf(d, e), nil
}

func entryOf(d store.Digest, e entry) store.Entry {
	return store.Entry{Digest: d, Size: int64(len(e.data)), Kind: e.kind, StoredSize: int64(len(e.data))}
}

// Delete implements store.Store.
func (s *Store) Delete(ctx context.Context, d store.Digest) error {
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	delete(s.content, d)
	return nil
}

// Walk implements store.Store: every blob and object in digest order, from a snapshot taken
// when it starts.
func (s *Store) Walk(ctx context.Context, fn func(store.Entry) error) error {
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return err
	}
	entries := make([]store.Entry, 0, len(s.content))
	for d, e := range s.content {
		entries = append(entries, entryOf(d, *e))
	}
	unlock()
	slices.SortFunc(entries, func(a, b store.Entry) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Sync implements store.Store; there is nothing to make durable.
func (s *Store) Sync(ctx context.Context) error {
	unlock, err := s.lock(ctx, false)
	if err == nil {
		unlock()
	}
	return err
}

// SetRef implements store.Store.
func (s *Store) SetRef(ctx context.Context, name string, d store.Digest) error {
	if err := store.ValidateRefName(name); err != nil {
		return err
	}
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	s.refs[name] = d
	return nil
}

// GetRef implements store.Store.
func (s *Store) GetRef(ctx context.Context, name string) (store.Digest, error) {
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return store.Digest{}, err
	}
	defer unlock()
	d, ok := s.refs[name]
	if !ok {
		return store.Digest{}, fmt.Errorf("%w: ref %s", store.ErrNotFound, name)
	}
	return d, nil
}

// DeleteRef implements store.Store.
func (s *Store) DeleteRef(ctx context.Context, name string) error {
	unlock, err := s.lock(ctx, true)
	if err != nil {
		return err
	}
	defer unlock()
	delete(s.refs, name)
	return nil
}

// ListRefs implements store.Store.
func (s *Store) ListRefs(ctx context.Context, prefix string) ([]store.Ref, error) {
	unlock, err := s.lock(ctx, false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var refs []store.Ref
	for name, d := range s.refs {
		if strings.HasPrefix(name, prefix) {
			refs = append(refs, store.Ref{Name: name, Digest: d})
		}
	}
	slices.SortFunc(refs, func(a, b store.Ref) int { return strings.Compare(a.Name, b.Name) })
	return refs, nil
}

// Close implements store.Store: the content is dropped, and every later call fails with
// ErrClosed. Closing again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed, s.content, s.refs = true, nil, nil
	return nil
}

// lock takes the store's lock, for writing when write is set, once it has checked that ctx is
// not done and the store is open; the caller calls unlock.
func (s *Store) lock(ctx context.Context, write bool) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, unlock := s.mu.RLock, s.mu.RUnlock
	if write {
		lock, unlock = s.mu.Lock, s.mu.Unlock
	}
	lock()
	if s.closed {
		unlock()
		return nil, ErrClosed
	}
	return unlock, nil
}
