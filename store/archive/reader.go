package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// sink receives each entry's content once its name, size and place in the bundle graph have been
// checked. Import's sink writes into a store; Verify's only hashes.
type sink interface {
	// object takes the bytes of a structured object, already verified against its digest.
	object(ctx context.Context, d store.Digest, canonical []byte) error
	// blob reads a raw blob to EOF and returns the digest and size of what it read.
	blob(ctx context.Context, r io.Reader) (store.Digest, int64, error)
}

// readOptions are the parts of a read that differ between Import and Verify.
type readOptions struct {
	limits   Limits
	sink     sink
	progress *progress
	// keepEntries makes the read list every blob, for Verify's report.
	keepEntries bool
	// uncompressed reads a bare tar stream (ImportLayout), not a zstd frame around one.
	uncompressed bool
}

// readResult is what one pass over an archive established.
type readResult struct {
	summary Summary
	entries []Entry
}

// archiveReader checks an archive in one streaming pass. Its state is small and bounded: the
// index, one record per referenced digest, and at most one structured object in memory.
type archiveReader struct {
	opts       readOptions
	compressed *countingReader // the archive file, for progress and ArchiveBytes
	plain      *limitedReader  // the decompressed tar stream
	tr         *tar.Reader
	graph      *graph
	index      *bundleIndex
	layoutSeen bool
	dirsSeen   map[string]bool
	profile    store.Digest // the manifest's profile tree, once the manifest is read
	entries    int
	lastEntry  string
	// lastEnd is where the last entry's data and padding end in the tar stream.
	lastEnd int64
	result  readResult
}

// readArchive runs one pass over the archive in r.
func readArchive(ctx context.Context, r io.Reader, opts readOptions) (readResult, error) {
	limits, err := opts.limits.resolve()
	if err != nil {
		return readResult{}, err
	}
	opts.limits = limits
	compressed := &countingReader{r: r}
	var tarStream io.Reader = compressed
	if !opts.uncompressed {
		dec, err := zstd.NewReader(compressed,
			zstd.IgnoreChecksum(false), // frame checksums catch flips outside blob contents
			zstd.WithDecoderMaxWindow(limits.MaxDecoderWindow),
			zstd.WithDecoderMaxMemory(limits.MaxDecoderMemory))
		if err != nil {
			return readResult{}, fmt.Errorf("%w: %w", ErrCompression, err)
		}
		defer dec.Close()
		tarStream = dec
	}
	ar := &archiveReader{
		opts:       opts,
		compressed: compressed,
		graph:      newGraph(limits.MaxEntries),
		dirsSeen:   make(map[string]bool),
	}
	ar.plain = &limitedReader{ctx: ctx, r: tarStream, input: compressed, max: limits.MaxTotalBytes, onRead: ar.reportProgress}
	ar.tr = tar.NewReader(ar.plain)
	if err := ar.run(ctx); err != nil {
		return readResult{}, err
	}
	ar.result.summary.ArchiveBytes = compressed.n.Load()
	ar.opts.progress.finish(ar.result.summary.ArchiveBytes)
	return ar.result, nil
}

func (ar *archiveReader) reportProgress() { ar.opts.progress.advance(ar.compressed.n.Load()) }

func (ar *archiveReader) run(ctx context.Context) error {
	for {
		hdr, err := ar.tr.Next()
		if errors.Is(err, tar.ErrInsecurePath) && hdr != nil {
			err = nil // GODEBUG=tarinsecurepath=0: checkSafeName reports it, more precisely
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return readError(err, ar.position())
		}
		if err := ar.entry(ctx, hdr); err != nil {
			return err
		}
	}
	if err := ar.checkEnd(); err != nil {
		return err
	}
	return ar.checkComplete()
}

// position names where the reader is, for errors: after the last entry read.
func (ar *archiveReader) position() string {
	if ar.lastEntry == "" {
		return "at the start of the archive"
	}
	return "after " + ar.lastEntry
}

