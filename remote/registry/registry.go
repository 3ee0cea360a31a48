package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/errcode"
	"oras.land/oras-go/v2/registry/remote/retry"

	oremote "github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
)

// Options tune Open.
type Options struct {
	// PlainHTTP talks HTTP, not HTTPS.
	PlainHTTP bool
	// HTTPClient, if set, carries the requests (tests count them); else a retrying client.
	HTTPClient *http.Client
}

// Registry is a repository of an OCI registry, as a remote.Backend.
type Registry struct {
	repo *remote.Repository
	url  string
	// probe asks the registry once whether it has the referrers API, before the first
	// referrer is pushed (see PutManifest).
	probe sync.Once
}

// Open returns the backend of the repository u names. Credentials are read from the Docker
// credentials file; a missing file means anonymous access.
func Open(u oremote.URL, opts Options) (*Registry, error) {
	repo, err := remote.NewRepository(u.Host + "/" + u.Repository)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", oremote.ErrURL, u, err)
	}
	repo.PlainHTTP = opts.PlainHTTP
	// Registries whose manifests cannot be deleted (distribution with deletes disabled) would
	// fail the clean-up of a replaced referrers index; the old index is left as garbage.
	repo.SkipReferrersGC = true
	creds, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		return nil, fmt.Errorf("%w: Docker credentials file: %w", oremote.ErrConfig, err)
	}
	hc := opts.HTTPClient
	if hc == nil {
		// Push and pull keep several requests in flight: keep as many connections open (Go's
		// default keeps two per host and closes the others after each request).
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = 32
		hc = &http.Client{Transport: retry.NewTransport(t)}
	}
	repo.Client = &auth.Client{
		Client:     hc,
		Cache:      auth.NewCache(),
		Credential: credentials.Credential(creds),
	}
	return &Registry{repo: repo, url: u.String()}, nil
}

func (r *Registry) String() string { return r.url }

func oci(d store.Descriptor) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: d.MediaType, Digest: digest.Digest(d.Digest.String()), Size: d.Size}
}

func fromOCI(d ocispec.Descriptor) (store.Descriptor, error) {
	dg, err := store.ParseDigest(d.Digest.String())
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("%w: %w", oremote.ErrIntegrity, err)
	}
	return store.Descriptor{MediaType: d.MediaType, Digest: dg, Size: d.Size}, nil
}

// wrap gives oras's not-found the remote package's class.
func (r *Registry) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return fmt.Errorf("%w: %s on %s: %w", oremote.ErrNotFound, what, r.url, err)
	}
	return fmt.Errorf("%s on %s: %w", what, r.url, err)
}

func (r *Registry) HasBlob(ctx context.Context, d store.Descriptor) (bool, error) {
	ok, err := r.repo.Blobs().Exists(ctx, oci(d))
	return ok, r.wrap(err, "blob "+d.Digest.String())
}

func (r *Registry) PutBlob(ctx context.Context, d store.Descriptor, rd io.Reader) error {
	err := r.repo.Blobs().Push(ctx, oci(d), rd)
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return r.wrap(err, "upload blob "+d.Digest.String())
}

func (r *Registry) OpenBlob(ctx context.Context, d store.Descriptor) (io.ReadCloser, error) {
	rc, err := r.repo.Blobs().Fetch(ctx, oci(d))
	return rc, r.wrap(err, "blob "+d.Digest.String())
}

func (r *Registry) HasManifest(ctx context.Context, d store.Descriptor) (bool, error) {
	d.MediaType = oremote.MediaTypeManifest
	ok, err := r.repo.Manifests().Exists(ctx, oci(d))
	return ok, r.wrap(err, "manifest "+d.Digest.String())
}

// PutManifest pushes a manifest. Before the first one with a subject, the registry is asked
// whether it has the referrers API (a GET of the referrers of the subject): oras-go otherwise
// decides from an OCI-Subject header on the push's answer, which some registries with the API
// do not send, and would keep a tag-schema index there too.
func (r *Registry) PutManifest(ctx context.Context, d store.Descriptor, b []byte) error {
	if bytes.Contains(b, []byte(`"subject":`)) {
		r.probe.Do(func() {
			_ = r.repo.Referrers(ctx, ocispec.Descriptor{MediaType: oremote.MediaTypeManifest, Digest: digest.FromBytes(b), Size: int64(len(b))}, "", func([]ocispec.Descriptor) error { return nil })
		})
	}
	err := retryBlobRace(ctx, func() error { return r.repo.Manifests().Push(ctx, oci(d), bytes.NewReader(b)) })
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return r.wrap(err, "upload manifest "+d.Digest.String())
}

