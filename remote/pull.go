package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// PullOptions tune Pull.
type PullOptions struct {
	// ApplyTags points the store's tags at a pulled bundle for every tag its index.json names,
	// as bundle import --tags does.
	ApplyTags bool
	// Limits bound what is read, as for an archive.
	Limits archive.Limits
	// SignedReceipt, if set, receives each signed receipt (a DSSE envelope, verified against
	// its digest but not its signature) attached to a pulled bundle.
	SignedReceipt func(bundle store.Digest, envelope []byte) error
}

// PullReport says what a pull did.
type PullReport struct {
	// Bundles are the bundles pulled, in the order of the references given.
	Bundles []store.Digest
	// Downloaded counts the blobs fetched (the store had the others), DownloadedBytes their size.
	Downloaded      int
	DownloadedBytes int64
	// Receipts counts the receipts pulled with the bundles; SignedReceipts the signed
	// receipts given to PullOptions.SignedReceipt.
	Receipts, SignedReceipts int
}

// Pull fetches the bundles refs name on the remote into the store, with their receipts. A
// reference is a bundle digest (or the digest of its wrapper manifest), a unique prefix of at
// least four hex characters of a bundle digest, or a tag. Everything downloaded is checked
// against its digest and size before it enters the store; a mismatch is ErrIntegrity naming
// the object.
func Pull(ctx context.Context, s store.Store, b Backend, refs []string, opts PullOptions) (*PullReport, error) {
	rep := &PullReport{Bundles: make([]store.Digest, len(refs))}
	sums := make([]*archive.Summary, len(refs))
	receipts := make([][]store.Ref, len(refs))
	var mu sync.Mutex
	err := forEach(ctx, len(refs), workers, func(ctx context.Context, i int) error {
		pl := &puller{s: s, b: b, opts: opts}
		d, err := pl.pull(ctx, refs[i])
		if err != nil {
			return fmt.Errorf("pull %s from %s: %w", refs[i], b, err)
		}
		mu.Lock()
		defer mu.Unlock()
		rep.Bundles[i], sums[i], receipts[i] = d, pl.imported, pl.receiptRefs
		rep.Downloaded += pl.downloaded
		rep.DownloadedBytes += pl.downloadedBytes
		rep.Receipts += len(pl.receiptRefs)
		rep.SignedReceipts += pl.signed
		return nil
	})
	if err != nil {
		return nil, err
	}
	// One sync for every bundle and receipt pulled, then their refs: until then nothing pulled
	// is named, so a pull stopped before here leaves no new bundle.
	var imported []archive.Summary
	for _, sum := range sums {
		if sum != nil {
			imported = append(imported, *sum)
		}
	}
	if err := archive.SealLayouts(ctx, s, imported, opts.ApplyTags, slices.Concat(receipts...)); err != nil {
		return nil, err
	}
	return rep, nil
}

// AllBundles lists every bundle the remote names (its bundle-<hex> names), as references for
// Pull, in digest order.
func AllBundles(ctx context.Context, b Backend) ([]string, error) {
	names, err := b.Names(ctx, BundleNamePrefix)
	if err != nil {
		return nil, err
	}
	var refs []string
	for _, n := range names {
		if d, ok := bundleOfName(n); ok {
			refs = append(refs, d.String())
		}
	}
	return refs, nil
}

