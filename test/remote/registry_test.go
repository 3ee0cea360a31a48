package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/oasis-replay/oasis-replay/demo"
	"github.com/oasis-replay/oasis-replay/remote"
	oreg "github.com/oasis-replay/oasis-replay/remote/registry"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
	"github.com/oasis-replay/oasis-replay/store/memstore"
)

// tamper lets a test change what the registry answers: a response body for a path ending in
// the given suffix gets one byte flipped.
type tamper struct {
	suffix atomic.Value // string
	hits   atomic.Int64
}

func (tp *tamper) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		suffix, _ := tp.suffix.Load().(string)
		if suffix == "" || r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, suffix) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if len(body) > 0 {
			body[len(body)/2] ^= 1
			tp.hits.Add(1)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
}

// server starts an in-process registry with the referrers API and returns a backend for repo.
func server(t *testing.T, repo string) (remote.Backend, *tamper, func(string) remote.Backend) {
	t.Helper()
	tp := &tamper{}
	srv := httptest.NewServer(tp.wrap(registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	open := func(repo string) remote.Backend {
		u, err := remote.ParseURL("oci://" + host + "/" + repo)
		if err != nil {
			t.Fatal(err)
		}
		b, err := oreg.Open(u, oreg.Options{PlainHTTP: true})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return open(repo), tp, open
}

// demoStore is a store holding the demo bundle and its receipt.
func demoStore(t *testing.T) (store.Store, store.Digest) {
	t.Helper()
	s := memstore.New()
	r, err := demo.Run(context.Background(), s, demo.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s, r.Recording.Bundle
}

func verdictOf(t *testing.T, s store.Store, d store.Digest) store.Digest {
	t.Helper()
	r, err := replay.Replay(context.Background(), s, d, replay.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return r.Receipt.Verdict
}

// TestPushPullNativeReferrers: through a registry with the referrers API, the receipt is a
// referrer found by the API (no tag-schema index is written), a second push uploads nothing,
// and the pulled bundle replays to the same verdict with its receipt.
func TestPushPullNativeReferrers(t *testing.T) {
	ctx := context.Background()
	b, _, _ := server(t, "evidence/demo")
	src, d := demoStore(t)
	rep, err := remote.Push(ctx, src, b, []store.Digest{d}, remote.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Receipts != 1 || rep.BlobsUploaded == 0 {
		t.Fatalf("first push: %+v", rep)
	}
	again, err := remote.Push(ctx, src, b, []store.Digest{d}, remote.PushOptions{})
	if err != nil || again.BlobsUploaded != 0 || again.ManifestsUploaded != 0 || again.UploadedBytes != 0 {
		t.Fatalf("second push: %+v, %v", again, err)
	}
	names, err := b.Names(ctx, "sha256-")
	if err != nil || len(names) != 0 {
		t.Errorf("tag-schema indexes on a registry with the referrers API: %q, %v", names, err)
	}
	refs, err := b.Referrers(ctx, store.Descriptor{MediaType: remote.MediaTypeManifest, Digest: rep.Bundles[0].Wrapper})
	if err != nil || len(refs) != 1 || refs[0].Digest.IsZero() {
		t.Fatalf("referrers: %+v, %v", refs, err)
	}
	dst := memstore.New()
	pulled, err := remote.Pull(ctx, dst, b, []string{d.Hex()[:6]}, remote.PullOptions{Limits: archive.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Bundles[0] != d || pulled.Receipts != 1 {
		t.Fatalf("pull: %+v", pulled)
	}
	if got, want := verdictOf(t, dst, d), verdictOf(t, src, d); got != want {
		t.Errorf("verdict after push and pull %s, want %s", got, want)
	}
	receipts, _ := dst.ListRefs(ctx, store.RefReceiptPrefix)
	if len(receipts) != 1 {
		t.Errorf("receipts pulled: %v", receipts)
	}
}

// TestWrapperDeterministic: the same bundle recorded into two stores gives the same wrapper
// manifest, pushed to two repositories.
func TestWrapperDeterministic(t *testing.T) {
	ctx := context.Background()
	_, _, open := server(t, "a")
	var wrappers []store.Digest
	for _, repo := range []string{"one/demo", "two/demo"} {
		s, d := demoStore(t)
		rep, err := remote.Push(ctx, s, open(repo), []store.Digest{d}, remote.PushOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wrappers = append(wrappers, rep.Bundles[0].Wrapper)
	}
	if wrappers[0] != wrappers[1] {
		t.Errorf("wrappers differ: %s, %s", wrappers[0], wrappers[1])
	}
}

// TestTamperedRegistry: a blob, an index.json or a manifest the registry returns altered is an
// integrity error naming it, and the store gains no bundle; a name pointing at a manifest that
// is not a bundle's wrapper is refused.
func TestTamperedRegistry(t *testing.T) {
	ctx := context.Background()
	b, tp, _ := server(t, "evidence/demo")
	src, d := demoStore(t)
	rep, err := remote.Push(ctx, src, b, []store.Digest{d}, remote.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := archive.PlanLayout(ctx, src, d, archive.ExportOptions{Tags: []string{"demo"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		target store.Digest
	}{
		{"a raw blob", l.Entries[len(l.Entries)-1].Digest},
		{"an object", l.Entries[1].Digest},
		{"index.json", store.Sum(l.Index)},
		{"the wrapper", rep.Bundles[0].Wrapper},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp.suffix.Store(tc.target.String())
			defer tp.suffix.Store("")
			dst := memstore.New()
			_, err := remote.Pull(ctx, dst, b, []string{d.String()}, remote.PullOptions{Limits: archive.DefaultLimits()})
			if !errors.Is(err, remote.ErrIntegrity) || !strings.Contains(err.Error(), tc.target.String()) {
				t.Fatalf("pull: %v; want an integrity error naming %s", err, tc.target)
			}
			if refs, _ := dst.ListRefs(ctx, store.RefBundlePrefix); len(refs) != 0 {
				t.Errorf("the store holds %v after a failed pull", refs)
			}
		})
	}
	// A receipt referrer manifest put under the bundle's name.
	refs, err := b.Referrers(ctx, store.Descriptor{MediaType: remote.MediaTypeManifest, Digest: rep.Bundles[0].Wrapper})
	if err != nil || len(refs) != 1 {
		t.Fatal(refs, err)
	}
	mb, err := b.GetManifest(ctx, refs[0].Descriptor)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetName(ctx, remote.BundleName(d), refs[0].Descriptor, mb); err != nil {
		t.Fatal(err)
	}
	_, err = remote.Pull(ctx, memstore.New(), b, []string{d.String()}, remote.PullOptions{Limits: archive.DefaultLimits()})
	if !errors.Is(err, remote.ErrIntegrity) || !bytes.Contains([]byte(err.Error()), []byte("artifactType")) {
		t.Fatalf("pull of a name pointing at a receipt referrer: %v", err)
	}
}

// TestResolve: a tag, a unique prefix and a full digest resolve; an unknown one is not found.
func TestResolve(t *testing.T) {
	ctx := context.Background()
	b, _, _ := server(t, "evidence/demo")
	src, d := demoStore(t)
	rep, err := remote.Push(ctx, src, b, []store.Digest{d}, remote.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"demo", d.Hex()[:4], d.String(), d.Hex(), rep.Bundles[0].Wrapper.String()} {
		got, err := remote.Resolve(ctx, b, ref)
		if err != nil || got.Digest != rep.Bundles[0].Wrapper {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, got.Digest, err, rep.Bundles[0].Wrapper)
		}
	}
	// Pulled by the wrapper's own digest.
	dst := memstore.New()
	pulled, err := remote.Pull(ctx, dst, b, []string{rep.Bundles[0].Wrapper.String()}, remote.PullOptions{Limits: archive.DefaultLimits()})
	if err != nil || pulled.Bundles[0] != d {
		t.Errorf("pull by the wrapper's digest: %+v, %v", pulled, err)
	}
	for _, ref := range []string{"nosuchtag", "ffff", store.Sum([]byte("x")).String()} {
		if _, err := remote.Resolve(ctx, b, ref); !errors.Is(err, remote.ErrNotFound) {
			t.Errorf("Resolve(%q): %v, want ErrNotFound", ref, err)
		}
	}
}
