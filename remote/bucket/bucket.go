package bucket

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/store"
)

// Options tune Open.
type Options struct {
	// PlainHTTP talks HTTP to the endpoint even when AWS_ENDPOINT_URL does not say http://.
	PlainHTTP bool
	// Transport, if set, carries the requests (tests count them).
	Transport http.RoundTripper
}

// Bucket is a bucket and prefix of S3, as a remote.Backend.
type Bucket struct {
	c      *minio.Client
	bucket string
	prefix string
	url    string
}

// Open returns the backend of the bucket u names, with the endpoint, region and credentials of
// the environment.
func Open(u remote.URL, opts Options) (*Bucket, error) {
	endpoint, secure, lookup := "s3.amazonaws.com", !opts.PlainHTTP, minio.BucketLookupAuto
	if e := firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"); e != "" {
		eu, err := url.Parse(e)
		if err != nil || eu.Host == "" || (eu.Scheme != "http" && eu.Scheme != "https") {
			return nil, fmt.Errorf("%w: AWS_ENDPOINT_URL %q is not http(s)://HOST[:PORT]", remote.ErrConfig, e)
		}
		endpoint, secure, lookup = eu.Host, eu.Scheme == "https" && !opts.PlainHTTP, minio.BucketLookupPath
	}
	region := firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
	if region == "" {
		region = "us-east-1"
	}
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{Profile: os.Getenv("AWS_PROFILE")},
	})
	c, err := minio.New(endpoint, &minio.Options{
		Creds: creds, Secure: secure, Region: region, BucketLookup: lookup, Transport: opts.Transport,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", remote.ErrConfig, u, err)
	}
	return &Bucket{c: c, bucket: u.Bucket, prefix: u.Prefix, url: u.String()}, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func (b *Bucket) String() string { return b.url }

func (b *Bucket) key(parts ...string) string {
	if b.prefix == "" {
		return path.Join(parts...)
	}
	return path.Join(append([]string{b.prefix}, parts...)...)
}

func blobKey(d store.Digest) []string     { return []string{"blobs", "sha256", d.Hex()} }
func manifestKey(d store.Digest) []string { return []string{"manifests", "sha256", d.Hex()} }

func notFound(err error) bool {
	r := minio.ToErrorResponse(err)
	return r.StatusCode == http.StatusNotFound || r.Code == "NoSuchKey"
}

func (b *Bucket) wrap(err error, key string) error {
	switch {
	case err == nil:
		return nil
	case notFound(err):
		return fmt.Errorf("%w: s3://%s/%s: %w", remote.ErrNotFound, b.bucket, key, err)
	case minio.ToErrorResponse(err).StatusCode == http.StatusPreconditionFailed:
		return fmt.Errorf("%w: s3://%s/%s changed meanwhile (run the command again): %w", remote.ErrConflict, b.bucket, key, err)
	}
	return fmt.Errorf("s3://%s/%s: %w", b.bucket, key, err)
}

func (b *Bucket) exists(ctx context.Context, key string) (bool, error) {
	_, err := b.c.StatObject(ctx, b.bucket, key, minio.StatObjectOptions{})
	if notFound(err) {
		return false, nil
	}
	return err == nil, b.wrap(err, key)
}

func (b *Bucket) put(ctx context.Context, key string, r io.Reader, size int64, opts minio.PutObjectOptions) error {
	_, err := b.c.PutObject(ctx, b.bucket, key, r, size, opts)
	return b.wrap(err, key)
}

func (b *Bucket) get(ctx context.Context, key string) (io.ReadCloser, error) {
	o, err := b.c.GetObject(ctx, b.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, b.wrap(err, key)
	}
	// GetObject is lazy: the first Stat makes the request and reports a missing key.
	if _, err := o.Stat(); err != nil {
		o.Close()
		return nil, b.wrap(err, key)
	}
	return o, nil
}

func (b *Bucket) getSmall(ctx context.Context, key string) ([]byte, error) {
	rc, err := b.get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, 4<<20+1))
	return data, b.wrap(err, key)
}

func (b *Bucket) HasBlob(ctx context.Context, d store.Descriptor) (bool, error) {
	return b.exists(ctx, b.key(blobKey(d.Digest)...))
}

func (b *Bucket) PutBlob(ctx context.Context, d store.Descriptor, r io.Reader) error {
	return b.put(ctx, b.key(blobKey(d.Digest)...), r, d.Size, minio.PutObjectOptions{ContentType: "application/octet-stream"})
}

func (b *Bucket) OpenBlob(ctx context.Context, d store.Descriptor) (io.ReadCloser, error) {
	return b.get(ctx, b.key(blobKey(d.Digest)...))
}

func (b *Bucket) HasManifest(ctx context.Context, d store.Descriptor) (bool, error) {
	return b.exists(ctx, b.key(manifestKey(d.Digest)...))
}