// Resolve returns the wrapper manifest a reference names on the remote.
func Resolve(ctx context.Context, b Backend, ref string) (store.Descriptor, error) {
	hex := strings.TrimPrefix(ref, store.DigestPrefix)
	switch {
	case len(hex) == 64 && store.IsHexPrefix(hex):
		d, err := b.ResolveName(ctx, BundleNamePrefix+hex)
		if !errors.Is(err, ErrNotFound) {
			return d, err
		}
		// Not a bundle digest the remote names: perhaps the wrapper's own digest.
		dg, _ := store.ParseDigest(store.DigestPrefix + hex)
		wd := store.Descriptor{MediaType: MediaTypeManifest, Digest: dg}
		if has, err := b.HasManifest(ctx, wd); err != nil || !has {
			return store.Descriptor{}, errors.Join(fmt.Errorf("%w: no bundle or manifest %s on %s", ErrNotFound, ref, b), err)
		}
		return wd, nil
	case len(hex) >= 4 && store.IsHexPrefix(hex):
		names, err := b.Names(ctx, BundleNamePrefix+hex)
		if err != nil {
			return store.Descriptor{}, err
		}
		switch len(names) {
		case 0:
			return store.Descriptor{}, fmt.Errorf("%w: no bundle on %s starts with %s", ErrNotFound, b, hex)
		case 1:
			return b.ResolveName(ctx, names[0])
		default:
			return store.Descriptor{}, fmt.Errorf("%w: %s names %d bundles on %s: %s", ErrAmbiguous, ref, len(names), b, strings.Join(names, ", "))
		}
	}
	d, err := b.ResolveName(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		return store.Descriptor{}, fmt.Errorf("%w: no tag %q on %s", ErrNotFound, ref, b)
	}
	return d, err
}

// puller pulls one bundle.
type puller struct {
	s               store.Store
	b               Backend
	opts            PullOptions
	downloaded      int
	downloadedBytes int64
	signed          int
	// imported is the summary of the bundle read into the store (nil when it was sealed there
	// already); receiptRefs the refs of the receipts read, both sealed by Pull.
	imported    *archive.Summary
	receiptRefs []store.Ref
}

func (pl *puller) pull(ctx context.Context, ref string) (store.Digest, error) {
	wd, err := Resolve(ctx, pl.b, ref)
	if err != nil {
		return store.Digest{}, err
	}
	wb, err := pl.manifest(ctx, wd)
	if err != nil {
		return store.Digest{}, err
	}
	w, err := decodeWrapper(wb, wd)
	if err != nil {
		return store.Digest{}, err
	}
	// A full digest names the bundle, or else the wrapper itself.
	if d, ok := bundleOfName(BundleNamePrefix + strings.TrimPrefix(ref, store.DigestPrefix)); ok && d != w.bundle && d != wd.Digest {
		return store.Digest{}, fmt.Errorf("%w: %s names manifest %s, which is of bundle %s", ErrIntegrity, BundleName(d), wd.Digest, w.bundle)
	}
	if !sealed(ctx, pl.s, w.bundle) {
		if err := pl.importBundle(ctx, w); err != nil {
			return store.Digest{}, err
		}
	}
	if err := pl.pullReceipts(ctx, w); err != nil {
		return store.Digest{}, err
	}
	return w.bundle, nil
}

// manifest reads a manifest and checks it against its digest (and size, when known).
func (pl *puller) manifest(ctx context.Context, d store.Descriptor) ([]byte, error) {
	b, err := pl.b.GetManifest(ctx, d)
	if err != nil {
		return nil, err
	}
	if got := store.Sum(b); got != d.Digest || (d.Size > 0 && int64(len(b)) != d.Size) {
		return nil, fmt.Errorf("%w: manifest %s on %s: its content hashes to %s (%d bytes)", ErrIntegrity, d.Digest, pl.b, got, len(b))
	}
	return b, nil
}

