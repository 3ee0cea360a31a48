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
// A structured object (scenario evidence, a manifest, profile tree, verdict, receipt) is a typed
// Go value written by the one canonical JSON encoder, Marshal, whose output is a fixed point of RFC
// 8785: encoding/json writes the value, internal/doc re-reads it and writes its canonical form
// (the project's one escaper and member sorter), and only integers within ±(2^53-1) are
// accepted as numbers. Every object opens with a Header naming its kind and schema version; Decode refuses kinds
// and versions this build does not know. Decode reads an object with encoding/json, except the
// two objects of every Kensa run, read without reflection when they are in their canonical form
// (kensadecode.go).
//
// A bundle's root is a manifest (Manifest): an OASIS run manifest (RunManifest), or the manifest
// of another kind of evaluation (a Kensa run, an Eval Library run). Its digest is the bundle id.
// Every manifest pins the profile tree that defines its evaluation (Manifest.Definition) and
// summarises itself for listings. A bundle is sealed when the ref "bundles/<hex>" points at it;
// that ref is written only after the manifest and everything it reaches are durable.
//
// # Kinds
//
// Every kind of structured object is registered once, next to its type (registerKind in
// kinds.go): its media type, how to decode it, whether it is a bundle manifest, and its code, a
// small number that stores keeping kinds as a byte write to disk (never renumbered or reused;
// codes 1–15 belong to OASIS and the shared kinds, 16–31 to Kensa, 32–47 to the Eval Library).
// Decode, ReferencesOf, Check, GC, archives and listings all read the registry, so a new kind
// of evidence is one registration and one type.
//
// Refs are mutable names kept apart from immutable content; see the Ref*Prefix constants.
//
// This package holds no storage engine: it is pure (no files, no clock) so the evaluator may
// import its types. The embedded default engine is store/badgerstore.
//
// # Refs and names
//
// A ref name is printable ASCII without spaces, backslashes, empty path elements or "..", at
// most 255 bytes (ValidateRefName). Names under "bundles/", "profiles/" and "receipts/" end in
// the 64 hex of the digest they point at; a tag ("tags/<tag>") follows the OCI image tag
// grammar, so it survives export as an org.opencontainers.image.ref.name annotation.
//
// # Sealing and resolving
//
// Seal turns a manifest of any registered manifest kind into a bundle: it checks that the manifest's whole closure is in
// the store, stores the manifest, syncs, and writes the bundle ref last, so the ref means
// "complete and durable". Resolve turns a BUNDLE argument of the CLI (a digest, a unique digest
// prefix of at least four hex characters, or a tag) into a sealed bundle's digest, reporting
// ErrAmbiguous with every candidate rather than guessing. Reachable lists a closure in
// dependency order, the order in which an export writes it.
//
// # Redaction record
//
// A run manifest recorded with redaction carries "redaction" (RedactionRecord): the key id
// that made the markers (absent without a key) and, for each value redacted, sorted by
// marker, its marker, its number of occurrences, those occurrences per encoding ("plain",
// "form", "hex", "base64", "base64url", with "+json" and/or "+percent" when escapes were read
// through), the digests of the blobs and objects that hold the marker (sorted), and whether
// the manifest's own strings held it. It never holds a value. The field is omitted when
// nothing was to be redacted, so manifests recorded without redaction, and their digests, are
// unchanged. The blobs it lists are not references (gc and fsck follow the scenarios and
// sources that name them); validation checks that values are sorted and distinct and that
// the counts add up.
//
// # Consistency and garbage
//
// Check is the store's fsck. It reads back and re-hashes every blob and object (the chunks of a
// large blob are verified as the blob is read), decodes every object, checks every reference
// (present, with the size and kind the referrer states), every chunk list and every ref, and
// reports each inconsistency as a Problem, in a deterministic order. What no ref reaches is
// garbage, not a problem, and FindGarbage alone decides it: Check reports it (CheckReport.Garbage)
// and GC removes exactly it, referrers before what they refer to, so that an interrupted
// collection leaves a consistent store. Chunks no chunk list names are left only by an
// interrupted write: they are decoded, so that a damaged one is reported, and they are garbage;
// so are the references of garbage objects to missing content. GatherStats
// counts entries and bytes per kind and the effect of deduplication and compression. All three
// use only the Store interface, plus optional interfaces an engine may implement
// (ChunkDecoder, ChunkDeleter, Compactor).
package store
