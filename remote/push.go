package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// PushOptions tune Push.
type PushOptions struct {
	// SignedReceipts are DSSE envelopes (replay --sign) to attach to the bundles they are
	// about, which must be among those pushed.
	SignedReceipts [][]byte
}

// PushReport says what a push did.
type PushReport struct {
	// Bundles are the bundles pushed, in the order given (a bundle's run bundles first), with
	// the digest of the wrapper manifest that now names each.
	Bundles []Pushed `json:"bundles"`
	// Blobs and Manifests count what the pushed bundles need on the remote; the Uploaded
	// counts what was not there and was sent, UploadedBytes their size.
	Blobs             int   `json:"blobs"`
	BlobsUploaded     int   `json:"blobs_uploaded"`
	Manifests         int   `json:"manifests"`
	ManifestsUploaded int   `json:"manifests_uploaded"`
	UploadedBytes     int64 `json:"uploaded_bytes"`
	// Receipts and SignedReceipts count the referrers the bundles carry.
	Receipts       int `json:"receipts"`
	SignedReceipts int `json:"signed_receipts"`
}

// Pushed is one bundle on the remote.
type Pushed struct {
	Bundle  store.Digest `json:"bundle"`
	Wrapper store.Digest `json:"wrapper"`
}

// pusher holds what one push shares between bundles: the blobs known present on the remote
// (checked or uploaded once per push), the receipts of the store by bundle, the counters.
type pusher struct {
	s        store.Store
	b        Backend
	mu       sync.Mutex
	present  map[store.Digest]*blobState
	receipts map[store.Digest][]store.Digest
	signed   map[store.Digest][][]byte

	blobs, blobsUp, manifests, manifestsUp atomic.Int64
	receiptCount, signedCount              atomic.Int64
	bytesUp                                atomic.Int64
}

// blobState makes concurrent pushes of one blob wait for the first.
type blobState struct {
	once sync.Once
	err  error
}

