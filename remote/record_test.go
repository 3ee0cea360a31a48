package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// memBackend is a Backend in memory, for the tests of what push and pull ask of one.
type memBackend struct {
	blobs, manifests map[store.Digest][]byte
	names            map[string]store.Descriptor
}

func newMemBackend() *memBackend {
	return &memBackend{blobs: map[store.Digest][]byte{}, manifests: map[store.Digest][]byte{}, names: map[string]store.Descriptor{}}
}

func (m *memBackend) HasBlob(_ context.Context, d store.Descriptor) (bool, error) {
	_, ok := m.blobs[d.Digest]
	return ok, nil
}

func (m *memBackend) PutBlob(_ context.Context, d store.Descriptor, r io.Reader) error {
	b, err := io.ReadAll(r)
	m.blobs[d.Digest] = b
	return err
}

func (m *memBackend) OpenBlob(_ context.Context, d store.Descriptor) (io.ReadCloser, error) {
	b, ok := m.blobs[d.Digest]
	if !ok {
		return nil, fmt.Errorf("%w: blob %s", ErrNotFound, d.Digest)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (m *memBackend) HasManifest(_ context.Context, d store.Descriptor) (bool, error) {
	_, ok := m.manifests[d.Digest]
	return ok, nil
}

func (m *memBackend) PutManifest(_ context.Context, d store.Descriptor, b []byte) error {
	m.manifests[d.Digest] = slices.Clone(b)
	return nil
}

func (m *memBackend) GetManifest(_ context.Context, d store.Descriptor) ([]byte, error) {
	b, ok := m.manifests[d.Digest]
	if !ok {
		return nil, fmt.Errorf("%w: manifest %s", ErrNotFound, d.Digest)
	}
	return b, nil
}

func (m *memBackend) SetName(_ context.Context, name string, d store.Descriptor, _ []byte) error {
	m.names[name] = d
	return nil
}

func (m *memBackend) ResolveName(_ context.Context, name string) (store.Descriptor, error) {
	d, ok := m.names[name]
	if !ok {
		return store.Descriptor{}, fmt.Errorf("%w: name %s", ErrNotFound, name)
	}
	return d, nil
}

func (m *memBackend) Names(_ context.Context, prefix string) ([]string, error) {
	var out []string
	for n := range m.names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (m *memBackend) Referrers(context.Context, store.Descriptor) ([]Referrer, error) {
	return nil, nil
}

func (m *memBackend) String() string { return "mem://" }

// TestRecord: a record is read back as written; writing it again uploads nothing; a record
// whose content, manifest or type is not what its name points at is an integrity error, and
// a name the remote lacks is ErrNotFound.
func TestRecord(t *testing.T) {
	const typ = ArtifactTypeGoldenResult
	content := []byte(`{"case":"a","outcome":"ok"}`)
	for _, tc := range []struct {
		name   string
		tamper func(m *memBackend)
		read   string
		typ    string
		want   error
	}{
		{name: "as written", read: "golden-a", typ: typ},
		{name: "unknown name", read: "golden-b", typ: typ, want: ErrNotFound},
		{name: "other type", read: "golden-a", typ: ArtifactTypeBundle, want: ErrIntegrity},
		{name: "tampered content", read: "golden-a", typ: typ, want: ErrIntegrity, tamper: func(m *memBackend) {
			m.blobs[store.Sum(content)] = []byte(`{"case":"a","outcome":"MISMATCH"}`)
		}},
		{name: "tampered manifest", read: "golden-a", typ: typ, want: ErrIntegrity, tamper: func(m *memBackend) {
			for d, b := range m.manifests {
				m.manifests[d] = bytes.Replace(b, []byte(`"schemaVersion":2`), []byte(`"schemaVersion":3`), 1)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			m := newMemBackend()
			if up, err := PutRecord(ctx, m, "golden-a", typ, content); err != nil || !up {
				t.Fatalf("first PutRecord: %v, uploaded %v", err, up)
			}
			if up, err := PutRecord(ctx, m, "golden-a", typ, content); err != nil || up {
				t.Fatalf("second PutRecord: %v, uploaded %v", err, up)
			}
			if tc.tamper != nil {
				tc.tamper(m)
			}
			got, err := GetRecord(ctx, m, tc.read, tc.typ)
			if !errors.Is(err, tc.want) || tc.want == nil && !bytes.Equal(got, content) {
				t.Errorf("GetRecord: %q, %v; want %q, %v", got, err, content, tc.want)
			}
		})
	}
}