// entry checks and consumes one tar entry.
func (ar *archiveReader) entry(ctx context.Context, hdr *tar.Header) error {
	ar.entries++
	if ar.entries > ar.opts.limits.MaxEntries {
		return fmt.Errorf("%w: more than %d entries (MaxEntries)", ErrLimit, ar.opts.limits.MaxEntries)
	}
	ar.lastEnd = ar.plain.n + hdr.Size + padding(hdr.Size)
	ar.lastEntry = hdr.Name
	if err := checkSafeName(hdr.Name); err != nil {
		return err
	}
	if err := checkEntryType(hdr); err != nil {
		return err
	}
	kind, d, err := parseEntryName(hdr.Name)
	if err != nil {
		return err
	}
	switch isDir := hdr.Typeflag == tar.TypeDir; {
	case isDir && kind != entryDir:
		return fmt.Errorf("%w: %s is a directory, want a regular file", ErrEntryType, hdr.Name)
	case !isDir && kind == entryDir:
		return fmt.Errorf("%w: %s is a regular file, want a directory", ErrEntryType, hdr.Name)
	}
	ar.opts.progress.startEntry(hdr.Name, ar.compressed.n.Load())
	switch kind {
	case entryLayout:
		return ar.layout(hdr)
	case entryIndex:
		return ar.readIndex(hdr)
	case entryDir:
		return ar.dir(hdr)
	default:
		return ar.blob(ctx, hdr, d)
	}
}

// padding is the number of zero bytes after an entry's data, up to the next 512-byte block.
func padding(size int64) int64 { return -size & 511 }

// checkEntryType admits regular files and directories only. Links, devices and FIFOs are what
// extraction attacks are made of; sparse files would let a few bytes of archive stand for
// terabytes of zeros; global PAX headers would change how later entries read.
func checkEntryType(hdr *tar.Header) error {
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return fmt.Errorf("%w: %q is a sparse file", ErrEntryType, hdr.Name)
		}
	}
	switch hdr.Typeflag {
	case tar.TypeReg, tar.TypeDir:
		return nil
	case tar.TypeSymlink:
		return fmt.Errorf("%w: %q is a symbolic link to %q", ErrEntryType, hdr.Name, hdr.Linkname)
	case tar.TypeLink:
		return fmt.Errorf("%w: %q is a hard link to %q", ErrEntryType, hdr.Name, hdr.Linkname)
	case tar.TypeChar, tar.TypeBlock:
		return fmt.Errorf("%w: %q is a device node", ErrEntryType, hdr.Name)
	case tar.TypeFifo:
		return fmt.Errorf("%w: %q is a FIFO", ErrEntryType, hdr.Name)
	case tar.TypeGNUSparse:
		return fmt.Errorf("%w: %q is a sparse file", ErrEntryType, hdr.Name)
	case tar.TypeXGlobalHeader:
		return fmt.Errorf("%w: %q is a global PAX header", ErrEntryType, hdr.Name)
	default:
		return fmt.Errorf("%w: %q has tar type %q", ErrEntryType, hdr.Name, hdr.Typeflag)
	}
}

func (ar *archiveReader) layout(hdr *tar.Header) error {
	if ar.layoutSeen {
		return fmt.Errorf("%w: %s occurs twice", ErrDuplicate, layoutName)
	}
	ar.layoutSeen = true
	b, err := ar.readSmall(hdr, maxLayoutSize, "the oci-layout bound")
	if err != nil {
		return err
	}
	return decodeLayout(b, ar.opts.limits)
}

func (ar *archiveReader) readIndex(hdr *tar.Header) error {
	if ar.index != nil {
		return fmt.Errorf("%w: %s occurs twice", ErrDuplicate, indexName)
	}
	b, err := ar.readSmall(hdr, ar.opts.limits.MaxIndexSize, "MaxIndexSize")
	if err != nil {
		return err
	}
	ix, err := decodeIndex(b, ar.opts.limits)
	if err != nil {
		return err
	}
	for _, root := range ix.roots() {
		if _, err := ar.expect(root, indexName); err != nil {
			return err
		}
	}
	ar.index = ix
	s := &ar.result.summary
	s.Bundle, s.Profile, s.Tags = ix.manifest.Digest, ix.profile.Digest, ix.tags
	for _, r := range ix.receipts {
		s.Receipts = append(s.Receipts, r.Digest)
	}
	return nil
}

