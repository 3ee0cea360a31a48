package remote

import (
	"context"
	"io"

	"github.com/oasis-replay/oasis-replay/store"
)

// Backend is what push and pull need of a remote: content-addressed blobs and manifests,
// mutable names for manifests, and the referrers of a manifest. remote/registry implements it
// over an OCI registry, remote/bucket over S3.
//
// Content methods take descriptors whose digest and size the caller vouches for; the backend
// need not hash what it uploads. What a backend returns is not trusted: push and pull verify it.
type Backend interface {
	// HasBlob reports whether the remote holds the blob (a HEAD, before any upload).
	HasBlob(ctx context.Context, d store.Descriptor) (bool, error)
	// PutBlob uploads exactly d.Size bytes from r as the blob d.
	PutBlob(ctx context.Context, d store.Descriptor, r io.Reader) error
	// OpenBlob reads the blob d; ErrNotFound when the remote lacks it.
	OpenBlob(ctx context.Context, d store.Descriptor) (io.ReadCloser, error)

	// HasManifest reports whether the remote holds the manifest d.
	HasManifest(ctx context.Context, d store.Descriptor) (bool, error)
	// PutManifest stores manifest bytes b under their digest d. A manifest with a subject is a
	// referrer of that subject from then on (referrers API or tag schema: the backend's choice).
	PutManifest(ctx context.Context, d store.Descriptor, b []byte) error
	// GetManifest reads the manifest d; ErrNotFound when the remote lacks it.
	GetManifest(ctx context.Context, d store.Descriptor) ([]byte, error)

	// SetName points the name (an OCI tag) at the manifest d, whose bytes are b.
	SetName(ctx context.Context, name string, d store.Descriptor, b []byte) error
	// ResolveName returns the manifest a name points at; ErrNotFound when no such name.
	ResolveName(ctx context.Context, name string) (store.Descriptor, error)
	// Names lists the names that start with prefix, sorted.
	Names(ctx context.Context, prefix string) ([]string, error)

	// Referrers lists the manifests whose subject is d, whatever their artifact type, sorted
	// by digest.
	Referrers(ctx context.Context, d store.Descriptor) ([]Referrer, error)

	// String is the remote's URL, for messages.
	String() string
}

// Referrer is a manifest that refers to another as its subject.
type Referrer struct {
	store.Descriptor
	ArtifactType string
}
