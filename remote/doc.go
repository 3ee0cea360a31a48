// Package remote moves sealed bundles between a store and a remote: an OCI registry or an S3
// bucket. It holds what both kinds of remote share (the URL grammar, the remotes file, the
// wrapper manifest, push and pull); the two backends (remote/registry over oras-go, remote/bucket
// over minio-go) implement Backend, a small interface of content-addressed blobs and manifests,
// mutable names and referrers.
//
// # What a remote holds
//
// A bundle is kept as its archive without the tar framing (archive.Layout): the archive's
// index.json and every blob of blobs/sha256/, each stored once under its digest. The wrapper
// manifest binds them: an OCI 1.1 image manifest whose config is index.json and whose layers
// are the blobs in archive order, with artifactType application/vnd.oasis-replay.bundle.v1 and
// two annotations, a fixed org.opencontainers.image.created and the bundle digest. It is
// written by the canonical JSON encoder, so the same bundle with the same tags gives the same
// wrapper bytes on every machine. The wrapper is named bundle-<hex> (the bundle's 64 hex) and
// by each of the store's tags for the bundle.
//
// Receipts (and so their verdicts) travel as referrers: a manifest of artifactType
// application/vnd.oasis-replay.receipt.v1+json whose layers are the receipt and its verdict
// and whose subject is the wrapper. A signed receipt, a DSSE envelope, travels the same way
// with artifactType application/vnd.dsse.envelope.v1+json and the envelope as its one layer.
//
// # Order and interruption
//
// Push uploads what the remote lacks (a HEAD first), blobs before the manifests that name them,
// the wrapper before its names, bundle-<hex> last: a remote never names a bundle whose content
// it does not hold, and a push stopped at any point is finished by running it again, which
// uploads only what is missing. Pull verifies the digest and size of everything it downloads
// before any of it enters the store, then reads each bundle through the archive reader
// (archive.ReadLayout), and seals every bundle and receipt pulled at the end, after one sync
// (archive.SealLayouts); a pull stopped at any point leaves the store without the bundles
// (what was written is garbage until they are sealed) and is finished by running it again,
// which downloads only what the store lacks.
package remote
