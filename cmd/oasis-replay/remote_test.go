package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/remote/bucket"
	"github.com/oasis-replay/oasis-replay/remote/registry"
	"github.com/oasis-replay/oasis-replay/remote/remotetest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// remoteServer is a real server a test pushes to: its URL, the flags a command needs for it,
// and the file on the server's disk that holds a blob (for tampering).
type remoteServer struct {
	url      string
	flags    []string
	blobFile func(hex string) string
	open     func(t *testing.T) remote.Backend
}

// remoteServers starts one registry and one S3 gateway for a test, skipping those whose
// program is not installed.
func remoteServers(t *testing.T) map[string]func(t *testing.T) remoteServer {
	return map[string]func(t *testing.T) remoteServer{
		"registry": func(t *testing.T) remoteServer {
			r := remotetest.StartRegistry(t)
			u := "oci://" + r.Host + "/evidence/runs"
			return remoteServer{url: u, flags: []string{"--plain-http"}, blobFile: r.BlobFile, open: func(t *testing.T) remote.Backend {
				pu, _ := remote.ParseURL(u)
				b, err := registry.Open(pu, registry.Options{PlainHTTP: true})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}}
		},
		"s3": func(t *testing.T) remoteServer {
			s := remotetest.StartS3(t, "evidence")
			s.Env(t)
			u := "s3://evidence/team/runs"
			return remoteServer{url: u, blobFile: func(hex string) string {
				return filepath.Join(s.Root, "evidence", "team", "runs", "blobs", "sha256", hex)
			}, open: func(t *testing.T) remote.Backend {
				pu, _ := remote.ParseURL(u)
				b, err := bucket.Open(pu, bucket.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}}
		},
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	status, stdout, stderr := runArgs(args...)
	if status != exitOK {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), status, stdout, stderr)
	}
	return stdout
}

var remoteVerdictLine = regexp.MustCompile(`(?m)^\s*verdict\s+(sha256:[0-9a-f]{64})`)

// replayVerdict replays the demo bundle in store and returns its verdict digest.
func replayVerdict(t *testing.T, storeDir, bundle string) string {
	t.Helper()
	out := mustRun(t, "--store", storeDir, "replay", bundle)
	m := remoteVerdictLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no verdict line in\n%s", out)
	}
	return m[1]
}

// demoStore records the demo bundle into a new store and replays it once (storing its
// receipt); it returns the store and the bundle digest.
func remoteDemoStore(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	mustRun(t, "--store", dir, "demo")
	s, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := store.Resolve(context.Background(), s, "demo")
	if err != nil {
		t.Fatal(err)
	}
	return dir, d.String()
}

// TestRemotePushPullReplay: on a real registry and a real S3 gateway, a bundle pushed, pushed
// again (nothing uploaded), and pulled into an empty store replays to the same verdict, and
// its receipt comes with it.
func TestRemotePushPullReplay(t *testing.T) {
	for name, startServer := range remoteServers(t) {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			srv := startServer(t)
			src, bundle := remoteDemoStore(t)
			want := replayVerdict(t, src, "demo")
			mustRun(t, "--store", src, "remote", "add", "origin", srv.url)
			if len(srv.flags) > 0 {
				mustRun(t, "--store", src, "remote", "rm", "origin")
				mustRun(t, append([]string{"--store", src, "remote", "add", "origin", srv.url}, srv.flags...)...)
			}
			if out := mustRun(t, "--store", src, "remote", "ls"); !strings.HasPrefix(out, "origin\t"+srv.url) {
				t.Errorf("remote ls: %q", out)
			}
			key := filepath.Join(t.TempDir(), "signer.key")
			signed := filepath.Join(t.TempDir(), "signed.json")
			mustRun(t, "--store", src, "receipt", "keygen", "-o", key)
			mustRun(t, "--store", src, "replay", "--sign", key, "--receipt", signed, "demo")
			out := mustRun(t, "--store", src, "bundle", "push", "origin", "demo", "--signed-receipt", signed)
			if !strings.Contains(out, "1 receipts, 1 signed") {
				t.Errorf("first push: %s", out)
			}
			checkMatrixPush(t, src, srv.open(t))
			mustRun(t, "--store", src, "bundle", "push", "origin", "--all")
			out = mustRun(t, "--store", src, "bundle", "push", "origin", "--all")
			if !strings.Contains(out, ": 0 of ") || !strings.Contains(out, " and 0 of ") {
				t.Errorf("second push uploaded something: %s", out)
			}
			dst := filepath.Join(t.TempDir(), "pulled")
			envelopes := filepath.Join(t.TempDir(), "envelopes")
			args := append([]string{"--store", dst, "bundle", "pull", "--tags", "--signed-receipts", envelopes}, srv.flags...)
			out = mustRun(t, append(args, srv.url, bundle[len("sha256:"):len("sha256:")+8])...)
			if !strings.HasPrefix(out, bundle+"\n") || !strings.Contains(out, "1 receipts, 1 signed") {
				t.Errorf("pull: %s", out)
			}
			if got := replayVerdict(t, dst, "demo"); got != want {
				t.Errorf("verdict after push and pull %s, want %s", got, want)
			}
			pulledEnvelopes, _ := filepath.Glob(filepath.Join(envelopes, "*.dsse.json"))
			if len(pulledEnvelopes) != 1 {
				t.Fatalf("signed receipts pulled: %q", pulledEnvelopes)
			}
			mustRun(t, "--store", dst, "receipt", "verify", "--key", key+".pub", "--bundle", bundle, pulledEnvelopes[0])
			// replay, audit and receipt verify --bundle take REMOTE@REF and pull first.
			fourth := filepath.Join(t.TempDir(), "fourth")
			mustRun(t, "--store", fourth, "remote", "rm", "origin")
			mustRun(t, append([]string{"--store", fourth, "remote", "add", "up", srv.url}, srv.flags...)...)
			if got := replayVerdict(t, fourth, "up@"+bundle); got != want {
				t.Errorf("replay up@%s: verdict %s, want %s", bundle, got, want)
			}
			fifth := filepath.Join(t.TempDir(), "fifth")
			mustRun(t, "--store", fifth, "audit", srv.url+"@"+bundle)
			sixth := filepath.Join(t.TempDir(), "sixth")
			mustRun(t, "--store", sixth, "receipt", "verify", "--key", key+".pub", "--bundle", srv.url+"@"+bundle, signed)
			// Every bundle the remote names, into a store of its own.
			everything := filepath.Join(t.TempDir(), "everything")
			out = mustRun(t, append(append([]string{"--store", everything, "bundle", "pull", "--all"}, srv.flags...), srv.url)...)
			if !strings.Contains(out, bundle+"\n") || strings.Contains(out, "pulled 1 bundles") {
				t.Errorf("pull --all: %s", out)
			}
			// By tag and by a URL@digest reference, into a third store.
			third := filepath.Join(t.TempDir(), "third")
			mustRun(t, append(append([]string{"--store", third, "bundle", "pull"}, srv.flags...), srv.url, "demo")...)
			mustRun(t, "--store", third, "bundle", "verify", bundle)
		})
	}
}

