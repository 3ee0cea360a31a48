package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// ArtifactTypeGoldenResult is the artifactType of a record holding the outcome of one case of
// a determinism corpus (golden check --push): derived data that is not a bundle, kept so that
// golden check --from can report on the cases the shards checked.
const ArtifactTypeGoldenResult = "application/vnd.oasis-replay.golden-result.v1+json"

// maxRecord bounds a record read from a remote: a case's outcome with its differences.
const maxRecord = 4 << 20

// A record is a small document derived from bundles (a case's outcome), kept on a remote as an
// OCI artifact: an image manifest of the record's artifactType, the empty config, the document
// as its one layer and the fixed created annotation, named by a name the caller derives from
// what the document is about. Like a wrapper, it is written blobs first and named last, and a
// name that already points at the same manifest means there is nothing to write: a second
// push of the same record sends nothing.

// PutRecord makes name point at the record of the given artifact type holding content. It
// reports whether anything was uploaded.
func PutRecord(ctx context.Context, b Backend, name, artifactType string, content []byte) (bool, error) {
	mb, md, err := recordManifest(artifactType, content)
	if err != nil {
		return false, err
	}
	got, err := b.ResolveName(ctx, name)
	switch {
	case err == nil && got.Digest == md.Digest:
		return false, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return false, err
	}
	layer := store.Descriptor{MediaType: artifactType, Digest: store.Sum(content), Size: int64(len(content))}
	for _, blob := range []struct {
		d store.Descriptor
		b []byte
	}{{emptyDescriptor(), emptyConfig}, {layer, content}} {
		has, err := b.HasBlob(ctx, blob.d)
		if err != nil {
			return false, err
		}
		if !has {
			if err := b.PutBlob(ctx, blob.d, bytes.NewReader(blob.b)); err != nil {
				return false, err
			}
		}
	}
	if np, ok := b.(NamedManifestPutter); ok {
		return true, np.PutNamedManifest(ctx, name, md, mb)
	}
	if err := b.PutManifest(ctx, md, mb); err != nil {
		return false, err
	}
	return true, b.SetName(ctx, name, md, mb)
}

// GetRecord reads the record name points at, checking the manifest and the document against
// their digests and the artifact type; ErrNotFound when the remote has no such name.
func GetRecord(ctx context.Context, b Backend, name, artifactType string) ([]byte, error) {
	md, err := b.ResolveName(ctx, name)
	if err != nil {
		return nil, err
	}
	mb, err := b.GetManifest(ctx, md)
	if err != nil {
		return nil, err
	}
	if got := store.Sum(mb); got != md.Digest {
		return nil, fmt.Errorf("%w: manifest %s (%s) on %s: its content hashes to %s", ErrIntegrity, md.Digest, name, b, got)
	}
	m, err := decodeManifest(mb, md.Digest)
	if err != nil {
		return nil, err
	}
	if m.ArtifactType != artifactType || len(m.Layers) != 1 {
		return nil, fmt.Errorf("%w: manifest %s (%s) on %s is not a record of type %s (artifactType %q, %d layers)",
			ErrIntegrity, md.Digest, name, b, artifactType, m.ArtifactType, len(m.Layers))
	}
	d, err := m.Layers[0].store()
	if err != nil || d.Size > maxRecord {
		return nil, fmt.Errorf("%w: manifest %s (%s) on %s: layer: %v (size %d, at most %d)", ErrIntegrity, md.Digest, name, b, err, d.Size, maxRecord)
	}
	rc, err := b.OpenBlob(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	defer rc.Close()
	content, err := io.ReadAll(io.LimitReader(rc, d.Size+1))
	if err != nil {
		return nil, fmt.Errorf("blob %s on %s: %w", d.Digest, b, err)
	}
	if got := store.Sum(content); got != d.Digest || int64(len(content)) != d.Size {
		return nil, fmt.Errorf("%w: blob %s (%s) on %s: its content hashes to %s (%d bytes, %d expected)", ErrIntegrity, d.Digest, name, b, got, len(content), d.Size)
	}
	return content, nil
}

// recordManifest is the manifest of a record: deterministic to the byte, as a wrapper is.
func recordManifest(artifactType string, content []byte) ([]byte, store.Descriptor, error) {
	if strings.TrimSpace(artifactType) == "" {
		return nil, store.Descriptor{}, errors.New("remote: a record needs an artifact type")
	}
	layer := store.Descriptor{MediaType: artifactType, Digest: store.Sum(content), Size: int64(len(content))}
	m := &manifest{
		SchemaVersion: 2,
		MediaType:     MediaTypeManifest,
		ArtifactType:  artifactType,
		Config:        toOCI(emptyDescriptor()),
		Layers:        []ociDescriptor{toOCI(layer)},
		Annotations:   map[string]string{AnnotationCreated: Created},
	}
	return encodeManifest(m)
}
