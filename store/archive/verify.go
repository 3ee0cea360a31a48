package archive

import (
	"context"
	"io"

	"github.com/oasis-replay/oasis-replay/store"
)

// Verify checks an archive without any store, in one streaming pass: the zstd and tar framing,
// every entry name and type, index.json, each blob's size and digest (large blobs are hashed as
// they pass, never held), each structured object's schema and canonical form, and that the
// bundle's reference graph is complete. It accepts exactly the archives Import accepts, short of
// what a store itself may refuse.
func Verify(ctx context.Context, r io.Reader, limits Limits) (Report, error) {
	res, err := readArchive(ctx, r, readOptions{
		limits:      limits,
		sink:        hashSink{buf: make([]byte, copyBufferSize)},
		keepEntries: true,
	})
	if err != nil {
		return Report{}, err
	}
	return Report{Summary: res.summary, Entries: res.entries}, nil
}

// hashSink digests blobs and keeps nothing.
type hashSink struct{ buf []byte }

func (hashSink) object(context.Context, store.Digest, []byte) error { return nil }

func (h hashSink) blob(_ context.Context, r io.Reader) (store.Digest, int64, error) {
	g := store.NewDigester()
	n, err := io.CopyBuffer(g, r, h.buf)
	return g.Digest(), n, err
}