// expect records a reference, refusing up front anything the limits would refuse on arrival.
func (ar *archiveReader) expect(d store.Descriptor, referrer string) (bool, error) {
	added, err := ar.graph.expect(d, referrer)
	if err != nil {
		return false, err
	}
	if kind, _ := store.KindOfMediaType(d.MediaType); d.Size > ar.sizeLimit(kind) {
		return false, fmt.Errorf("%w: %s says %s has %d bytes, above %s", ErrLimit, referrer, d.Digest, d.Size, ar.sizeLimitName(kind))
	}
	return added, nil
}

func (ar *archiveReader) sizeLimit(kind store.Kind) int64 {
	if kind == "" {
		return ar.opts.limits.MaxBlobSize
	}
	return ar.opts.limits.MaxObjectSize
}

func (ar *archiveReader) sizeLimitName(kind store.Kind) string {
	if kind == "" {
		return fmt.Sprintf("MaxBlobSize (%d)", ar.opts.limits.MaxBlobSize)
	}
	return fmt.Sprintf("MaxObjectSize (%d)", ar.opts.limits.MaxObjectSize)
}

// requireLayoutFiles enforces that oci-layout and index.json come first: a streaming reader must
// know what the archive holds before its blobs arrive.
func (ar *archiveReader) requireLayoutFiles(before string) error {
	switch {
	case !ar.layoutSeen:
		return fmt.Errorf("%w: %s must come before %s", ErrMissingEntry, layoutName, before)
	case ar.index == nil:
		return fmt.Errorf("%w: %s must come before %s", ErrMissingEntry, indexName, before)
	}
	return nil
}

func (ar *archiveReader) dir(hdr *tar.Header) error {
	if err := ar.requireLayoutFiles(hdr.Name); err != nil {
		return err
	}
	name := hdr.Name
	if name[len(name)-1] != '/' {
		name += "/"
	}
	if ar.dirsSeen[name] {
		return fmt.Errorf("%w: directory %s occurs twice", ErrDuplicate, name)
	}
	ar.dirsSeen[name] = true
	if hdr.Size != 0 {
		return fmt.Errorf("%w: directory %s has size %d", ErrMalformed, name, hdr.Size)
	}
	return nil
}

// blob checks and consumes one blob entry: it must have been referenced, must fit the limits,
// and its content must hash to its name.
func (ar *archiveReader) blob(ctx context.Context, hdr *tar.Header, d store.Digest) error {
	if err := ar.requireLayoutFiles(hdr.Name); err != nil {
		return err
	}
	n, err := ar.graph.arrive(d, hdr.Size)
	if err != nil {
		return err
	}
	if hdr.Size > ar.sizeLimit(n.kind) {
		return fmt.Errorf("%w: %s has %d bytes, above %s", ErrLimit, hdr.Name, hdr.Size, ar.sizeLimitName(n.kind))
	}
	if n.kind == "" {
		err = ar.rawBlob(ctx, hdr, d)
	} else {
		err = ar.object(ctx, hdr, d, n)
	}
	if err != nil {
		return err
	}
	ar.result.summary.count(n.kind, hdr.Size)
	if ar.opts.keepEntries {
		ar.result.entries = append(ar.result.entries, Entry{Digest: d, MediaType: n.mediaType, Kind: n.kind, Size: hdr.Size})
	}
	return nil
}

