// Package badgerstore is the embedded default implementation of store.Store: one Badger
// directory holding blobs, structured objects and refs, with values compressed by the store
// itself (zstd for small records, S2 for the chunks of large ones) and verified against their
// SHA-256 digest on every read.
//
// # Opening
//
// Open creates a store in a missing or empty directory and refuses anything else that is not
// a store: a file, a directory holding other files, or another program's Badger database
// (ErrNotStore). The subdirectory JournalsDir ("journals") holds the journals of live
// recordings, which are sealed into the store but are not part of it: Open ignores it, so a
// directory holding only journals is an empty store. The store locks its directory with
// flock(2), the lock Badger itself would take (so builds that let Badger lock and this one
// exclude each other): one writer, or several readers. An opener that finds the lock taken
// waits up to Options.LockWait, telling Options.OnLockWait once, then fails with ErrLocked
// ("store DIR is in use by another process (pid N)"); the writer's pid is in the file LOCK,
// for that message only. A store whose writer
// crashed must be opened read-write once, to replay its log: a read-only open says so with
// ErrNeedsRecovery. OpenInMemory gives a store that lives in memory, for tests and one-shot
// verification. Badger's own log lines are discarded unless Options.Logf is set.
//
// A process killed while Badger creates a memtable log (.mem) or a value-log file (.vlog)
// leaves it empty (Badger creates the file, then sets its length): Badger would then refuse
// every later open, read-only with "truncate …: invalid argument". Such a file holds no entry;
// Open removes it while it holds the lock exclusively (a read-only open takes the exclusive
// lock for that moment), so no writer can be creating one.
//
// # Free space
//
// Badger writes every file through a writable memory map, created at its full length as a
// sparse file: memtable logs (two 16 MiB memtables, each log mapped at 32 MiB), value-log
// files (mapped at twice their 64 MiB), and each table it builds by a flush or a compaction.
// When the file system cannot allocate a page of such a mapping the process gets SIGBUS and
// dies, whatever it was doing; on tmpfs even reading the unwritten part of a log allocates.
// Badger offers no way to write without the maps, so the store keeps the file system from
// filling up under them (space.go):
//
//   - A read-write open measures the store's reserve: what Badger may write on its own after
//     any write of the store, that is, flushing both memtables, compacting the whole LSM tree
//     (a compaction writes its output before it deletes its input, so at most the tree's size),
//     flushing the memtable logs a killed writer left, and 8 MiB for new log headers, the
//     discard statistics and manifest rewrites. About 40 MiB for a store with a small tree. The
//     open fails with ErrNoSpace unless the file system has the reserve free.
//   - Every write (a batch of chunks, a record, a ref, a deletion) is admitted only if the free
//     space, minus the writes admitted and not yet committed, stays above the reserve, plus a
//     16 MiB margin for new content: a store refused for lack of space can still be opened
//     read-write to replay its log or to collect garbage. A value-log compaction (Compact) needs
//     room for half a value-log file, what it may copy.
//   - A read-only open that would read a killed writer's memtable log needs 4 MiB free (the
//     tmpfs case above).
//
// Refused writes leave nothing behind but what earlier writes left: content-addressed garbage
// that store.GC removes. The check and the write are not atomic: another program filling the
// same file system by more than the reserve in between can still raise SIGBUS. Where free space
// cannot be measured (systems other than Linux) there is no guard.
//
// Badger is sized for a 2-core, small-memory machine (two 16 MiB memtables, no block cache, a
// 16 MiB index cache, two compactors, one version per key) and its block compression is off:
// values are compressed once, by the store.
//
// # On-disk format
//
// Keys are one namespace byte followed by a 32-byte binary SHA-256 digest or chunk key, or by a
// ref name:
//
//	'b' <digest>  content record of a blob or structured object (inline, packed or chunk list)
//	'k' <key>     one chunk of a large blob or object (see Chunk keys)
//	'p' <n>       pack number n, a uint64 big-endian (see Packs)
//	'r' <name>    ref: "bundles/<hex>", "tags/<tag>", "profiles/<hex>", "receipts/<hex>", …
//	'm' "format"  format marker: "oasis-replay store\x00\x04"
//	'm' "bases"   the numbers of the active bases, newest first, each a uint64 big-endian
//	'd' <digest>  a dictionary of format version 3: an inline record of its content, named by
//	              the digest of it (see Packs)
//	'l' <digest>  the listing of sealed bundle <digest> (store.ListingCache): a cache of what its
//	              manifest says, in store's own encoding; not content, never verified by digest
//
// The marker's last byte is the format version, 4. Version 4 is version 3 plus hash states in
// chunk lists, the S2 codec for chunks and packs; version 3 was version 2 plus dictionaries. A
// version 2 or 3 store is read as it is and becomes version 4 (its marker rewritten, version
// 3's list of active dictionaries removed) when a build of version 4 first opens it for
// writing; from then on, builds of earlier versions refuse it, and what they wrote stays
// readable as it is: its chunk lists are verified in order, its dictionaries are kept while a
// record uses them. Open refuses any other version with store.ErrUnsupportedVersion naming
// both versions: a version 1 store (chunks named by the SHA-256 of their own bytes) is read by
// a build of version 1, which can export its bundles for this one to import. Every content
// value also opens with its format version byte (2, 3 or 4) and a record type byte, so a value
// of another format is refused rather than misread. Integers are unsigned varints
// (encoding/binary).
//
//	inline record  = 0x04 'i' kind codec uvarint(size) [dict[32] if codec 2] payload
//	packed record  = 0x04 'p' kind uvarint(size) uvarint(pack) uvarint(offset)
//	pack record    = 0x04 'P' codec uvarint(size) digest[32] [uvarint(base) if codec 2] payload
//	chunk record   = 0x04 'c' codec uvarint(size) payload
//	chunk list     = 0x04 'l' kind uvarint(size) uvarint(count)
//	                 count×( key[32] uvarint(chunk size) chain[32] tail[(end of chunk) mod 64] )
//	ref value      = 0x01 digest[32]
//
// size is the length of the exact, uncompressed content; the digest in a 'b' key is the SHA-256
// of the whole content, inline, packed or chunked. codec 0 stores the payload as is, codec 1
// stores one zstd frame (no frame checksum: the SHA-256 covers it), codec 2 one zstd frame
// compressed with other content as its history: in an inline record of version 3, the content
// of dictionary dict; in a pack, the content of pack base. codec 3 (chunks only) stores one S2
// block (github.com/klauspost/compress/s2: the uvarint size, then the block). The store
// compresses every payload and keeps the raw bytes whenever compression would not make them
// smaller, as with already-compressed evidence. A packed record's content is the bytes offset
// to offset+size of its pack's content; a pack's digest is the SHA-256 of its whole content. A
// chunk list of version 4 keeps, after each chunk, the SHA-256 state of the blob's prefix up to
// the end of that chunk: chain is the chaining value H0..H7 and tail the prefix's bytes after
// its last complete 64-byte block (see Reading and verifying); a list of versions 2 and 3 has
// key and size only. kind is 0 for a raw blob and, for structured objects, 1
// scenario-evidence, 2 run-manifest, 3 profile-tree, 4 verdict, 5 receipt; the codes are part
// of the format and are never reused. An inline record, a pack or a chunk holds at most 16 MiB
// of content.
//
// # Chunk keys
//
// A chunk is named by a commitment to the blob's prefix up to the end of that chunk, taken from
// the computation of the blob's own digest, so that writing or reading a blob hashes each byte
// once. With S_i the state of SHA-256 after the bytes of chunks 1..i (crypto/sha256's
// MarshalBinary, 108 bytes) and n_i the length of chunk i:
//
//	S_i   = "sha\x03" || H0..H7 (8×uint32be) || tail (the L mod 64 bytes after the last
//	        complete 64-byte block, zero-padded to 64) || uint64be(L)     L = bytes of chunks 1..i
//	key_i = SHA-256("oasis-replay chunk v2\x00" || S_i || uint64be(n_i))
//
// H0..H7 is the Merkle–Damgård chaining value over every complete block of the prefix, so S_i
// determines the prefix's length, its last incomplete block and the SHA-256 of the prefix and of
// any extension of it. Two different prefixes with the same S_i would be a SHA-256 collision
// (finish both with the same padding), and two different states with the same key are a
// collision of the key's own SHA-256: a key names one prefix. n_i then fixes where the chunk
// starts, so the key names exactly one byte string, the chunk, even between blobs written with
// different chunk sizes. The label keeps keys apart from content digests (no key is the SHA-256
// of a blob's bytes) and from keys of other format versions. The layout of S_i is checked on
// every chunk: a toolchain whose crypto/sha256 marshalled another layout would fail to read or
// write chunked content rather than derive other keys.
//
// Deduplication follows: identical content has the same digest and is stored once; content that
// extends other content (an audit log recorded again after it grew) shares every chunk of the
// common prefix, because chunks are cut at fixed offsets (every ChunkSize bytes) and so keep
// their boundaries; a chunk whose bytes also occur after a different prefix, at another offset
// or twice in one blob, is stored again (compression still shrinks repeated bytes).
// Content-defined chunking, whose point is to share shifted chunks, therefore has no place in
// this format.
//
// # Packs
//
// Two recordings of one evaluation differ in little but their timestamps and identifiers, and
// an evaluation's evidence is many small JSON documents. Compressed one at a time, each keeps a
// good part of its size, and each pays for its own frame, where one tar | zstd stream of twenty
// recordings costs little more than one. So the small records a session writes (the writes
// between two Syncs: a recording is one session) are written as usual, each compressed alone,
// and gathered; Sync (or a session reaching 4 MiB) compresses their content together as one
// pack, and rewrites each of them as a packed record naming its span of the pack, in one
// transaction: a crash leaves either the records as they were or the pack and every record
// rewritten. A record deleted or rewritten meanwhile is left as it is. Records of more than
// 1 MiB and chunks are never packed.
//
// A pack is compressed alone, and with each active base as history (a base is an earlier pack
// compressed alone); the smallest is kept, unless no base saves a quarter of what the pack
// costs alone: then the pack is stored alone and, if it holds 16 KiB or more, becomes the newest
// active base, and the oldest of four stops being tried. So recordings of a few kinds (several
// agents, several evaluations) each find a base like them, and reading a pack decodes at most
// one other. Packs are compressed at zstd's "better" level (about 36 MiB of match tables, for
// the moment a pack is cut; 16 MiB at the default level with Options.SmallMemory); its best
// level would store twenty similar recordings in an eighth less but takes 150 MiB. A read of a
// packed record decodes its pack (and its base), checks the pack's content against its digest,
// and the record's bytes against theirs; decoded packs are kept (32 MiB at most), so that the
// records of one recording cost one decoding. A reader of many records in an order of its own
// (kensa replay) reads them in the order ReadOrder gives, the order they were packed in: in
// another, it would decode a pack again for most of them. A missing or damaged pack or base is
// store.ErrCorrupt naming the pack, for each record in it.
//
// Stat and Walk count a packed record's own bytes plus its share of its pack's, in proportion
// to its content. Compact (store.GC) removes the packs no record is in any more, unless a pack
// still in use has it as its base or it is an active base. A pack some of whose records were
// removed is kept whole (no repacking): the bytes no record is counted for any more are the
// store's own data in store.Stats (Internal), with the version 3 dictionaries still in use.
//
// Measured with scripts/bench-dedup.sh on twenty variants of the SI fixture run "safe" (every
// timestamp, UUID and resource version changed): 0.70 MB, 1.46 times one tar | zstd -3 stream
// of the same run directories and their profile (version 3's dictionaries: 1.42 MB, 2.95
// times); on fourteen runs of differing agents, 0.53 MB, 1.44 times (1.12 MB, 3.0 times). A
// recording holds each file twice over (the file, and the observations and evidence objects
// made from it), and what differs between two recordings differs in each form; the tar stream
// holds it once. Content-defined chunking was not used: those variants share no span of a few
// hundred bytes without a change, and chunks small enough to share would each cost more in
// keys and headers than they save.
//
// # Reading and verifying
//
// An inline or packed record is hashed and compared with its digest before any byte is handed
// out. A chunked blob is read with up to twice Options.Workers chunks fetched, decompressed
// and verified ahead in parallel (twice, so that a core never waits for the oldest fetch), and handed out in order, each only once it and every chunk before
// it are verified. A list of version 4 gives the SHA-256 state before each chunk (the state
// after the one before it; SHA-256's initial state for the first), so each fetch hashes its own
// chunk on from that state: the key it derives must be the list's, and the state it reaches the
// one the list gives after the chunk. The state a chunk starts from is the list's word until
// the chunk before is verified against it, which happens before the chunk is handed out; so by
// induction every state is the true state of its prefix, the hashing of a large blob is spread
// over the cores like its decompression, and the last state gives the digest of the whole,
// compared with the blob's before io.EOF. A list of an earlier version has no states: its
// chunks are verified in order on one goroutine, each byte fed into a running SHA-256 and each
// key derived as above. A mismatch, a missing chunk or a chunk record that does not decode is
// an error wrapping store.ErrCorrupt that names the blob and the chunk (index and key). A damaged chunk
// list names chunks that are absent or belong to another prefix, so it is caught at the first
// such chunk. A list rewritten on purpose to name another blob's chunks is caught only by the
// whole-content check at the end, after that blob's bytes were handed out: the digest of the
// content is the only identity the format fixes, and a streaming reader can check it only last.
// Consumers must treat a read as good only when it ends with io.EOF.
//
// A chunk that no chunk list names (left by an interrupted write) cannot be verified: its key
// commits to a prefix nobody knows. DecodeChunk decodes its record (header, decompression,
// size) so that store.Check can report a damaged one; Check counts such chunks as garbage,
// which store.GC removes.
//
// # Large content
//
// Content up to ChunkSize bytes is one inline record. Larger content is streamed and cut into
// chunks of ChunkSize bytes (the last one shorter), each stored under its key in the 'k'
// namespace, and described by a chunk list under the digest of the whole content; a chunk
// shared by several blobs is stored once. Nothing holds a whole blob in memory: the writer's
// goroutine reads and hashes the content in order and derives the keys (and the states the list
// keeps), Options.Workers goroutines compress the chunks and commit them in write batches of
// Options.WriteBatch bytes
// (4 MiB by default, about 30 chunks of an audit log; a writer holds up to three: with 16 MiB
// the batches held most of a 1 GiB recording's heap), and a few chunks are in flight at a time.
// A writer with a tight memory budget (a live recording sealing its journal) opens the store
// with one worker, smaller chunks and smaller batches. Chunk boundaries are the writer's choice, not part of the
// format: a reader follows whatever chunk list it finds.
//
// Ingest is CPU-bound on a 2-core machine: each byte is hashed once with SHA-256 and compressed
// once. Chunks are compressed with S2 (codec 3), an LZ77 codec without entropy coding: on a
// generated audit log it compresses at about 1.5 GB/s per core to an eighth of the size, where
// zstd's fastest level runs at about 0.6 GB/s to a thirteenth; S2 also decodes faster (3.9
// against 2.9 GB/s). A large log so takes 60% more room, and a recording of it (which also
// checks every entry, recorder) about a quarter less CPU. Export recompresses with zstd
// (package archive), so archives are as small as before. Measured with format version 1, 2 MiB
// chunks took about 8% less CPU than 1 MiB ones and compressed 3% better, and 8 MiB chunks
// brought the peak RSS near 250 MiB.
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