// importBundle downloads what the store lacks of a bundle, verified, then imports it.
func (pl *puller) importBundle(ctx context.Context, w *wrapper) error {
	index, err := pl.fetchSmall(ctx, w.config)
	if err != nil {
		return err
	}
	sp := &spool{files: map[store.Digest]string{}, mem: map[store.Digest][]byte{}}
	defer sp.remove()
	var mu sync.Mutex
	err = forEach(ctx, len(w.layers), workers, func(ctx context.Context, i int) error {
		d := w.layers[i]
		if e, err := pl.s.Stat(ctx, d.Digest); err == nil && e.Size == d.Size {
			return nil
		}
		mu.Lock()
		_, done := sp.mem[d.Digest]
		_, doneFile := sp.files[d.Digest]
		mu.Unlock()
		if done || doneFile {
			return nil
		}
		return pl.download(ctx, d, sp, &mu)
	})
	if err != nil {
		return err
	}
	l := &archive.Layout{Index: index, Entries: w.layers}
	open := func(ctx context.Context, d store.Descriptor) (io.ReadCloser, error) {
		if rc, ok := sp.open(d.Digest); ok {
			return rc, nil
		}
		rc, _, err := pl.s.OpenBlob(ctx, d.Digest)
		return rc, err
	}
	sum, err := archive.ReadLayout(ctx, pl.s, l, w.bundle, open, pl.opts.Limits, archive.ImportOptions{})
	if err != nil {
		return err
	}
	pl.imported = &sum
	return nil
}

// memBlob is the largest blob a pull keeps in memory; larger ones go to a temporary file.
const memBlob = 4 << 20

