package archive

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/oasis-replay/oasis-replay/store"
)

// Layout is an archive without its framing: the bytes of index.json and the blobs of
// blobs/sha256/ in archive order. It is what a remote keeps of a bundle (package remote): the
// same index.json and the same blobs as the archive, each blob stored once by its digest, so
// that a bundle pushed to a registry or a bucket and pulled back is checked exactly as an
// imported archive is.
type Layout struct {
	// Index is index.json, byte for byte as Export writes it.
	Index []byte
	// Entries are the blobs in the order Export writes them, each with its size and the media
	// type of the first descriptor that names it.
	Entries []store.Descriptor
	// Summary is what Export would report, but for ArchiveBytes.
	Summary Summary
}

// PlanLayout decides what Export would write for bundle, without writing it.
func PlanLayout(ctx context.Context, s store.Store, bundle store.Digest, opts ExportOptions) (*Layout, error) {
	p, err := planExport(ctx, s, bundle, opts)
	if err != nil {
		return nil, err
	}
	return &Layout{Index: p.indexJSON, Entries: p.entries, Summary: p.summary}, nil
}

// Opener returns the content of one entry of a layout; the reader must give exactly
// Descriptor.Size bytes.
type Opener func(ctx context.Context, d store.Descriptor) (io.ReadCloser, error)

// ImportLayout imports a bundle given as a layout, the content of each entry coming from open,
// with every check and the sealing order of Import: the entries are framed as the archive's
// tar stream (without compression) and read by the archive reader, so a layout is accepted
// exactly when the archive Export would write for it is. want, unless zero, is the bundle the
// layout must hold: a layout of another bundle is refused before anything is sealed
// (ErrConflict).
func ImportLayout(ctx context.Context, s store.Store, l *Layout, want store.Digest, open Opener, limits Limits, opts ImportOptions) (Summary, error) {
	sum, err := ReadLayout(ctx, s, l, want, open, limits, opts)
	if err != nil {
		return Summary{}, err
	}
	if err := seal(ctx, s, sum, opts.ApplyTags); err != nil {
		return Summary{}, err
	}
	return sum, nil
}

// ReadLayout is ImportLayout without the sealing: the content is written and checked, and
// nothing names it until SealLayouts (or the garbage collector) is run. A pull of many bundles
// reads each, then seals them all with one sync.
func ReadLayout(ctx context.Context, s store.Store, l *Layout, want store.Digest, open Opener, limits Limits, opts ImportOptions) (Summary, error) {
	// The writer's context ends when the reader stops, so that a writer blocked on the pipe or
	// on open returns.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := writeLayout(rctx, pw, l, open)
		pw.CloseWithError(err)
		done <- err
	}()
	res, err := readArchive(rctx, pr, readOptions{
		limits:       limits,
		sink:         storeSink{s: s},
		progress:     &progress{fn: opts.Progress, total: opts.Size},
		uncompressed: true,
	})
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the writer if the reader stopped early
	cancel()
	writeErr := <-done
	if err != nil {
		return Summary{}, err
	}
	if writeErr != nil {
		return Summary{}, writeErr
	}
	if !want.IsZero() && res.summary.Bundle != want {
		return Summary{}, fmt.Errorf("%w: the layout holds bundle %s, not %s", ErrConflict, res.summary.Bundle, want)
	}
	return res.summary, nil
}

// SealLayouts seals bundles read by ReadLayout in the order of DESIGN §5, with one sync for
// all: every tag is checked first, then the store is synced, then the bundle refs, the refs of
// the receipts index.json carried, the tags if asked, and extra refs (receipts that refer to the
// bundles) are set, in one write when the store allows it.
func SealLayouts(ctx context.Context, s store.Store, sums []Summary, applyTags bool, extra []store.Ref) error {
	var bundles, receipts, tags []store.Ref
	for _, sum := range sums {
		bundles = append(bundles, store.Ref{Name: store.BundleRefName(sum.Bundle), Digest: sum.Bundle})
		for _, r := range sum.Receipts {
			receipts = append(receipts, store.Ref{Name: store.ReceiptRefName(r), Digest: r})
		}
		if !applyTags {
			continue
		}
		if err := checkTagsFree(ctx, s, sum.Tags, sum.Bundle); err != nil {
			return err
		}
		for _, t := range sum.Tags {
			tags = append(tags, store.Ref{Name: store.RefTagPrefix + t, Digest: sum.Bundle})
		}
	}
	if err := s.Sync(ctx); err != nil {
		return fmt.Errorf("archive: sync before sealing %d bundles: %w", len(sums), err)
	}
	if err := store.SetRefs(ctx, s, slices.Concat(bundles, receipts, tags, extra)); err != nil {
		return fmt.Errorf("archive: set refs: %w", err)
	}
	return nil
}

// writeLayout writes the tar stream of a layout: the same entries, headers and order as Export.
func writeLayout(ctx context.Context, w io.Writer, l *Layout, open Opener) error {
	aw := &archiveWriter{tw: tar.NewWriter(w), progress: &progress{}, buf: make([]byte, copyBufferSize)}
	if err := aw.file(layoutName, layoutJSON); err != nil {
		return err
	}
	if err := aw.file(indexName, l.Index); err != nil {
		return err
	}
	for _, dir := range []string{blobsDir, blobPrefix} {
		if err := aw.dir(dir); err != nil {
			return err
		}
	}
	for _, e := range l.Entries {
		if err := aw.openedBlob(ctx, e, open); err != nil {
			return err
		}
	}
	return aw.tw.Close()
}

// openedBlob writes one entry whose content comes from open.
func (aw *archiveWriter) openedBlob(ctx context.Context, e store.Descriptor, open Opener) error {
	rc, err := open(ctx, e)
	if err != nil {
		return err
	}
	defer rc.Close()
	name := blobName(e.Digest)
	if err := aw.tw.WriteHeader(header(name, tar.TypeReg, e.Size)); err != nil {
		return fmt.Errorf("archive: write %s: %w", name, err)
	}
	n, err := io.CopyBuffer(&progressWriter{ctx: ctx, aw: aw}, struct{ io.Reader }{io.LimitReader(rc, e.Size)}, aw.buf)
	if err != nil {
		return fmt.Errorf("archive: copy %s: %w", e.Digest, err)
	}
	if n != e.Size {
		return fmt.Errorf("%w: %s: %d bytes, not %d", ErrSizeMismatch, e.Digest, n, e.Size)
	}
	return nil
}
