// Package journal is the append-only, crash-safe log a live recording writes while it runs,
// so that a recorder that is killed loses nothing it had completely received. The recording's
// store is not involved: the journal is a directory of its own, and the store is opened only
// to seal what the journal holds (see package recorder).
//
// The format follows etcd's write-ahead log: every record is framed with its length, a
// checksum and a type, so that a reader tells a complete record from a torn one.
//
// # Layout
//
// A journal is a directory <root>/<id>/ holding one file, "journal". The id starts with the
// UTC time the journal was created (20060102T150405Z), then the process id and four random
// hex digits: journals sort in the order they were started, and two recorders never pick the
// same id. The id is a name on disk only; nothing of it reaches a bundle. The directory is
// created 0700 and the file 0600: a journal holds what was recorded before redaction.
//
// # File format
//
// The file starts with the 24-byte magic "oasis-replay journal v1\n", then records:
//
//	crc     uint32, little endian   CRC-32C (Castagnoli) of length, type and payload
//	length  uint32, little endian   payload length, at most MaxPayload
//	type    uint8                   the writer's record type; 0 is never written
//	payload length bytes
//
// The types and payloads are the writer's (package recorder documents its own). Records are
// written whole, each with one write at the end of the file, in the order Append is called.
// Unlike etcd's, the checksum is per record, not chained to the previous one: a reader may
// read any record again on its own (sealing reads body records again out of order, each
// checked again), and a journal is never appended to after its writer stops, so no stale
// record of an earlier writer can follow a valid one.
//
// # Torn tails
//
// A process killed while it writes, or a machine that loses power, can leave the last record
// incomplete: a short header, a short payload, or bytes that do not match their checksum (a
// file system may extend a file with zeros it never wrote; type 0 and a zero checksum never
// make a valid record). Scan stops at the first record that is not whole and valid and
// reports where: everything before it is the journal, everything from it on is the torn
// tail, which Cut removes. A damaged record in the middle of the file is indistinguishable
// from a torn tail and is handled the same way: what follows it is reported as cut.
//
// # Durability (fsync policy)
//
// Creating a journal syncs the file and both directories, so a journal that exists survives a
// crash. Appends are not synced one by one: the writer calls Sync at its commit points (the
// recorder: when an exchange is complete, before the exchange is acknowledged), and Sync is a
// group commit: concurrent callers share one fdatasync, and a Sync finds nothing to do when
// another already covered its records. A process that is killed loses nothing it wrote (the
// kernel holds it); a power loss loses at most what was appended after the last Sync.
//
// # Free space
//
// Every record is admitted by a freespace.Guard before it is written: one that would leave less
// than freespace.Margin free on the journal's file system (the margin the store keeps for new
// content) is refused like a failed write, naming the margin, and the journal takes no more
// records. The recording then stops where the store itself would, instead of filling the disk
// the store is on; what the journal holds is sealed as after any write error.
//
// # Locking
//
// The process writing a journal holds an exclusive lock on its file (flock) until it has
// sealed it or exits. Open takes the same lock and fails with ErrInUse while a live recorder
// holds it, so a journal is never read for recovery while it is still being written. The
// lock dies with its process: the journal of a killed recorder can be opened at once. On
// platforms without flock there is no lock; running a recovery beside the recorder of the
// same journal is then the user's mistake to avoid.
package journal