// TestRemoteTampered: a blob changed on the server's disk after the push makes the pull an
// integrity error (exit 1) naming the blob, and the store gains no bundle.
func TestRemoteTampered(t *testing.T) {
	for name, startServer := range remoteServers(t) {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			srv := startServer(t)
			src, bundle := remoteDemoStore(t)
			mustRun(t, append(append([]string{"--store", src, "bundle", "push"}, srv.flags...), srv.url, "demo")...)
			victim := largestBlob(t, src, bundle)
			file := srv.blobFile(victim.Hex())
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			if err := os.WriteFile(file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(t.TempDir(), "pulled")
			status, _, stderr := runArgs(append(append([]string{"--store", dst, "bundle", "pull"}, srv.flags...), srv.url, bundle)...)
			if status != exitMismatch || !strings.Contains(stderr, victim.String()) || !strings.Contains(stderr, "integrity") {
				t.Fatalf("pull of a tampered remote: exit %d, stderr %q; want exit 1 naming %s", status, stderr, victim)
			}
			if status, _, _ := runArgs("--store", dst, "bundle", "verify", bundle); status == exitOK {
				t.Error("the store holds the bundle after a failed pull")
			}
		})
	}
}

// largestBlob is the largest raw blob of the bundle: tampering with it changes evidence.
func largestBlob(t *testing.T, dir, bundle string) store.Digest {
	t.Helper()
	s, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, _ := store.ParseDigest(bundle)
	entries, err := store.Reachable(context.Background(), s, d)
	if err != nil {
		t.Fatal(err)
	}
	var best store.Entry
	for _, e := range entries {
		if e.Kind == "" && e.Size > best.Size {
			best = e
		}
	}
	return best.Digest
}

// failing is a Backend that fails its n-th write (blob, manifest or name), as a push killed
// at that point would stop, and its n-th read, as a pull would.
type failing struct {
	remote.Backend
	writes, reads atomic.Int64
	failWrite     int64
	failRead      int64
}

var errInjected = errors.New("injected failure")

func (f *failing) write() error {
	if f.writes.Add(1) == f.failWrite {
		return errInjected
	}
	return nil
}

func (f *failing) PutBlob(ctx context.Context, d store.Descriptor, r io.Reader) error {
	if err := f.write(); err != nil {
		return err
	}
	return f.Backend.PutBlob(ctx, d, r)
}

func (f *failing) PutManifest(ctx context.Context, d store.Descriptor, b []byte) error {
	if err := f.write(); err != nil {
		return err
	}
	return f.Backend.PutManifest(ctx, d, b)
}

func (f *failing) SetName(ctx context.Context, name string, d store.Descriptor, b []byte) error {
	if err := f.write(); err != nil {
		return err
	}
	return f.Backend.SetName(ctx, name, d, b)
}

func (f *failing) OpenBlob(ctx context.Context, d store.Descriptor) (io.ReadCloser, error) {
	if f.reads.Add(1) == f.failRead {
		return nil, errInjected
	}
	return f.Backend.OpenBlob(ctx, d)
}