// blobRaceWaits are the waits before the attempts after the first of a manifest push the
// registry refused for a blob it had said it held (retryBlobRace).
var blobRaceWaits = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, time.Second}

// retryBlobRace runs push again, a few times, while the registry refuses the manifest for a
// blob: when several clients upload the same blob at once (the shards of one run pushing the
// bundles they share), distribution 2.8 rewrites the blob's link file in the repository at each
// commit, and a manifest checked meanwhile reads it empty ("digest invalid", "manifest blob
// unknown"). Every blob was found or uploaded before the manifest is pushed, so the refusal
// passes; a blob really missing is still an error after the last attempt.
func retryBlobRace(ctx context.Context, push func() error) error {
	err := push()
	for _, wait := range blobRaceWaits {
		if !blobRace(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		err = push()
	}
	return err
}

func blobRace(err error) bool {
	var resp *errcode.ErrorResponse
	if !errors.As(err, &resp) || resp.StatusCode != http.StatusBadRequest {
		return false
	}
	for _, e := range resp.Errors {
		if e.Code == "MANIFEST_BLOB_UNKNOWN" || e.Code == "BLOB_UNKNOWN" || e.Code == "DIGEST_INVALID" {
			return true
		}
	}
	return false
}

// GetManifest reads a manifest by digest. The size is not known when the manifest was named by
// digest alone, so the read is bounded instead; the caller checks the digest.
func (r *Registry) GetManifest(ctx context.Context, d store.Descriptor) ([]byte, error) {
	_, rc, err := r.repo.Manifests().FetchReference(ctx, d.Digest.String())
	if err != nil {
		return nil, r.wrap(err, "manifest "+d.Digest.String())
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 4<<20+1))
	return b, r.wrap(err, "manifest "+d.Digest.String())
}

func (r *Registry) SetName(ctx context.Context, name string, d store.Descriptor, b []byte) error {
	err := retryBlobRace(ctx, func() error { return r.repo.Manifests().PushReference(ctx, oci(d), bytes.NewReader(b), name) })
	return r.wrap(err, "tag "+name)
}

// PutNamedManifest stores a manifest and tags it in one PUT by tag (a manifest without a
// subject: wrappers).
func (r *Registry) PutNamedManifest(ctx context.Context, name string, d store.Descriptor, b []byte) error {
	return r.SetName(ctx, name, d, b)
}

func (r *Registry) ResolveName(ctx context.Context, name string) (store.Descriptor, error) {
	d, err := r.repo.Manifests().Resolve(ctx, name)
	if err != nil {
		return store.Descriptor{}, r.wrap(err, "tag "+name)
	}
	return fromOCI(d)
}

func (r *Registry) Names(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	err := r.repo.Tags(ctx, "", func(tags []string) error {
		for _, t := range tags {
			if strings.HasPrefix(t, prefix) {
				out = append(out, t)
			}
		}
		return nil
	})
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound || errors.Is(err, errdef.ErrNotFound) {
		// A repository nothing was pushed to yet (distribution answers 404 NAME_UNKNOWN): it
		// names nothing, as the first shard of a sharded run finds it.
		return nil, nil
	}
	slices.Sort(out)
	return out, r.wrap(err, "tag list")
}

func (r *Registry) Referrers(ctx context.Context, d store.Descriptor) ([]oremote.Referrer, error) {
	d.MediaType = oremote.MediaTypeManifest
	var out []oremote.Referrer
	err := r.repo.Referrers(ctx, oci(d), "", func(refs []ocispec.Descriptor) error {
		for _, ref := range refs {
			sd, err := fromOCI(ref)
			if err != nil {
				return err
			}
			out = append(out, oremote.Referrer{Descriptor: sd, ArtifactType: ref.ArtifactType})
		}
		return nil
	})
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound || errors.Is(err, errdef.ErrNotFound) {
		return nil, nil // a repository that does not exist yet has no referrers
	}
	if err != nil {
		return nil, r.wrap(err, "referrers of "+d.Digest.String())
	}
	slices.SortFunc(out, func(a, b oremote.Referrer) int { return a.Digest.Compare(b.Digest) })
	return slices.CompactFunc(out, func(a, b oremote.Referrer) bool { return a.Digest == b.Digest }), nil
}
