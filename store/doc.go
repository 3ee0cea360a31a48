// Package store is the evidence model of oasis-replay and the contract of its content-addressed
// store.
//
// # Concepts
//
// A Digest is "sha256:<64 hex>" over the exact, uncompressed bytes of some content. Compression
// is a storage detail and never changes identity.
//
// A blob is raw evidence kept byte-exact: an audit-log segment, a snapshot, a profile file. It is
// never parsed and re-encoded before hashing.
//
// A structured object (scenario evidence, run manifest, profile tree, verdict, receipt) is a typed
// Go value written by the one canonical JSON encoder, Marshal, whose output is a fixed point of RFC
// 8785. Every object opens with a Header naming its kind and schema version; Decode refuses kinds
// and versions this build does not know.
//
// A run manifest's digest is the bundle id. A bundle is sealed when the ref "bundles/<hex>" points
// at it; that ref is written only after the manifest and everything it reaches are durable.
//
// Refs are mutable names kept apart from immutable content; see the Ref*Prefix constants.
//
// This package holds no storage engine: it is pure (no files, no clock) so the evaluator may
// import its types. The embedded default engine is store/badgerstore.
package store
