package archive

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/store"
)

// ImportOptions tune Import.
type ImportOptions struct {
	// ApplyTags points tags/<name> at the bundle for every tag index.json names. A tag that
	// already names another bundle fails the import before anything is sealed.
	ApplyTags bool
	// Size is the archive's size in bytes, if known (a file's size); it becomes Progress.Total.
	Size int64
	// Progress, if set, is called at every entry and every MiB of archive read.
	Progress func(Progress)
}

// Import reads an archive into s. It verifies everything Verify verifies while it streams each
// entry into the store, and only when the whole archive has checked out (every digest and size,
// the limits, the complete closure of the bundle manifest) does it seal the bundle: Sync, then the
// ref bundles/<hex>, then receipts/<hex> for each receipt, then the tags if asked.
//
// When Import fails, whatever it stored is referenced by nothing, so it is invisible and garbage
// collection removes it; the store holds no new sealed bundle, receipt or tag. Importing an
// archive whose bundle is already in the store is harmless: content is deduplicated and the refs
// are set to the values they have.
func Import(ctx context.Context, s store.Store, r io.Reader, limits Limits, opts ImportOptions) (Summary, error) {
	res, err := readArchive(ctx, r, readOptions{
		limits:   limits,
		sink:     storeSink{s: s},
		progress: &progress{fn: opts.Progress, total: opts.Size},
	})
	if err != nil {
		return Summary{}, err
	}
	if err := seal(ctx, s, res.summary, opts.ApplyTags); err != nil {
		return Summary{}, err
	}
	return res.summary, nil
}

// seal makes an imported bundle visible, in the order of DESIGN §5: content is made durable
// first, then the bundle ref, then the refs that point into the bundle.
func seal(ctx context.Context, s store.Store, sum Summary, applyTags bool) error {
	var tags []string
	if applyTags {
		tags = sum.Tags
		if err := checkTagsFree(ctx, s, tags, sum.Bundle); err != nil {
			return err
		}
	}
	if err := s.Sync(ctx); err != nil {
		return fmt.Errorf("archive: sync before sealing %s: %w", sum.Bundle, err)
	}
	refs := []store.Ref{{Name: store.BundleRefName(sum.Bundle), Digest: sum.Bundle}}
	for _, r := range sum.Receipts {
		refs = append(refs, store.Ref{Name: store.ReceiptRefName(r), Digest: r})
	}
	for _, t := range tags {
		refs = append(refs, store.Ref{Name: store.RefTagPrefix + t, Digest: sum.Bundle})
	}
	for _, ref := range refs {
		if err := s.SetRef(ctx, ref.Name, ref.Digest); err != nil {
			return fmt.Errorf("archive: set ref %s: %w", ref.Name, err)
		}
	}
	return nil
}

// checkTagsFree fails if a tag already names another bundle: moving a tag silently would change
// what an auditor's command refers to.
func checkTagsFree(ctx context.Context, s store.Store, tags []string, bundle store.Digest) error {
	for _, t := range tags {
		got, err := s.GetRef(ctx, store.RefTagPrefix+t)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return fmt.Errorf("archive: read tag %q: %w", t, err)
		case got != bundle:
			return fmt.Errorf("%w: tag %q names %s, the archive's bundle is %s", ErrTagConflict, t, got, bundle)
		}
	}
	return nil
}

// storeSink writes verified entries into a store.
type storeSink struct{ s store.Store }

func (k storeSink) object(ctx context.Context, d store.Digest, canonical []byte) error {
	desc, err := k.s.PutObject(ctx, canonical)
	if err != nil {
		return err
	}
	if desc.Digest != d {
		return fmt.Errorf("%w: the store filed %s as %s", ErrDigestMismatch, d, desc.Digest)
	}
	return nil
}

func (k storeSink) blob(ctx context.Context, r io.Reader) (store.Digest, int64, error) {
	return k.s.PutBlob(ctx, r)
}
