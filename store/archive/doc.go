// Package archive writes a sealed bundle to one portable file and reads it back: Export, Import
// and Verify.
//
// An archive is how evidence travels: an evaluation provider publishes it next to a report, an
// auditor carries it into an offline network, and anyone re-derives the verdict from exactly the
// same bytes (OASIS Core §3.5.4: the same evidence through the same evaluator gives the same
// verdict; Motivation §7: third parties can reproduce published reports). So an archive is exact
// (every byte is named by its digest), self-contained (the bundle's profile travels with it),
// deterministic (the same bundle always gives the same file) and safe to open when it comes from
// an adversary.
//
// # Format, version 1
//
// An archive is a zstd stream (RFC 8878) of a POSIX tar stream that holds an OCI image layout
// (opencontainers/image-spec, image-layout.md). The entries come in this order:
//
//	oci-layout                 {"imageLayoutVersion":"1.0.0"}
//	index.json                 an OCI image index naming the bundle (below)
//	blobs/                     directory
//	blobs/sha256/              directory
//	blobs/sha256/<hex>         every structured object of the bundle, breadth first from the
//	...                        descriptors of index.json, each object's references in the order
//	                           store.ReferencesOf gives them, each digest once
//	blobs/sha256/<hex>         then every raw blob, by digest
//	...
//
// Each blobs/sha256/<hex> holds the exact bytes whose SHA-256 is <hex> (image-layout.md "Blobs"):
// the bundle manifest, the scenario evidence, the profile tree and every profile file, observation
// payloads, the conformance answer, the claimed report, and any receipts carried along with their
// verdicts. index.json is canonical JSON (store.Marshal):
//
//	{"annotations":{"com.github.oasis-replay.archive.version":"1"},
//	 "manifests":[
//	   {"annotations":{"org.opencontainers.image.ref.name":"v1"},
//	    "digest":"sha256:…","mediaType":"application/vnd.oasis-replay.run-manifest.v1+json","size":1233},
//	   {"digest":"sha256:…","mediaType":"application/vnd.oasis-replay.profile-tree.v1+json","size":684},
//	   {"digest":"sha256:…","mediaType":"application/vnd.oasis-replay.receipt.v1+json","size":430}],
//	 "mediaType":"application/vnd.oci.image.index.v1+json","schemaVersion":2}
//
// It lists the bundle manifest (once per tag, a tag being an org.opencontainers.image.ref.name
// annotation, or once without annotation) with the media type of its kind (an OASIS run
// manifest as above, or another registered manifest kind such as a Kensa or Eval Library run),
// the profile tree the manifest pins (store.Manifest.Definition), and the receipts, sorted by
// digest. The annotation com.github.oasis-replay.archive.version is this format's version.
//
// Every tar header is the same but for name, type and size: mode 0644 (files) or 0755
// (directories), uid and gid 0, no user or group names, modification time 0 (1970-01-01T00:00:00Z),
// USTAR format; an entry of 8 GiB or more gets a PAX extended header for its size, the only PAX
// record ever written. The zstd stream is one frame with a content checksum, written at a fixed
// level (the library's fastest, comparable to zstd -1) and a 2 MiB window, in sections of 8 MiB
// compressed on two goroutines (each with the end of the one before as history), whatever the
// machine: the same bundle, tags and receipts give a byte-identical file. (The tar stream is
// fixed by this format; the compressed bytes are fixed for a given version of the zstd library.)
//
// The result is an ordinary tar.zst: `zstd -d -c f | tar -xf -` extracts a valid OCI image
// layout. Repacking an extracted layout needs the same entry order (tar the files in the order
// `tar -tf` lists them), because readers rely on it, as follows.
//
// # Reading
//
// Import and Verify read an archive in one streaming pass with bounded memory. The entry order
// makes that possible: the layout files come first, and every blob is referred to, by index.json
// or by a structured object, before it arrives. A reader therefore knows, when an entry starts,
// whether it is a structured object (read into memory, at most Limits.MaxObjectSize, then decoded
// for its references) or a raw blob (streamed, hashed on the way, never held), and what size it
// must have. Anything else is refused with a specific error (one of the Err variables):
//
//   - framing: not zstd, corrupt or truncated frames, frame checksum failures, a tar stream that
//     is malformed, truncated, lacks its end-of-archive marker or is followed by non-zero data;
//   - names: absolute, "..", backslash, NUL, non-UTF-8, overlong, or outside the closed set
//     oci-layout, index.json, blobs/, blobs/sha256/, blobs/sha256/<64 lowercase hex>
//     (blobs/<other algorithm>/… is ErrUnsupportedDigest);
//   - types: anything but regular files and those two directories (symbolic and hard links,
//     devices, FIFOs, sparse files, global PAX headers);
//   - layout: oci-layout or index.json missing, repeated, or after the blobs; an imageLayoutVersion
//     other than 1.0.0; an index that is not exactly one bundle in this format;
//   - JSON: every JSON document (oci-layout, index.json, each object) is read with the project's
//     document model (internal/doc), so a member named twice in any of them is refused (a reader
//     keeping the first and one keeping the last would see two bundles), with its line and
//     column;
//   - content: a duplicate entry, a blob nothing refers to before it, a size that differs from a
//     descriptor, descriptors of one digest that disagree, content that does not hash to its
//     name, an object that is not canonical JSON of a known kind and schema or is not the kind its
//     descriptor says, a second bundle manifest, a receipt for another bundle;
//   - completeness: after the last entry, every digest the bundle refers to must have arrived, and
//     index.json must name the bundle manifest's own profile tree;
//   - limits: see Limits; sizes announced by descriptors and tar headers are checked before
//     anything is read or allocated.
//
// Nothing is ever written to the file system. Import writes content into the store as it
// streams, and seals only at the end (Sync, then bundles/<hex>, then receipts/<hex>, then tags if
// asked): a failed import leaves unreferenced content that garbage collection removes, never a
// sealed bundle.
package archive
