package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// ExportOptions tune Export.
type ExportOptions struct {
	// Tags are written into index.json as org.opencontainers.image.ref.name annotations of the
	// bundle manifest, one descriptor per tag. Import applies them only when asked.
	Tags []string
	// Receipts are receipts of this bundle to carry along, each with its verdict.
	Receipts []store.Digest
	// Progress, if set, is called at every entry and every MiB of content written.
	Progress func(Progress)
}

// Fixed tar header values: the archive must not depend on who wrote it, when, or where.
var (
	// epoch is every entry's modification time.
	epoch = time.Unix(0, 0).UTC()
	// layoutJSON is the content of oci-layout.
	layoutJSON = []byte(`{"imageLayoutVersion":"` + layoutVersion + `"}`)
)

const (
	fileMode = 0o644
	dirMode  = 0o755
	// copyBufferSize is the chunk in which blobs are streamed from the store into the archive.
	copyBufferSize = 256 << 10
)

// encoderOptions are the zstd settings of every archive. They are fixed so that the same bundle
// gives the same bytes: the level and window do not follow library defaults, and concurrency does
// not follow the machine's core count. Frame checksums let a reader detect any flipped bit even
// outside blob contents. Concurrent blocks compress the stream in sections of 8 MiB (four
// windows) on two goroutines, each section with the end of the one before as its history, still
// as one frame: the sections are cut at fixed offsets, so the bytes do not depend on timing or
// on the machine, and a large export uses two cores for what is most of its work. A 2 MiB window
// (zstd -3's) keeps the sections in flight small: with an 8 MiB window they took 150 MiB more
// for an archive a thousandth smaller.
func encoderOptions() []zstd.EOption {
	return []zstd.EOption{
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithWindowSize(2 << 20),
		zstd.WithEncoderCRC(true),
		zstd.WithEncoderConcurrency(2),
		zstd.WithConcurrentBlocks(true),
	}
}

// Export writes the sealed bundle (its manifest, every object and blob it reaches, its
// profile tree and the receipts asked for) to w as one archive (see the package documentation
// for the format). Nothing is written to w until the whole bundle has been found in the store.
// If writing fails midway, w holds a partial archive which the caller should discard; Import and
// Verify reject it.
func Export(ctx context.Context, s store.Store, bundle store.Digest, w io.Writer, opts ExportOptions) (Summary, error) {
	plan, err := planExport(ctx, s, bundle, opts)
	if err != nil {
		return Summary{}, err
	}
	return plan.write(ctx, s, w, opts.Progress)
}

// exportPlan is everything Export writes, decided before the first byte is written.
type exportPlan struct {
	indexJSON []byte
	// entries are the objects in the order the bundle graph reaches them, then the raw blobs
	// in digest order.
	entries []store.Descriptor
	summary Summary
}

func planExport(ctx context.Context, s store.Store, bundle store.Digest, opts ExportOptions) (*exportPlan, error) {
	if err := checkSealed(ctx, s, bundle); err != nil {
		return nil, err
	}
	b, err := getObject(ctx, s, bundle)
	if err != nil {
		return nil, storeError(err, bundle, "the bundle manifest")
	}
	m, err := store.DecodeBundleManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle manifest %s: %w", ErrInvalidObject, bundle, err)
	}
	definition := m.Definition()
	ix := &bundleIndex{
		manifest: store.Descriptor{MediaType: store.MediaTypeOf(m.ObjectKind()), Digest: bundle},
		profile:  store.Descriptor{MediaType: store.MediaTypeProfileTree, Digest: definition},
	}
	if ix.tags, err = exportTags(opts.Tags); err != nil {
		return nil, err
	}
	for _, r := range sortedDigests(opts.Receipts) {
		ix.receipts = append(ix.receipts, store.Descriptor{MediaType: store.MediaTypeReceipt, Digest: r})
	}

	entries, err := closure(ctx, s, bundle, store.HoldsBundles(m.ObjectKind()), ix.roots())
	if err != nil {
		return nil, err
	}
	p := &exportPlan{entries: entries, summary: Summary{Bundle: bundle, Profile: definition, Tags: ix.tags}}
	sizes := make(map[store.Digest]int64, len(entries))
	for _, e := range entries {
		sizes[e.Digest] = e.Size
		kind, _ := store.KindOfMediaType(e.MediaType)
		p.summary.count(kind, e.Size)
	}
	ix.manifest.Size, ix.profile.Size = sizes[bundle], sizes[definition]
	for i := range ix.receipts {
		ix.receipts[i].Size = sizes[ix.receipts[i].Digest]
		p.summary.Receipts = append(p.summary.Receipts, ix.receipts[i].Digest)
	}
	if p.indexJSON, err = encodeIndex(ix); err != nil {
		return nil, fmt.Errorf("archive: encode %s: %w", indexName, err)
	}
	return p, nil
}