// Push uploads each bundle (a sealed bundle of the store) to the remote with its tags and its
// receipts. A bundle whose manifest holds other bundles (an Eval Library matrix) pushes those
// first, each as a bundle of its own. See the package documentation for the order of writes.
func Push(ctx context.Context, s store.Store, b Backend, bundles []store.Digest, opts PushOptions) (*PushReport, error) {
	p := &pusher{s: s, b: b, present: map[store.Digest]*blobState{}, signed: map[store.Digest][][]byte{}}
	for _, env := range opts.SignedReceipts {
		d, err := SubjectOf(env)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(bundles, d) {
			return nil, fmt.Errorf("%w: a signed receipt is about bundle %s, which is not pushed", ErrEnvelope, d)
		}
		p.signed[d] = append(p.signed[d], env)
	}
	var err error
	if p.receipts, err = receiptsByBundle(ctx, s); err != nil {
		return nil, err
	}
	order, holders, err := withRunBundles(ctx, s, bundles)
	if err != nil {
		return nil, err
	}
	rep := &PushReport{Bundles: make([]Pushed, len(order))}
	// The bundles that hold others go after all the others have been pushed, so that a remote
	// names a matrix only once it names each of its runs.
	for _, phase := range [][]int{phaseOf(order, holders, false), phaseOf(order, holders, true)} {
		err = forEach(ctx, len(phase), 2*workers, func(ctx context.Context, j int) error {
			i := phase[j]
			w, err := p.pushBundle(ctx, order[i])
			if err != nil {
				return fmt.Errorf("push %s to %s: %w", order[i], b, err)
			}
			rep.Bundles[i] = Pushed{Bundle: order[i], Wrapper: w}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	rep.Blobs, rep.BlobsUploaded = int(p.blobs.Load()), int(p.blobsUp.Load())
	rep.Manifests, rep.ManifestsUploaded = int(p.manifests.Load()), int(p.manifestsUp.Load())
	rep.UploadedBytes, rep.Receipts = p.bytesUp.Load(), int(p.receiptCount.Load())
	rep.SignedReceipts = int(p.signedCount.Load())
	return rep, nil
}

// withRunBundles puts before each bundle that holds bundles (store.HoldsBundles) the sealed
// bundles its manifest reaches, each once, so a matrix is pushed as the DAG of its runs; holders
// says which bundles of the order hold others.
func withRunBundles(ctx context.Context, s store.Store, bundles []store.Digest) ([]store.Digest, map[store.Digest]bool, error) {
	seen := map[store.Digest]bool{}
	holders := map[store.Digest]bool{}
	var order []store.Digest
	for _, d := range bundles {
		b, err := s.GetObject(ctx, d)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle %s: %w", d, err)
		}
		m, err := store.DecodeBundleManifest(b)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle %s: %w", d, err)
		}
		if store.HoldsBundles(m.ObjectKind()) {
			holders[d] = true
			entries, err := store.Reachable(ctx, s, d)
			if err != nil {
				return nil, nil, err
			}
			for _, e := range entries {
				if e.Digest != d && store.IsManifestKind(e.Kind) && !seen[e.Digest] && sealed(ctx, s, e.Digest) {
					seen[e.Digest] = true
					order = append(order, e.Digest)
				}
			}
		}
		if !seen[d] {
			seen[d] = true
			order = append(order, d)
		}
	}
	return order, holders, nil
}

// phaseOf lists the indices of order whose bundle holds others (holding) or does not.
func phaseOf(order []store.Digest, holders map[store.Digest]bool, holding bool) []int {
	var out []int
	for i, d := range order {
		if holders[d] == holding {
			out = append(out, i)
		}
	}
	return out
}

func sealed(ctx context.Context, s store.Store, d store.Digest) bool {
	got, err := s.GetRef(ctx, store.BundleRefName(d))
	return err == nil && got == d
}

// receiptsByBundle reads every receipt the store keeps (receipts/<hex>, and the Eval Library's
// eval/verdicts/<bundle hex>, which name the receipt of a run's or a matrix's verdict) and
// groups them by the bundle each is about, sorted, each once.
func receiptsByBundle(ctx context.Context, s store.Store) (map[store.Digest][]store.Digest, error) {
	var refs []store.Ref
	for _, prefix := range []string{store.RefReceiptPrefix, store.RefEvalVerdictPrefix} {
		more, err := s.ListRefs(ctx, prefix)
		if err != nil {
			return nil, err
		}
		refs = append(refs, more...)
	}
	out := map[store.Digest][]store.Digest{}
	seen := map[store.Digest]bool{}
	for _, r := range refs {
		if seen[r.Digest] {
			continue
		}
		seen[r.Digest] = true
		b, err := s.GetObject(ctx, r.Digest)
		if err != nil {
			return nil, fmt.Errorf("receipt %s: %w", r.Digest, err)
		}
		rc, err := store.DecodeReceipt(b)
		if err != nil {
			return nil, fmt.Errorf("receipt %s: %w", r.Digest, err)
		}
		out[rc.Bundle] = append(out[rc.Bundle], r.Digest)
	}
	for _, v := range out {
		slices.SortFunc(v, store.Digest.Compare)
	}
	return out, nil
}

// pushBundle pushes one bundle: blobs, wrapper, names, then its receipts as referrers.
func (p *pusher) pushBundle(ctx context.Context, d store.Digest) (store.Digest, error) {
	tags, err := store.BundleTags(ctx, p.s, d)
	if err != nil {
		return store.Digest{}, err
	}
	l, err := archive.PlanLayout(ctx, p.s, d, archive.ExportOptions{Tags: tags})
	if err != nil {
		return store.Digest{}, err
	}
	wb, wd, err := wrapperOf(l)
	if err != nil {
		return store.Digest{}, err
	}
	config := store.Descriptor{MediaType: MediaTypeIndexConfig, Digest: store.Sum(l.Index), Size: int64(len(l.Index))}
	blobs := append([]store.Descriptor{config}, l.Entries...)
	open := func(d store.Descriptor) (io.ReadCloser, error) {
		if d.Digest == config.Digest {
			return io.NopCloser(bytes.NewReader(l.Index)), nil
		}
		rc, _, err := p.s.OpenBlob(ctx, d.Digest)
		return rc, err
	}
	refs, err := p.referrers(ctx, d, wd)
	if err != nil {
		return store.Digest{}, err
	}
	listed, err := p.listed(ctx, wd, refs)
	if err != nil {
		return store.Digest{}, err
	}
	if len(refs) > 0 && allListed(refs, listed) {
		// Referrers are written after the wrapper and its names and name the wrapper, which
		// names the bundle's tags (in index.json): the bundle is all there. A second push of a
		// bundle with receipts costs one request here.
		p.manifests.Add(int64(1 + len(refs)))
		p.blobs.Add(int64(len(blobs)))
		for _, r := range refs {
			p.count(r)
			p.blobs.Add(int64(len(r.blobs)))
		}
		return wd.Digest, nil
	}
	if err := p.putWrapper(ctx, BundleName(d), wd, wb, blobs, open); err != nil {
		return store.Digest{}, err
	}
	for _, name := range tags {
		if err := p.setName(ctx, name, wd, wb); err != nil {
			return store.Digest{}, err
		}
	}
	for _, r := range refs {
		p.count(r)
		if listed[r.desc.Digest] {
			p.manifests.Add(1)
			p.blobs.Add(int64(len(r.blobs)))
			continue
		}
		if err := p.pushReferrer(ctx, r); err != nil {
			return store.Digest{}, err
		}
	}
	return wd.Digest, nil
}

// putManifest makes sure the remote holds manifest wd: if it does not, every blob it names is
// made present first (open gives a blob's content), then the manifest is uploaded. A manifest
// already on the remote implies its blobs, which the registry or an earlier push checked.
func (p *pusher) putManifest(ctx context.Context, wd store.Descriptor, wb []byte, blobs []store.Descriptor, open func(store.Descriptor) (io.ReadCloser, error)) error {
	p.manifests.Add(1)
	p.blobs.Add(int64(len(blobs)))
	has, err := p.b.HasManifest(ctx, wd)
	if err != nil || has {
		return err
	}
	for _, bd := range blobs {
		if err := p.ensureBlob(ctx, bd, open); err != nil {
			return err
		}
	}
	if err := p.b.PutManifest(ctx, wd, wb); err != nil {
		return err
	}
	p.manifestsUp.Add(1)
	p.bytesUp.Add(wd.Size)
	return nil
}

// NamedManifestPutter is implemented by backends that store a manifest and point a name at it
// in one request (a registry's PUT of a manifest by tag); push then uses it for wrappers.
type NamedManifestPutter interface {
	PutNamedManifest(ctx context.Context, name string, d store.Descriptor, b []byte) error
}

// putWrapper makes sure the remote holds the wrapper wd under name (bundle-<hex>). A name that
// already points at it says the wrapper and its blobs are there (names are written last), so a
// second push of a bundle costs one request here.
func (p *pusher) putWrapper(ctx context.Context, name string, wd store.Descriptor, wb []byte, blobs []store.Descriptor, open func(store.Descriptor) (io.ReadCloser, error)) error {
	got, err := p.b.ResolveName(ctx, name)
	switch {
	case err == nil && got.Digest == wd.Digest:
		p.manifests.Add(1)
		p.blobs.Add(int64(len(blobs)))
		return nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	np, ok := p.b.(NamedManifestPutter)
	if !ok {
		if err := p.putManifest(ctx, wd, wb, blobs, open); err != nil {
			return err
		}
		return p.b.SetName(ctx, name, wd, wb)
	}
	p.manifests.Add(1)
	p.blobs.Add(int64(len(blobs)))
	for _, bd := range blobs {
		if err := p.ensureBlob(ctx, bd, open); err != nil {
			return err
		}
	}
	if err := np.PutNamedManifest(ctx, name, wd, wb); err != nil {
		return err
	}
	p.manifestsUp.Add(1)
	p.bytesUp.Add(wd.Size)
	return nil
}

// ensureBlob uploads a blob the remote lacks, once per push whatever the number of bundles
// sharing it.
func (p *pusher) ensureBlob(ctx context.Context, d store.Descriptor, open func(store.Descriptor) (io.ReadCloser, error)) error {
	p.mu.Lock()
	st, ok := p.present[d.Digest]
	if !ok {
		st = &blobState{}
		p.present[d.Digest] = st
	}
	p.mu.Unlock()
	st.once.Do(func() { st.err = p.uploadBlob(ctx, d, open) })
	return st.err
}

func (p *pusher) uploadBlob(ctx context.Context, d store.Descriptor, open func(store.Descriptor) (io.ReadCloser, error)) error {
	has, err := p.b.HasBlob(ctx, d)
	if err != nil || has {
		return err
	}
	rc, err := open(d)
	if err != nil {
		return fmt.Errorf("read %s from the store: %w", d.Digest, err)
	}
	defer rc.Close()
	if err := p.b.PutBlob(ctx, d, rc); err != nil {
		return err
	}
	p.blobsUp.Add(1)
	p.bytesUp.Add(d.Size)
	return nil
}

// setName points name at the manifest unless it already does.
func (p *pusher) setName(ctx context.Context, name string, wd store.Descriptor, wb []byte) error {
	got, err := p.b.ResolveName(ctx, name)
	switch {
	case err == nil && got.Digest == wd.Digest:
		return nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	return p.b.SetName(ctx, name, wd, wb)
}

// referrer is a referrer manifest to push: its bytes and descriptor, the blobs it names and
// their contents (all small: receipts, verdicts, envelopes).
type referrer struct {
	desc     store.Descriptor
	manifest []byte
	blobs    []store.Descriptor
	contents map[store.Digest][]byte
	signed   bool
}

func (r *referrer) open(d store.Descriptor) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(r.contents[d.Digest])), nil
}

// referrers plans the referrers of a bundle's wrapper: its receipts (each with its verdict)
// and the signed receipts given, in that order.
func (p *pusher) referrers(ctx context.Context, bundle store.Digest, subject store.Descriptor) ([]*referrer, error) {
	var out []*referrer
	for _, r := range p.receipts[bundle] {
		ref, err := p.receiptReferrer(ctx, bundle, subject, r)
		if err != nil {
			return nil, err
		}
		out = append(out, ref)
	}
	for _, env := range p.signed[bundle] {
		layer := store.Descriptor{MediaType: ArtifactTypeDSSE, Digest: store.Sum(env), Size: int64(len(env))}
		mb, md, err := referrerOf(ArtifactTypeDSSE, bundle, subject, []store.Descriptor{layer})
		if err != nil {
			return nil, err
		}
		out = append(out, &referrer{desc: md, manifest: mb, signed: true,
			blobs:    []store.Descriptor{emptyDescriptor(), layer},
			contents: map[store.Digest][]byte{store.Sum(emptyConfig): emptyConfig, layer.Digest: env}})
	}
	return out, nil
}

// receiptReferrer plans the referrer of a receipt: the receipt and its verdict as layers.
func (p *pusher) receiptReferrer(ctx context.Context, bundle store.Digest, subject store.Descriptor, r store.Digest) (*referrer, error) {
	rb, err := p.s.GetObject(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("receipt %s: %w", r, err)
	}
	rc, err := store.DecodeReceipt(rb)
	if err != nil {
		return nil, fmt.Errorf("receipt %s: %w", r, err)
	}
	vb, err := p.s.GetObject(ctx, rc.Verdict)
	if err != nil {
		return nil, fmt.Errorf("verdict %s of receipt %s: %w", rc.Verdict, r, err)
	}
	layers := []store.Descriptor{
		{MediaType: store.MediaTypeReceipt, Digest: r, Size: int64(len(rb))},
		{MediaType: store.MediaTypeVerdict, Digest: rc.Verdict, Size: int64(len(vb))},
	}
	mb, md, err := referrerOf(ArtifactTypeReceipt, bundle, subject, layers)
	if err != nil {
		return nil, err
	}
	return &referrer{desc: md, manifest: mb, blobs: append([]store.Descriptor{emptyDescriptor()}, layers...),
		contents: map[store.Digest][]byte{store.Sum(emptyConfig): emptyConfig, r: rb, rc.Verdict: vb}}, nil
}

func allListed(refs []*referrer, listed map[store.Digest]bool) bool {
	for _, r := range refs {
		if !listed[r.desc.Digest] {
			return false
		}
	}
	return true
}

// count adds a referrer to the report.
func (p *pusher) count(r *referrer) {
	if r.signed {
		p.signedCount.Add(1)
	} else {
		p.receiptCount.Add(1)
	}
}

// listed returns which of the referrers planned the remote lists as referrers of the wrapper.
// A referrer counts as pushed only once it is listed: its manifest alone may have been stored
// by a push stopped before the referrers index (tag schema) or entry (S3) was written.
func (p *pusher) listed(ctx context.Context, wd store.Descriptor, refs []*referrer) (map[store.Digest]bool, error) {
	out := map[store.Digest]bool{}
	if len(refs) == 0 {
		return out, nil
	}
	got, err := p.b.Referrers(ctx, wd)
	if err != nil {
		return nil, err
	}
	for _, r := range got {
		out[r.Digest] = true
	}
	return out, nil
}

// pushReferrer uploads a referrer's blobs the remote lacks, then its manifest, which indexes
// it under its subject (stored again if a stopped push left it unindexed).
func (p *pusher) pushReferrer(ctx context.Context, r *referrer) error {
	p.manifests.Add(1)
	p.blobs.Add(int64(len(r.blobs)))
	for _, bd := range r.blobs {
		if err := p.ensureBlob(ctx, bd, r.open); err != nil {
			return err
		}
	}
	if err := p.b.PutManifest(ctx, r.desc, r.manifest); err != nil {
		return err
	}
	p.manifestsUp.Add(1)
	p.bytesUp.Add(r.desc.Size)
	return nil
}

func emptyDescriptor() store.Descriptor {
	return store.Descriptor{MediaType: MediaTypeEmpty, Digest: store.Sum(emptyConfig), Size: int64(len(emptyConfig))}
}

// referrerOf is the manifest of a referrer: artifactType, the empty config, the layers, the
// subject (a wrapper) and the fixed annotations.
func referrerOf(artifactType string, bundle store.Digest, subject store.Descriptor, layers []store.Descriptor) ([]byte, store.Descriptor, error) {
	sub := toOCI(subject)
	m := &manifest{
		SchemaVersion: 2,
		MediaType:     MediaTypeManifest,
		ArtifactType:  artifactType,
		Config:        toOCI(emptyDescriptor()),
		Subject:       &sub,
		Annotations:   map[string]string{AnnotationCreated: Created, AnnotationBundle: bundle.String()},
	}
	for _, l := range layers {
		m.Layers = append(m.Layers, toOCI(l))
	}
	return encodeManifest(m)
}