// TestRemoteInterrupted: a push that stops at its n-th write, for every n, leaves a remote that
// names no incomplete bundle (a pull either finds no bundle or gets all of it), and running the
// push again finishes it; a pull that stops at its n-th download leaves the store without the
// bundle (or, stopped at a receipt, with the whole bundle), and running it again finishes it. The bundle then replays to the same verdict.
func TestRemoteInterrupted(t *testing.T) {
	for name, startServer := range remoteServers(t) {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			srv := startServer(t)
			src, bundle := remoteDemoStore(t)
			want := replayVerdict(t, src, "demo")
			d, _ := store.ParseDigest(bundle)
			ctx := context.Background()
			s, err := badgerstore.Open(src, badgerstore.Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for n := int64(1); ; n += 7 {
				f := &failing{Backend: srv.open(t), failWrite: n}
				_, err := remote.Push(ctx, s, f, []store.Digest{d}, remote.PushOptions{})
				if err == nil {
					break
				}
				if !errors.Is(err, errInjected) {
					t.Fatalf("push failing at write %d: %v", n, err)
				}
				// What the remote names is complete: pulling it must work or find nothing.
				if _, err := remote.Resolve(ctx, srv.open(t), bundle); err == nil {
					checkPull(t, srv.open(t), bundle, want)
				} else if !errors.Is(err, remote.ErrNotFound) {
					t.Fatalf("after a push stopped at write %d: %v", n, err)
				}
			}
			rep, err := remote.Push(ctx, s, srv.open(t), []store.Digest{d}, remote.PushOptions{})
			if err != nil || rep.BlobsUploaded != 0 || rep.ManifestsUploaded != 0 {
				t.Fatalf("push after the interrupted ones: %+v, %v; want nothing uploaded", rep, err)
			}
			dst := filepath.Join(t.TempDir(), "pulled")
			ds := openRW(t, dst)
			for n := int64(1); ; n += 5 {
				f := &failing{Backend: srv.open(t), failRead: n}
				_, err := remote.Pull(ctx, ds, f, []string{bundle}, remote.PullOptions{})
				if err == nil {
					break
				}
				if !errors.Is(err, errInjected) {
					t.Fatalf("pull failing at read %d: %v", n, err)
				}
				// Stopped before sealing: no bundle. Stopped after (at a receipt): the bundle
				// is complete.
				if _, err := ds.GetRef(ctx, store.BundleRefName(d)); err == nil {
					if _, err := store.VerifyBundle(ctx, ds, d); err != nil {
						t.Fatalf("pull stopped at read %d sealed an incomplete bundle: %v", n, err)
					}
				} else if !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
			}
			ds.Close()
			if got := replayVerdict(t, dst, bundle); got != want {
				t.Errorf("verdict %s after interrupted pulls, want %s", got, want)
			}
		})
	}
}

func openRW(t *testing.T, dir string) store.Store {
	t.Helper()
	s, err := badgerstore.Open(dir, badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkPull pulls bundle into a new store and replays it.
func checkPull(t *testing.T, b remote.Backend, bundle, want string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("check-%d", len(bundle)))
	s := openRW(t, dir)
	_, err := remote.Pull(context.Background(), s, b, []string{bundle}, remote.PullOptions{})
	s.Close()
	if err != nil {
		t.Fatalf("a bundle the remote names does not pull: %v", err)
	}
	if got := replayVerdict(t, dir, bundle); got != want {
		t.Fatalf("verdict %s, want %s", got, want)
	}
	os.RemoveAll(dir)
}

// checkMatrixPush: pushing an Eval Library matrix alone pushes its run bundles first, each
// named on the remote as a bundle of its own.
func checkMatrixPush(t *testing.T, dir string, b remote.Backend) {
	t.Helper()
	ctx := context.Background()
	s, err := badgerstore.Open(dir, badgerstore.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	refs, err := s.ListRefs(ctx, store.RefBundlePrefix)
	if err != nil {
		t.Fatal(err)
	}
	var matrix store.Digest
	for _, r := range refs {
		m, err := store.LoadBundleManifest(ctx, s, r.Digest)
		if err == nil && store.HoldsBundles(m.ObjectKind()) {
			matrix = r.Digest
		}
	}
	if matrix.IsZero() {
		t.Fatal("the demo store holds no matrix")
	}
	rep, err := remote.Push(ctx, s, b, []store.Digest{matrix}, remote.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Bundles) < 2 || rep.Bundles[len(rep.Bundles)-1].Bundle != matrix {
		t.Fatalf("pushing the matrix pushed %d bundles, the matrix last: %+v", len(rep.Bundles), rep.Bundles)
	}
	for _, p := range rep.Bundles {
		if got, err := remote.Resolve(ctx, b, p.Bundle.String()); err != nil || got.Digest != p.Wrapper {
			t.Errorf("run bundle %s on the remote: %s, %v", p.Bundle, got.Digest, err)
		}
	}
}