// checkSealed refuses to export a manifest that is not a sealed bundle: an unsealed one may be
// incomplete, and an archive must never carry a bundle its store did not vouch for.
func checkSealed(ctx context.Context, s store.Store, bundle store.Digest) error {
	ref := store.BundleRefName(bundle)
	got, err := s.GetRef(ctx, ref)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%w: %s has no ref %s", ErrNotSealed, bundle, ref)
	case err != nil:
		return fmt.Errorf("archive: read ref %s: %w", ref, err)
	case got != bundle:
		return fmt.Errorf("%w: ref %s points at %s", ErrNotSealed, ref, got)
	}
	return nil
}

// exportTags validates, sorts and deduplicates the tags to write.
func exportTags(tags []string) ([]string, error) {
	for _, t := range tags {
		if err := validTag(t); err != nil {
			return nil, err
		}
	}
	sorted := slices.Clone(tags)
	slices.Sort(sorted)
	return slices.Compact(sorted), nil
}

func sortedDigests(ds []store.Digest) []store.Digest {
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b store.Digest) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(sorted)
}

// closure walks the bundle in the store from the index's roots, breadth first, and returns the
// structured objects in the order it reaches them followed by the raw blobs in digest order, each
// with the size the store holds. That order puts every entry after something that refers to it,
// which is what lets a reader check an archive in one streaming pass.
//
// It applies the rules a reader applies (sizes agree, kinds agree, one bundle manifest, receipts of
// this bundle), so Export never writes an archive Import would refuse. The walk is iterative over
// a queue of unvisited digests, so it ends even if a corrupt store makes objects refer in a loop.
func closure(ctx context.Context, s store.Store, bundle store.Digest, holdsBundles bool, roots []store.Descriptor) ([]store.Descriptor, error) {
	g := newGraph(math.MaxInt)
	var queue []store.Descriptor
	for _, r := range roots {
		added, err := g.expect(r, indexName)
		if err != nil {
			return nil, err
		}
		if added {
			queue = append(queue, r)
		}
	}
	var objects, blobs []store.Descriptor
	for i := 0; i < len(queue); i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d := queue[i].Digest
		n := g.nodes[d]
		size, refs, err := visit(ctx, s, d, n, bundle, holdsBundles)
		if err != nil {
			return nil, err
		}
		if _, err := g.arrive(d, size); err != nil {
			return nil, err
		}
		for _, ref := range refs {
			added, err := g.expect(ref, d.String())
			if err != nil {
				return nil, err
			}
			if added {
				queue = append(queue, ref)
			}
		}
		desc := store.Descriptor{MediaType: n.mediaType, Digest: d, Size: size}
		if n.kind == "" {
			blobs = append(blobs, desc)
		} else {
			objects = append(objects, desc)
		}
	}
	slices.SortFunc(blobs, func(a, b store.Descriptor) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	return append(objects, blobs...), nil
}

// visit looks one digest of the closure up in the store: a structured object is read and decoded
// for its references; a raw blob is only stat'ed.
func visit(ctx context.Context, s store.Store, d store.Digest, n *node, bundle store.Digest, holdsBundles bool) (int64, []store.Descriptor, error) {
	name := blobName(d)
	what := fmt.Sprintf("%s referenced by %s", n.mediaType, n.referrer)
	if n.kind == "" {
		e, err := s.Stat(ctx, d)
		if err != nil {
			return 0, nil, storeError(err, d, what)
		}
		return e.Size, nil, nil
	}
	b, err := getObject(ctx, s, d)
	if err != nil {
		return 0, nil, storeError(err, d, what)
	}
	o, err := decodeObject(b)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s: %w", ErrInvalidObject, name, err)
	}
	if o.kind != n.kind {
		return 0, nil, fmt.Errorf("%w: %s is a %s object but %s refers to it as a %s", ErrInvalidObject, name, o.kind, n.referrer, n.kind)
	}
	if err := o.checkBundle(name, d, bundle, holdsBundles); err != nil {
		return 0, nil, err
	}
	return int64(len(b)), o.refs, nil
}

// storeError explains a failed store read of d, which is what: content the bundle needs that
// the store lacks is ErrMissingBlob.
func storeError(err error, d store.Digest, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s (%s) is not in the store: %w", ErrMissingBlob, d, what, err)
	}
	return fmt.Errorf("archive: read %s (%s) from the store: %w", d, what, err)
}

// getObject reads a structured object and checks it against its digest. The store verifies what
// it returns, but objects are small and an archive written from a faulty store would fail every
// import, so the check is worth its cost here (raw blobs, which can be large, are not re-hashed).
func getObject(ctx context.Context, s store.Store, d store.Digest) ([]byte, error) {
	b, err := s.GetObject(ctx, d)
	if err != nil {
		return nil, err
	}
	if got := store.Sum(b); got != d {
		return nil, fmt.Errorf("%w: the store returned content %s for %s", ErrDigestMismatch, got, d)
	}
	return b, nil
}

