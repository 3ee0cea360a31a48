package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// Media and artifact types of what a remote holds.
const (
	// MediaTypeManifest is an OCI image manifest (image-spec manifest.md).
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	// MediaTypeIndexConfig is the wrapper's config: the archive's index.json, an OCI image index.
	MediaTypeIndexConfig = "application/vnd.oci.image.index.v1+json"
	// ArtifactTypeBundle is the wrapper's artifactType.
	ArtifactTypeBundle = "application/vnd.oasis-replay.bundle.v1"
	// ArtifactTypeReceipt is the artifactType of a receipt referrer (receipt and verdict).
	ArtifactTypeReceipt = store.MediaTypeReceipt
	// ArtifactTypeDSSE is the artifactType of a signed receipt referrer (a DSSE envelope).
	ArtifactTypeDSSE = "application/vnd.dsse.envelope.v1+json"
	// MediaTypeEmpty is the OCI empty descriptor's media type (image-spec manifest.md,
	// "Guidance for an Empty Descriptor"); its content is "{}".
	MediaTypeEmpty = "application/vnd.oci.empty.v1+json"

	// AnnotationCreated is fixed (Created) so that the wrapper does not depend on when it was
	// pushed.
	AnnotationCreated = "org.opencontainers.image.created"
	// AnnotationBundle names the bundle a wrapper or a referrer is about.
	AnnotationBundle = "com.github.oasis-replay.bundle"
	// Created is the value of AnnotationCreated in every manifest a push writes.
	Created = "1970-01-01T00:00:00Z"
	// BundleNamePrefix + the bundle's 64 hex is the name of its wrapper.
	BundleNamePrefix = "bundle-"
)

// emptyConfig is the OCI empty descriptor's content.
var emptyConfig = []byte("{}")

// ociDescriptor is an OCI content descriptor (image-spec descriptor.md).
type ociDescriptor struct {
	MediaType    string            `json:"mediaType"`
	Digest       string            `json:"digest"`
	Size         int64             `json:"size"`
	ArtifactType string            `json:"artifactType,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
}

// manifest is an OCI 1.1 image manifest (image-spec manifest.md).
type manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        ociDescriptor     `json:"config"`
	Layers        []ociDescriptor   `json:"layers"`
	Subject       *ociDescriptor    `json:"subject,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

func toOCI(d store.Descriptor) ociDescriptor {
	return ociDescriptor{MediaType: d.MediaType, Digest: d.Digest.String(), Size: d.Size}
}

func (d ociDescriptor) store() (store.Descriptor, error) {
	dg, err := store.ParseDigest(d.Digest)
	if err != nil {
		return store.Descriptor{}, err
	}
	if d.Size < 0 {
		return store.Descriptor{}, fmt.Errorf("negative size %d", d.Size)
	}
	return store.Descriptor{MediaType: d.MediaType, Digest: dg, Size: d.Size}, nil
}

// encodeManifest writes m as canonical JSON (store.Canonicalize: sorted members, no spaces),
// so the same manifest always has the same bytes and digest.
func encodeManifest(m *manifest) ([]byte, store.Descriptor, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, store.Descriptor{}, err
	}
	b, err := store.Canonicalize(raw)
	if err != nil {
		return nil, store.Descriptor{}, err
	}
	return b, store.Descriptor{MediaType: MediaTypeManifest, Digest: store.Sum(b), Size: int64(len(b))}, nil
}

// wrapperOf is the wrapper manifest of a bundle's layout.
func wrapperOf(l *archive.Layout) ([]byte, store.Descriptor, error) {
	m := &manifest{
		SchemaVersion: 2,
		MediaType:     MediaTypeManifest,
		ArtifactType:  ArtifactTypeBundle,
		Config:        ociDescriptor{MediaType: MediaTypeIndexConfig, Digest: store.Sum(l.Index).String(), Size: int64(len(l.Index))},
		Layers:        make([]ociDescriptor, 0, len(l.Entries)),
		Annotations:   map[string]string{AnnotationCreated: Created, AnnotationBundle: l.Summary.Bundle.String()},
	}
	for _, e := range l.Entries {
		m.Layers = append(m.Layers, toOCI(e))
	}
	return encodeManifest(m)
}

// maxManifest bounds a manifest read from a remote (registries commonly refuse more than 4 MiB).
const maxManifest = 4 << 20

// decodeManifest reads manifest bytes from a remote, refusing anything but an OCI image
// manifest; what names the error is the manifest's digest.
func decodeManifest(b []byte, d store.Digest) (*manifest, error) {
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: manifest %s: %w", ErrIntegrity, d, err)
	}
	if m.SchemaVersion != 2 || m.MediaType != MediaTypeManifest {
		return nil, fmt.Errorf("%w: manifest %s is not an OCI image manifest (schemaVersion %d, mediaType %q)", ErrIntegrity, d, m.SchemaVersion, m.MediaType)
	}
	return &m, nil
}

// wrapper is a decoded wrapper manifest: the bundle it names, its config and its layers.
type wrapper struct {
	desc   store.Descriptor
	bundle store.Digest
	config store.Descriptor
	layers []store.Descriptor
}

func decodeWrapper(b []byte, d store.Descriptor) (*wrapper, error) {
	m, err := decodeManifest(b, d.Digest)
	if err != nil {
		return nil, err
	}
	if m.ArtifactType != ArtifactTypeBundle {
		return nil, fmt.Errorf("%w: manifest %s has artifactType %q, not %s", ErrIntegrity, d.Digest, m.ArtifactType, ArtifactTypeBundle)
	}
	w := &wrapper{desc: d}
	if w.bundle, err = store.ParseDigest(m.Annotations[AnnotationBundle]); err != nil {
		return nil, fmt.Errorf("%w: manifest %s: annotation %s: %w", ErrIntegrity, d.Digest, AnnotationBundle, err)
	}
	if w.config, err = m.Config.store(); err != nil || m.Config.MediaType != MediaTypeIndexConfig {
		return nil, fmt.Errorf("%w: manifest %s: config is not an index.json descriptor: %v", ErrIntegrity, d.Digest, err)
	}
	for i, l := range m.Layers {
		ld, err := l.store()
		if err != nil {
			return nil, fmt.Errorf("%w: manifest %s: layer %d: %w", ErrIntegrity, d.Digest, i, err)
		}
		w.layers = append(w.layers, ld)
	}
	return w, nil
}

// BundleName is the name of a bundle's wrapper on a remote.
func BundleName(b store.Digest) string { return BundleNamePrefix + b.Hex() }

// bundleOfName is the bundle digest a bundle-<hex> name stands for.
func bundleOfName(name string) (store.Digest, bool) {
	hex, ok := strings.CutPrefix(name, BundleNamePrefix)
	if !ok {
		return store.Digest{}, false
	}
	d, err := store.ParseDigest(store.DigestPrefix + hex)
	return d, err == nil
}
