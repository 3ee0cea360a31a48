package archive

import "github.com/oasis-replay/oasis-replay/store"

// Summary says what an Export wrote, or what an Import or Verify read.
type Summary struct {
	// Bundle is the bundle manifest's digest: the bundle id.
	Bundle store.Digest
	// Profile is the digest of the bundle's profile tree.
	Profile store.Digest
	// Receipts are the receipts the archive carries, sorted by digest.
	Receipts []store.Digest
	// Tags are the tags index.json names for the bundle, sorted.
	Tags []string
	// Objects and Blobs count the structured objects and raw blobs of the archive.
	Objects, Blobs int
	// ContentBytes is the size of all objects and blobs, uncompressed.
	ContentBytes int64
	// ArchiveBytes is the size of the archive file: written by Export, read by Import and
	// Verify.
	ArchiveBytes int64
}

// Entry describes one blob of an archive, as Verify found it.
type Entry struct {
	Digest store.Digest
	// MediaType is that of the first descriptor that referred to the blob.
	MediaType string
	// Kind is the structured object kind, or "" for a raw blob.
	Kind store.Kind
	Size int64
}

// Report is what Verify found: the archive's summary and its blobs in archive order.
type Report struct {
	Summary
	Entries []Entry
}

func (s *Summary) count(kind store.Kind, size int64) {
	if kind == "" {
		s.Blobs++
	} else {
		s.Objects++
	}
	s.ContentBytes += size
}
