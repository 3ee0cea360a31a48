// Package badgerstore is the embedded default implementation of store.Store: one Badger
// directory holding blobs, structured objects and refs, with values compressed by the store
// itself (zstd) and verified against their SHA-256 digest on every read.
//
// # Opening
//
// Open creates a store in a missing or empty directory and refuses anything else that is not
// a store: a file, a directory holding other files, or another program's Badger database
// (ErrNotStore). Badger locks the directory, so a second process gets ErrLocked ("store DIR is
// in use by another process"); several read-only openers may share it. A store whose writer
// crashed must be opened read-write once, to replay its log: a read-only open says so with
// ErrNeedsRecovery. OpenInMemory gives a store that lives in memory, for tests and one-shot
// verification. Badger's own log lines are discarded unless Options.Logf is set.
//
// Badger is sized for a 2-core, small-memory machine (two 16 MiB memtables, no block cache, a
// 16 MiB index cache, two compactors, one version per key) and its block compression is off:
// values are compressed once, by the store.
//
// # On-disk format
//
// Keys are one namespace byte followed by a 32-byte binary SHA-256 digest, or by a ref name:
//
//	'b' <digest>  content record of a blob or structured object (inline or chunk list)
//	'k' <digest>  one chunk of a large blob or object
//	'r' <name>    ref: "bundles/<hex>", "tags/<tag>", "profiles/<hex>", "receipts/<hex>", …
//	'm' "format"  format marker: "oasis-replay store\x00\x01"
//
// Every value opens with a format version byte (1) and a record type byte, so the format can
// evolve: a reader refuses versions it does not know (store.ErrUnsupportedVersion) rather than
// misreading them. Integers are unsigned varints (encoding/binary).
//
//	inline record  = 0x01 'i' kind codec uvarint(size) payload
//	chunk record   = 0x01 'c' codec uvarint(size) payload
//	chunk list     = 0x01 'l' kind uvarint(size) uvarint(count) count×( digest[32] uvarint(chunk size) )
//	ref value      = 0x01 digest[32]
//
// size is the length of the exact, uncompressed content; the digest in the key is the SHA-256
// of that content (of the whole content for a chunk list, of the chunk for a chunk record).
// codec 0 stores the payload as is, codec 1 stores one zstd frame (no frame checksum: the
// SHA-256 covers it). The store compresses every payload and keeps the raw bytes whenever
// compression would not make them smaller, as with already-compressed evidence. kind is 0
// for a raw blob and, for structured objects, 1 scenario-evidence, 2 run-manifest,
// 3 profile-tree, 4 verdict, 5 receipt; the codes are part of the format and are never reused.
// An inline record or chunk holds at most 16 MiB of content.
//
// # Large content
//
// Content up to ChunkSize bytes is one inline record. Larger content is streamed and cut into
// chunks, each stored under its own digest in the 'k' namespace, and described by a chunk list
// under the digest of the whole content; a chunk shared by several blobs is stored once. Nothing
// holds a whole blob in memory: the writer keeps a few chunks in flight, hashes and compresses
// them on Options.Workers goroutines and commits them in write batches of at most 16 MiB; the
// reader decompresses and verifies up to Workers chunks ahead. Each chunk is checked against its
// digest before any of its bytes are handed out, and the whole-content digest is checked before
// io.EOF, so a reader never returns wrong bytes without an error wrapping store.ErrCorrupt that
// names the digest.
//
// Chunks are cut at fixed offsets by default (ChunkingFixed, 2 MiB). ChunkingCDC cuts where a
// gear hash over the content matches a mask (FastCDC-style normalized chunking, ChunkSize/2 to
// 2×ChunkSize, gear table derived from SHA-256 of a fixed label), so content shifted by an
// insertion still deduplicates. Ingest is CPU-bound on a 2-core machine: every byte is hashed
// twice with SHA-256 (once for its chunk, once for the whole blob) and compressed once. On a
// 1 GiB generated audit log, fixed chunking took 3.2 to 3.9 CPU-seconds and CDC 15 to 20% more
// (the gear scan runs at about 1.9 GB/s and the tail of each cut is copied), with a peak RSS of
// 165 to 180 MiB against 190 to 195 MiB. 2 MiB chunks took about 8% less CPU than 1 MiB ones
// (fewer zstd frames) and compressed 3% better; 8 MiB chunks brought the peak RSS near 250 MiB.
// Evidence is mostly whole files recorded again (deduplicated whole) or logs that grow at the
// end (fixed chunks keep their boundaries), so fixed chunking is the default and CDC an
// option. Chunk boundaries are not part of the format: a reader follows whatever chunk list it
// finds.
//
// # Write order and crash safety
//
// All writes go through Badger's single ordered write-ahead log, so after a crash the store
// holds a prefix of the writes made. The store orders its writes so that every such prefix is
// consistent: the chunks of a large blob are committed before its chunk list; callers write
// blobs before the objects that refer to them and objects before the manifest (store.Seal
// enforces the rest: manifest, then Sync, then the bundle ref). Sync fsyncs the value log and
// memtable logs; SetRef and DeleteRef sync before they return. A crash can leave unreferenced
// chunks and blobs, which store.GC removes; it cannot leave a chunk list without its chunks or
// a sealed bundle without its content.
//
// # Values and the value log
//
// Values of at least Options.ValueThreshold bytes (64 KiB by default) go to Badger's value log,
// smaller ones into the LSM tree. Compressed chunks of audit logs are about 160 KiB, so they are
// written once, to the value log, instead of being rewritten by compactions; manifests,
// evidence objects and small blobs stay in the tree. Keeping chunks in the tree (a 1 MiB
// threshold, measured with 1 MiB chunks) raised the peak RSS of a 1 GiB ingest from 160 MiB to
// 380 MiB, through memtables and compactions, for no gain in speed; a 1 KiB threshold sent small objects to the value log,
// where only value-log GC reclaims them, for no gain either. Deleting content frees tree space
// through compaction; Compact (called by store.GC) rewrites value-log files that are mostly
// garbage.
package badgerstore
