package store

import (
	"context"
	"io"
)

// Store is the content-addressed evidence store: immutable blobs and structured objects named by
// their digest, plus mutable refs (names → digests) kept apart from them.
//
// Implementations must be safe for concurrent use. Every method that reads content verifies it
// against its digest and reports a mismatch as ErrCorrupt wrapped with the digest.
type Store interface {
	// PutBlob reads r to EOF and stores its bytes as one blob. Large input is cut into chunks
	// and stored as a list of chunks; nothing buffers the whole input. Storing content that is
	// already present is a no-op that returns the same digest. Writes are not durable until
	// Sync returns. A PutBlob that fails (its reader fails, its context ends, the store is full)
	// leaves the store as it was: what it wrote is undone, except what other writes use.
	PutBlob(ctx context.Context, r io.Reader) (Digest, int64, error)

	// OpenBlob returns a reader over the exact bytes of a blob (or of a structured object),
	// and its size. The reader verifies the content while it is read and returns an error
	// wrapping ErrCorrupt, never wrong bytes, at the first mismatch. Missing: ErrNotFound.
	OpenBlob(ctx context.Context, d Digest) (io.ReadCloser, int64, error)

	// PutObject stores the canonical bytes of a structured object after checking its header,
	// schema and canonical form, and returns its descriptor. Use Put to store a typed Object.
	PutObject(ctx context.Context, canonical []byte) (Descriptor, error)

	// GetObject returns the verified canonical bytes of a structured object. A digest that
	// names a raw blob is ErrNotFound wrapped with "not a structured object".
	GetObject(ctx context.Context, d Digest) ([]byte, error)

	// Stat describes a stored blob or object without reading its content.
	Stat(ctx context.Context, d Digest) (Entry, error)

	// Delete removes a blob or object. Only garbage collection calls it.
	Delete(ctx context.Context, d Digest) error

	// Walk calls fn once for every stored blob and object, in digest order. Chunks of large
	// blobs are reported as their own entries with Chunk set.
	Walk(ctx context.Context, fn func(Entry) error) error

	// Sync makes every write so far durable (fsync). A bundle is reported sealed only after it.
	Sync(ctx context.Context) error

	// SetRef points name at d. It is durable when it returns.
	SetRef(ctx context.Context, name string, d Digest) error
	// GetRef returns the digest name points at, or ErrNotFound.
	GetRef(ctx context.Context, name string) (Digest, error)
	// DeleteRef removes a ref; removing a missing ref is not an error.
	DeleteRef(ctx context.Context, name string) error
	// ListRefs returns every ref whose name starts with prefix, sorted by name.
	ListRefs(ctx context.Context, prefix string) ([]Ref, error)

	// Close releases the store. Writes not yet synced may be lost.
	Close() error
}

// Entry describes one stored blob, chunk or structured object.
type Entry struct {
	// Digest is the digest of the content; for a chunk (Chunk true) it is the key the engine
	// stores the chunk under, which need not be the digest of the chunk's bytes alone.
	Digest Digest
	// Size is the length of the exact, uncompressed content.
	Size int64
	// Kind is the structured object kind, or "" for a raw blob or chunk.
	Kind Kind
	// Chunk is true for a chunk of a large blob (not addressable as a blob of its own).
	Chunk bool
	// Chunks lists the chunks of a large blob, in order; nil for blobs stored in one piece.
	Chunks []Digest
	// StoredSize is what the entry occupies in the store after compression.
	StoredSize int64
}

// Ref is a mutable name pointing at a digest.
type Ref struct {
	Name   string
	Digest Digest
}

// Ref namespaces. Immutable content is never named by a ref outside these prefixes.
const (
	// RefBundlePrefix + <64 hex> marks a sealed bundle. It is written last, after the manifest
	// and everything it reaches are durable, so its presence means "complete".
	RefBundlePrefix = "bundles/"
	// RefTagPrefix + <name> is a user-chosen name for a bundle.
	RefTagPrefix = "tags/"
	// RefProfilePrefix + <64 hex> keeps an imported profile tree alive.
	RefProfilePrefix = "profiles/"
	// RefReceiptPrefix + <64 hex> keeps a receipt (and its verdict) alive.
	RefReceiptPrefix = "receipts/"
)

// ObjectPutter is what Put writes through; Store satisfies it.
type ObjectPutter interface {
	PutObject(ctx context.Context, canonical []byte) (Descriptor, error)
}

// Put encodes a typed object canonically and stores it.
func Put(ctx context.Context, s ObjectPutter, obj Object) (Descriptor, error) {
	b, _, err := Encode(obj)
	if err != nil {
		return Descriptor{}, err
	}
	return s.PutObject(ctx, b)
}