func (ar *archiveReader) rawBlob(ctx context.Context, hdr *tar.Header, d store.Digest) error {
	er := &entryReader{r: ar.tr}
	got, size, err := ar.opts.sink.blob(ctx, er)
	if er.err != nil {
		// The archive failed, not the sink: report the archive's error.
		return readError(er.err, "in "+hdr.Name)
	}
	if err != nil {
		return fmt.Errorf("archive: store %s: %w", hdr.Name, err)
	}
	if got != d {
		return fmt.Errorf("%w: %s has content %s", ErrDigestMismatch, hdr.Name, got)
	}
	if size != hdr.Size {
		return fmt.Errorf("%w: %s: read %d bytes, header says %d", ErrSizeMismatch, hdr.Name, size, hdr.Size)
	}
	return nil
}

func (ar *archiveReader) object(ctx context.Context, hdr *tar.Header, d store.Digest, n *node) error {
	b, err := ar.readSmall(hdr, ar.opts.limits.MaxObjectSize, "MaxObjectSize")
	if err != nil {
		return err
	}
	if got := store.Sum(b); got != d {
		return fmt.Errorf("%w: %s has content %s", ErrDigestMismatch, hdr.Name, got)
	}
	o, err := checkObject(hdr.Name, b, n.kind, ar.opts.limits)
	if err != nil {
		return err
	}
	root, _ := store.KindOfMediaType(ar.index.manifest.MediaType)
	if err := o.checkBundle(hdr.Name, d, ar.index.manifest.Digest, store.HoldsBundles(root)); err != nil {
		return err
	}
	if o.manifest != nil && d == ar.index.manifest.Digest {
		ar.profile = o.manifest.Definition()
	}
	for _, ref := range o.refs {
		if _, err := ar.expect(ref, d.String()); err != nil {
			return err
		}
	}
	if err := ar.opts.sink.object(ctx, d, b); err != nil {
		return fmt.Errorf("archive: store %s: %w", hdr.Name, err)
	}
	return nil
}

// readSmall reads an entry that is decoded in memory, refusing it before reading if its header
// announces more than max bytes. The buffer grows with what actually arrives, so a lying header
// cannot make the reader allocate max bytes for nothing.
func (ar *archiveReader) readSmall(hdr *tar.Header, max int64, limitName string) ([]byte, error) {
	if hdr.Size > max {
		return nil, fmt.Errorf("%w: %s has %d bytes, above %s (%d)", ErrLimit, hdr.Name, hdr.Size, limitName, max)
	}
	var buf bytes.Buffer
	buf.Grow(int(min(hdr.Size, 64<<10)))
	if _, err := buf.ReadFrom(ar.tr); err != nil {
		return nil, readError(err, "in "+hdr.Name)
	}
	return buf.Bytes(), nil
}

// checkEnd checks how the tar stream ends: with the end-of-archive marker (two zero blocks) right
// after the last entry, then nothing but zero padding, then the end of the zstd stream, whose
// frame checksums the decoder verifies on the way.
func (ar *archiveReader) checkEnd() error {
	if ar.plain.n < ar.lastEnd+2*512 {
		return fmt.Errorf("%w: the tar stream ends without its end-of-archive marker, %s", ErrTruncated, ar.position())
	}
	var buf [4096]byte
	for {
		n, err := ar.plain.Read(buf[:])
		for _, c := range buf[:n] {
			if c != 0 {
				return fmt.Errorf("%w: non-zero byte at offset %d of the tar stream", ErrTrailingData, ar.plain.n-int64(n))
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readError(err, "at the end of the archive")
		}
	}
}

// checkComplete checks what only the whole archive can show: both layout files were there,
// everything the bundle refers to arrived, and index.json names the manifest's own profile tree.
func (ar *archiveReader) checkComplete() error {
	if err := ar.requireLayoutFiles("the end of the archive"); err != nil {
		return err
	}
	if err := ar.graph.missing(); err != nil {
		return err
	}
	if ar.profile != ar.index.profile.Digest {
		return fmt.Errorf("%w: profile tree %s differs from the profile tree %s the bundle manifest pins", ErrIndex, ar.index.profile.Digest, ar.profile)
	}
	return nil
}
