package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/oasis-replay/oasis-replay/store"
)

// twinBase is what the verdict check reads of the store a recording writes into: what is
// already there (the redacted recording's blobs and objects, the pinned profile).
// store.Store satisfies it.
type twinBase interface {
	Stat(ctx context.Context, d store.Digest) (store.Entry, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// overlay is the in-memory store of the verdict check: it reads through to base, and holds in
// memory only what base lacks (what redaction changed, and the manifests evaluated), up to
// budget bytes (0: no limit). Beyond the budget it keeps digests only and sets over. It
// writes nothing to base and sets no ref: nothing unredacted is ever persisted.
type overlay struct {
	base   twinBase
	budget int64

	mu      sync.Mutex
	blobs   map[store.Digest][]byte
	objects map[store.Digest]store.Kind
	held    int64
	over    bool
}

// errOverBudget stops the twin's recording: a blob it would have to hold is beyond the budget,
// so the check cannot be made, and recording the rest would be wasted.
var errOverBudget = errors.New("recorder: verdict check: beyond the budget")

func newOverlay(base twinBase, budget int64) *overlay {
	return &overlay{base: base, budget: budget, blobs: map[store.Digest][]byte{}, objects: map[store.Digest]store.Kind{}}
}

// PutBlob reads r, keeping its bytes while they fit in the budget, and holds them unless
// base has the same blob. A blob base lacks and the budget cannot hold is errOverBudget.
func (o *overlay) PutBlob(ctx context.Context, r io.Reader) (store.Digest, int64, error) {
	g := store.NewDigester()
	keep := &limited{room: o.room()}
	n, err := io.Copy(io.MultiWriter(g, keep), r)
	if err != nil {
		return store.Digest{}, 0, err
	}
	d := g.Digest()
	if _, err := o.base.Stat(ctx, d); err == nil {
		return d, n, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.Digest{}, 0, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.blobs[d]; ok {
		return d, n, nil
	}
	if keep.full {
		o.over = true
		return d, n, errOverBudget
	}
	o.blobs[d] = keep.bytes()
	o.held += n
	return d, n, nil
}

// sum names what r yields without holding it: an exchange of the twin, which no evaluation
// reads.
func (o *overlay) sum(r io.Reader) (store.Digest, int64, error) {
	g := store.NewDigester()
	n, err := io.Copy(g, r)
	return g.Digest(), n, err
}

func (o *overlay) room() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.budget == 0:
		return -1
	case o.over:
		return 0
	}
	return o.budget - o.held
}

// limited keeps writes up to room bytes (room < 0: no limit), in pieces so that no copy
// doubles what it holds, then only notes that it is full and lets go of them.
type limited struct {
	pieces [][]byte
	n      int64
	room   int64
	full   bool
}

func (l *limited) Write(p []byte) (int, error) {
	if l.full {
		return len(p), nil
	}
	if l.room >= 0 && l.n+int64(len(p)) > l.room {
		l.full, l.pieces = true, nil
		return len(p), nil
	}
	l.pieces = append(l.pieces, bytes.Clone(p))
	l.n += int64(len(p))
	return len(p), nil
}

// bytes joins the pieces.
func (l *limited) bytes() []byte { return bytes.Join(l.pieces, nil) }

// PutObject holds the canonical bytes of an object base lacks.
func (o *overlay) PutObject(ctx context.Context, canonical []byte) (store.Descriptor, error) {
	kind, _, err := store.ReferencesOf(canonical)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("recorder: verdict check: %w", err)
	}
	d := store.Sum(canonical)
	desc := store.Descriptor{MediaType: store.MediaTypeOf(kind), Digest: d, Size: int64(len(canonical))}
	if _, err := o.base.Stat(ctx, d); err == nil {
		return desc, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.blobs[d]; !ok {
		o.blobs[d] = bytes.Clone(canonical)
		o.held += int64(len(canonical))
	}
	o.objects[d] = kind
	return desc, nil
}

func (o *overlay) lookup(d store.Digest) ([]byte, store.Kind, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, ok := o.blobs[d]
	return b, o.objects[d], ok
}

// GetObject reads an object held, or base's.
func (o *overlay) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	if b, kind, ok := o.lookup(d); ok {
		if kind == "" {
			return nil, fmt.Errorf("%w: %s: not a structured object", store.ErrNotFound, d)
		}
		return bytes.Clone(b), nil
	}
	return o.base.GetObject(ctx, d)
}

// OpenBlob reads a blob held, or base's.
func (o *overlay) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	if b, _, ok := o.lookup(d); ok {
		return io.NopCloser(bytes.NewReader(b)), int64(len(b)), nil
	}
	return o.base.OpenBlob(ctx, d)
}

// Stat describes a blob or object held, or base's.
func (o *overlay) Stat(ctx context.Context, d store.Digest) (store.Entry, error) {
	if b, kind, ok := o.lookup(d); ok {
		return store.Entry{Digest: d, Size: int64(len(b)), Kind: kind, StoredSize: int64(len(b))}, nil
	}
	return o.base.Stat(ctx, d)
}

// Sync has nothing to make durable.
func (o *overlay) Sync(context.Context) error { return nil }

// SetRef sets nothing: the twin names nothing in the store.
func (o *overlay) SetRef(context.Context, string, store.Digest) error { return nil }