// write streams the planned archive into w.
func (p *exportPlan) write(ctx context.Context, s store.Store, w io.Writer, fn func(Progress)) (Summary, error) {
	cw := &countingWriter{w: w}
	zw, err := zstd.NewWriter(cw, encoderOptions()...)
	if err != nil {
		return Summary{}, fmt.Errorf("archive: zstd encoder: %w", err)
	}
	aw := &archiveWriter{
		tw:       tar.NewWriter(zw),
		progress: &progress{fn: fn, total: int64(len(layoutJSON)+len(p.indexJSON)) + p.summary.ContentBytes},
		buf:      make([]byte, copyBufferSize),
	}
	if err := p.writeEntries(ctx, s, aw); err != nil {
		zw.Close() // release the encoder; the partial output is discarded by the caller
		return Summary{}, err
	}
	if err := aw.tw.Close(); err != nil {
		zw.Close()
		return Summary{}, fmt.Errorf("archive: finish tar stream: %w", err)
	}
	if err := zw.Close(); err != nil {
		return Summary{}, fmt.Errorf("archive: finish zstd stream: %w", err)
	}
	aw.progress.finish(aw.done)
	sum := p.summary
	sum.ArchiveBytes = cw.n.Load()
	return sum, nil
}

func (p *exportPlan) writeEntries(ctx context.Context, s store.Store, aw *archiveWriter) error {
	if err := aw.file(layoutName, layoutJSON); err != nil {
		return err
	}
	if err := aw.file(indexName, p.indexJSON); err != nil {
		return err
	}
	for _, dir := range []string{blobsDir, blobPrefix} {
		if err := aw.dir(dir); err != nil {
			return err
		}
	}
	for _, e := range p.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if kind, _ := store.KindOfMediaType(e.MediaType); kind != "" {
			err = aw.object(ctx, s, e)
		} else {
			err = aw.blob(ctx, s, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// archiveWriter writes tar entries with the fixed header values of the format.
type archiveWriter struct {
	tw       *tar.Writer
	progress *progress
	done     int64 // content bytes written so far
	buf      []byte
}

// header is the tar header of every entry: USTAR, or PAX when a size of 8 GiB or more needs
// the PAX size record (format PAX is chosen so that this is the only case, and the choice does
// not depend on Go's defaults).
func header(name string, typeflag byte, size int64) *tar.Header {
	mode := int64(fileMode)
	if typeflag == tar.TypeDir {
		mode = dirMode
	}
	return &tar.Header{Typeflag: typeflag, Name: name, Size: size, Mode: mode, ModTime: epoch, Format: tar.FormatPAX}
}

func (aw *archiveWriter) dir(name string) error {
	if err := aw.tw.WriteHeader(header(name, tar.TypeDir, 0)); err != nil {
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	return nil
}

func (aw *archiveWriter) file(name string, b []byte) error {
	aw.progress.startEntry(name, aw.done)
	if err := aw.tw.WriteHeader(header(name, tar.TypeReg, int64(len(b)))); err != nil {
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	if _, err := aw.tw.Write(b); err != nil {
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	aw.done += int64(len(b))
	return nil
}

// object writes a structured object, read again from the store so that only one object is in
// memory at a time.
func (aw *archiveWriter) object(ctx context.Context, s store.Store, e store.Descriptor) error {
	b, err := getObject(ctx, s, e.Digest)
	if err != nil {
		return storeError(err, e.Digest, e.MediaType)
	}
	return aw.file(blobName(e.Digest), b)
}

// blob streams a raw blob from the store into the archive. The store verifies the content
// against its digest while it is read (store.Store.OpenBlob), so it is not hashed again here.
func (aw *archiveWriter) blob(ctx context.Context, s store.Store, e store.Descriptor) error {
	name := blobName(e.Digest)
	rc, size, err := s.OpenBlob(ctx, e.Digest)
	if err != nil {
		return fmt.Errorf("archive: open %s in the store: %w", e.Digest, err)
	}
	defer rc.Close()
	if size != e.Size {
		return fmt.Errorf("%w: %s changed size in the store during export (%d, then %d bytes)", ErrSizeMismatch, e.Digest, e.Size, size)
	}
	aw.progress.startEntry(name, aw.done)
	if err := aw.tw.WriteHeader(header(name, tar.TypeReg, size)); err != nil {
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	// Hiding rc's WriterTo makes the copy go through buf, so progress and cancellation are
	// checked every buffer rather than once per blob.
	n, err := io.CopyBuffer(&progressWriter{ctx: ctx, aw: aw}, struct{ io.Reader }{rc}, aw.buf)
	if err != nil {
		return fmt.Errorf("archive: copy %s into the archive: %w", e.Digest, err)
	}
	if n != size {
		return fmt.Errorf("%w: %s: the store gave %d bytes, not %d", ErrSizeMismatch, e.Digest, n, size)
	}
	return nil
}

// progressWriter writes into the tar stream, reports progress and stops on cancellation.
type progressWriter struct {
	ctx context.Context
	aw  *archiveWriter
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	if err := pw.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := pw.aw.tw.Write(b)
	pw.aw.done += int64(n)
	pw.aw.progress.advance(pw.aw.done)
	return n, err
}

// countingWriter counts the bytes of the archive file. The zstd encoder writes from its own
// goroutine, hence the atomic.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}
