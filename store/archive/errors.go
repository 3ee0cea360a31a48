package archive

import "github.com/oasis-replay/oasis-replay/internal/errclass"

// Sentinel errors of the archive package. Callers test them with errors.Is. Every error an
// archive causes wraps one of them, together with the entry name, digest or field concerned, e.g.
//
//	archive: digest mismatch: blobs/sha256/ab12… has content sha256:cd34…
//
// Failures that are not the archive's (the store, the writer, a cancelled context) are returned
// wrapped with what was being done, and keep their own sentinels.
var (
	// ErrCompression: the input is not a zstd stream, or a zstd frame is corrupt (bad block,
	// failed content checksum).
	ErrCompression = errclass.New(errclass.Integrity, "archive: bad zstd stream")
	// ErrMalformed: the tar stream inside the zstd stream is not valid tar.
	ErrMalformed = errclass.New(errclass.Integrity, "archive: malformed tar stream")
	// ErrTruncated: the stream ends inside a frame, a header, an entry or before the tar
	// end-of-archive marker.
	ErrTruncated = errclass.New(errclass.Integrity, "archive: truncated")
	// ErrTrailingData: non-zero bytes follow the tar end-of-archive marker.
	ErrTrailingData = errclass.New(errclass.Integrity, "archive: data after the end of the archive")
	// ErrLimit: the archive exceeds one of the Limits (sizes, entry count, JSON nesting, zstd
	// window or memory).
	ErrLimit = errclass.New(errclass.Integrity, "archive: limit exceeded")
	// ErrUnsafePath: an entry name is absolute, climbs with "..", or holds a backslash or NUL.
	ErrUnsafePath = errclass.New(errclass.Integrity, "archive: unsafe path")
	// ErrBadName: an entry name is not valid UTF-8, is overlong, or is not one of the names the
	// format allows (a blob name must be 64 lowercase hex characters).
	ErrBadName = errclass.New(errclass.Integrity, "archive: bad entry name")
	// ErrEntryType: an entry is a symlink, hard link, device, FIFO, sparse file or anything else
	// but a regular file or a directory.
	ErrEntryType = errclass.New(errclass.Integrity, "archive: forbidden entry type")
	// ErrUnsupportedDigest: a blob or descriptor uses a digest algorithm other than sha256.
	ErrUnsupportedDigest = errclass.New(errclass.Integrity, "archive: unsupported digest algorithm")
	// ErrDuplicate: an entry name occurs twice.
	ErrDuplicate = errclass.New(errclass.Integrity, "archive: duplicate entry")
	// ErrMissingEntry: oci-layout or index.json is absent, or comes after the blobs.
	ErrMissingEntry = errclass.New(errclass.Integrity, "archive: missing entry")
	// ErrLayout: oci-layout is not an OCI image layout of version 1.0.0.
	ErrLayout = errclass.New(errclass.Integrity, "archive: unsupported oci-layout")
	// ErrIndex: index.json is not a bundle index this build can read.
	ErrIndex = errclass.New(errclass.Integrity, "archive: invalid index.json")
	// ErrUnreferenced: a blob arrives that neither index.json nor an earlier structured object
	// refers to.
	ErrUnreferenced = errclass.New(errclass.Integrity, "archive: unreferenced blob")
	// ErrMissingBlob: a blob or object referenced by the bundle is not in the archive (or, on
	// export, not in the store).
	ErrMissingBlob = errclass.New(errclass.Integrity, "archive: missing blob")
	// ErrDigestMismatch: an entry's content does not hash to the digest in its name.
	ErrDigestMismatch = errclass.New(errclass.Integrity, "archive: digest mismatch")
	// ErrSizeMismatch: an entry's size differs from a descriptor that refers to it, or two
	// descriptors of the same digest disagree on its size.
	ErrSizeMismatch = errclass.New(errclass.Integrity, "archive: size mismatch")
	// ErrConflict: one digest is referred to both as a structured object and as a raw blob, or
	// as two different kinds of object.
	ErrConflict = errclass.New(errclass.Integrity, "archive: conflicting descriptors")
	// ErrInvalidObject: a structured object is not canonical, fails its schema, is of another
	// kind than its descriptor says, or breaks a bundle rule (a second bundle manifest, a receipt
	// for another bundle).
	ErrInvalidObject = errclass.New(errclass.Integrity, "archive: invalid object")
	// ErrNotSealed: Export was asked for a manifest that is not a sealed bundle.
	ErrNotSealed = errclass.New(errclass.Input, "archive: bundle not sealed")
	// ErrBadTag: a tag is not a valid OCI reference name.
	ErrBadTag = errclass.New(errclass.Input, "archive: invalid tag")
	// ErrTagConflict: Import was asked to apply a tag that already names another bundle.
	ErrTagConflict = errclass.New(errclass.Input, "archive: tag conflict")
)