// PutManifest writes the manifest, then, for a referrer, its entry under its subject: the
// entry names only a manifest already written.
func (b *Bucket) PutManifest(ctx context.Context, d store.Descriptor, data []byte) error {
	key := b.key(manifestKey(d.Digest)...)
	if err := b.put(ctx, key, bytes.NewReader(data), d.Size, minio.PutObjectOptions{ContentType: remote.MediaTypeManifest}); err != nil {
		return err
	}
	var m struct {
		ArtifactType string `json:"artifactType"`
		Subject      *struct {
			Digest string `json:"digest"`
		} `json:"subject"`
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Subject == nil {
		return nil
	}
	sub, err := store.ParseDigest(m.Subject.Digest)
	if err != nil {
		return fmt.Errorf("%w: manifest %s: subject: %w", remote.ErrIntegrity, d.Digest, err)
	}
	entry, _ := json.Marshal(referrerEntry{MediaType: d.MediaType, Digest: d.Digest.String(), Size: d.Size, ArtifactType: m.ArtifactType})
	rkey := b.key("referrers", "sha256", sub.Hex(), d.Digest.Hex())
	return b.put(ctx, rkey, bytes.NewReader(entry), int64(len(entry)), minio.PutObjectOptions{ContentType: "application/json"})
}

func (b *Bucket) GetManifest(ctx context.Context, d store.Descriptor) ([]byte, error) {
	return b.getSmall(ctx, b.key(manifestKey(d.Digest)...))
}

// referrerEntry is the content of a tags/ or referrers/ key: a descriptor.
type referrerEntry struct {
	MediaType    string `json:"mediaType"`
	Digest       string `json:"digest"`
	Size         int64  `json:"size"`
	ArtifactType string `json:"artifactType,omitempty"`
}

func (e referrerEntry) descriptor(key string) (store.Descriptor, error) {
	d, err := store.ParseDigest(e.Digest)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("%w: %s: %w", remote.ErrIntegrity, key, err)
	}
	return store.Descriptor{MediaType: e.MediaType, Digest: d, Size: e.Size}, nil
}

// SetName writes tags/<name> with one conditional PUT: If-None-Match: * when the name is new,
// If-Match: the ETag read when it moves.
func (b *Bucket) SetName(ctx context.Context, name string, d store.Descriptor, _ []byte) error {
	key := b.key("tags", name)
	entry, _ := json.Marshal(referrerEntry{MediaType: d.MediaType, Digest: d.Digest.String(), Size: d.Size})
	opts := minio.PutObjectOptions{ContentType: "application/json"}
	info, err := b.c.StatObject(ctx, b.bucket, key, minio.StatObjectOptions{})
	switch {
	case notFound(err):
		opts.SetMatchETagExcept("*")
	case err != nil:
		return b.wrap(err, key)
	default:
		opts.SetMatchETag(info.ETag)
	}
	return b.put(ctx, key, bytes.NewReader(entry), int64(len(entry)), opts)
}

func (b *Bucket) ResolveName(ctx context.Context, name string) (store.Descriptor, error) {
	key := b.key("tags", name)
	data, err := b.getSmall(ctx, key)
	if err != nil {
		return store.Descriptor{}, err
	}
	var e referrerEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return store.Descriptor{}, fmt.Errorf("%w: s3://%s/%s: %w", remote.ErrIntegrity, b.bucket, key, err)
	}
	return e.descriptor(key)
}

func (b *Bucket) list(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	for o := range b.c.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			if notFound(o.Err) {
				return nil, nil
			}
			return nil, b.wrap(o.Err, prefix)
		}
		keys = append(keys, o.Key)
	}
	slices.Sort(keys)
	return keys, nil
}

func (b *Bucket) Names(ctx context.Context, prefix string) ([]string, error) {
	dir := b.key("tags") + "/"
	keys, err := b.list(ctx, dir+prefix)
	for i := range keys {
		keys[i] = strings.TrimPrefix(keys[i], dir)
	}
	return keys, err
}

func (b *Bucket) Referrers(ctx context.Context, d store.Descriptor) ([]remote.Referrer, error) {
	keys, err := b.list(ctx, b.key("referrers", "sha256", d.Digest.Hex())+"/")
	if err != nil {
		return nil, err
	}
	var out []remote.Referrer
	for _, k := range keys {
		data, err := b.getSmall(ctx, k)
		if err != nil {
			if errors.Is(err, remote.ErrNotFound) {
				continue
			}
			return nil, err
		}
		var e referrerEntry
		if err := json.Unmarshal(data, &e); err != nil {
			return nil, fmt.Errorf("%w: s3://%s/%s: %w", remote.ErrIntegrity, b.bucket, k, err)
		}
		rd, err := e.descriptor(k)
		if err != nil {
			return nil, err
		}
		out = append(out, remote.Referrer{Descriptor: rd, ArtifactType: e.ArtifactType})
	}
	return out, nil
}