// download fetches one blob into the spool, hashing it on the way.
func (pl *puller) download(ctx context.Context, d store.Descriptor, sp *spool, mu *sync.Mutex) error {
	rc, err := pl.b.OpenBlob(ctx, d)
	if err != nil {
		return fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	defer rc.Close()
	h := sha256.New()
	r := io.TeeReader(io.LimitReader(rc, d.Size+1), h)
	var n int64
	var mem []byte
	var file string
	if d.Size <= memBlob {
		mem, err = io.ReadAll(r)
		n = int64(len(mem))
	} else {
		file, n, err = spoolFile(r)
	}
	if err != nil {
		return fmt.Errorf("blob %s on %s: %w", d.Digest, pl.b, err)
	}
	if got := store.Digest(h.Sum(nil)); got != d.Digest || n != d.Size {
		if file != "" {
			os.Remove(file)
		}
		return fmt.Errorf("%w: blob %s on %s: its content hashes to %s (%d bytes, %d expected)", ErrIntegrity, d.Digest, pl.b, got, n, d.Size)
	}
	mu.Lock()
	defer mu.Unlock()
	if file != "" {
		sp.files[d.Digest] = file
	} else {
		sp.mem[d.Digest] = mem
	}
	pl.downloaded++
	pl.downloadedBytes += n
	return nil
}

// fetchSmall downloads a small blob (a config, a receipt) and checks it.
func (pl *puller) fetchSmall(ctx context.Context, d store.Descriptor) ([]byte, error) {
	if d.Size > maxManifest {
		return nil, fmt.Errorf("%w: blob %s on %s: %d bytes is more than %d", ErrIntegrity, d.Digest, pl.b, d.Size, maxManifest)
	}
	rc, err := pl.b.OpenBlob(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", d.Digest, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, d.Size+1))
	if err != nil {
		return nil, fmt.Errorf("blob %s on %s: %w", d.Digest, pl.b, err)
	}
	if got := store.Sum(b); got != d.Digest || int64(len(b)) != d.Size {
		return nil, fmt.Errorf("%w: blob %s on %s: its content hashes to %s (%d bytes, %d expected)", ErrIntegrity, d.Digest, pl.b, got, len(b), d.Size)
	}
	return b, nil
}

// pullReceipts imports the receipts attached to the wrapper: each receipt and its verdict
// are checked, must be about this bundle, and are kept alive by receipts/<hex>.
func (pl *puller) pullReceipts(ctx context.Context, w *wrapper) error {
	refs, err := pl.b.Referrers(ctx, w.desc)
	if err != nil {
		return err
	}
	for _, r := range refs {
		// The artifact type is read from the manifest itself: registries' referrer lists do
		// not all report it (some give the config's media type).
		mb, err := pl.manifest(ctx, r.Descriptor)
		if err != nil {
			return err
		}
		m, err := decodeManifest(mb, r.Digest)
		if err != nil {
			return err
		}
		switch {
		case m.ArtifactType == ArtifactTypeReceipt:
			err = pl.pullReceipt(ctx, w, r.Digest, m)
		case m.ArtifactType == ArtifactTypeDSSE && pl.opts.SignedReceipt != nil:
			err = pl.pullSigned(ctx, w, r.Digest, m)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pullSigned fetches a signed receipt referrer's envelope and hands it over.
func (pl *puller) pullSigned(ctx context.Context, w *wrapper, rd store.Digest, m *manifest) error {
	if len(m.Layers) != 1 {
		return fmt.Errorf("%w: signed receipt referrer %s has %d layers, not 1", ErrIntegrity, rd, len(m.Layers))
	}
	d, err := m.Layers[0].store()
	if err != nil {
		return fmt.Errorf("%w: signed receipt referrer %s: %w", ErrIntegrity, rd, err)
	}
	env, err := pl.fetchSmall(ctx, d)
	if err != nil {
		return err
	}
	if sub, err := SubjectOf(env); err != nil || sub != w.bundle {
		return fmt.Errorf("%w: signed receipt %s attached to bundle %s is about %s (%v)", ErrIntegrity, d.Digest, w.bundle, sub, err)
	}
	pl.signed++
	return pl.opts.SignedReceipt(w.bundle, env)
}

func (pl *puller) pullReceipt(ctx context.Context, w *wrapper, rd store.Digest, m *manifest) error {
	if len(m.Layers) != 2 {
		return fmt.Errorf("%w: receipt referrer %s has %d layers, not 2 (receipt, verdict)", ErrIntegrity, rd, len(m.Layers))
	}
	var objs [2][]byte
	for i, l := range m.Layers {
		d, err := l.store()
		if err != nil {
			return fmt.Errorf("%w: receipt referrer %s: layer %d: %w", ErrIntegrity, rd, i, err)
		}
		if objs[i], err = pl.fetchSmall(ctx, d); err != nil {
			return err
		}
	}
	rc, err := store.DecodeReceipt(objs[0])
	if err != nil {
		return fmt.Errorf("%w: receipt referrer %s: %w", ErrIntegrity, rd, err)
	}
	if rc.Bundle != w.bundle || rc.Verdict != store.Sum(objs[1]) {
		return fmt.Errorf("%w: receipt referrer %s: receipt %s is about bundle %s and verdict %s, not %s and %s",
			ErrIntegrity, rd, store.Sum(objs[0]), rc.Bundle, rc.Verdict, w.bundle, store.Sum(objs[1]))
	}
	for _, b := range [][]byte{objs[1], objs[0]} {
		if _, err := pl.s.PutObject(ctx, b); err != nil {
			return fmt.Errorf("%w: receipt referrer %s: %w", ErrIntegrity, rd, err)
		}
	}
	receipt := store.Sum(objs[0])
	if _, err := store.Reachable(ctx, pl.s, receipt); err != nil {
		return fmt.Errorf("%w: receipt %s: %w", ErrIntegrity, receipt, err)
	}
	pl.receiptRefs = append(pl.receiptRefs, store.Ref{Name: store.ReceiptRefName(receipt), Digest: receipt})
	return nil
}

// spool holds verified downloads until the import reads them.
type spool struct {
	mem   map[store.Digest][]byte
	files map[store.Digest]string
}

func (sp *spool) open(d store.Digest) (io.ReadCloser, bool) {
	if b, ok := sp.mem[d]; ok {
		return io.NopCloser(bytes.NewReader(b)), true
	}
	if f, ok := sp.files[d]; ok {
		fh, err := os.Open(f)
		if err != nil {
			return io.NopCloser(errReader{err}), true
		}
		return fh, true
	}
	return nil, false
}

func (sp *spool) remove() {
	for _, f := range sp.files {
		os.Remove(f)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// spoolFile copies r into a new temporary file.
func spoolFile(r io.Reader) (string, int64, error) {
	f, err := os.CreateTemp("", "oasis-replay-pull-*")
	if err != nil {
		return "", 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", 0, err
	}
	return f.Name(), n, nil
}
