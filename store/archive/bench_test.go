package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// The benchmarks move a bundle of a 256 MiB audit log plus the small objects and blobs of the
// synthetic bundle. MB/s counts the bundle's uncompressed content. Set OASIS_REPLAY_BENCH_DIR to
// also write the archive and its tar stream there, for side-by-side runs of sha256sum and
// tar | zstd on the same bytes.

const benchBlobSize = 256 << 20

var benchData = sync.OnceValues(func() (benchFixture, error) { return makeBenchFixture() })

type benchFixture struct {
	bundle  testBundle
	archive []byte
	content int64
}

func benchSetup(b *testing.B) benchFixture {
	b.Helper()
	f, err := benchData()
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func makeBenchFixture() (benchFixture, error) {
	t := &testing.T{}
	tb := buildSyntheticBundle(t)
	big := putBlob(t, tb.s, store.MediaTypeK8sAuditEvents, auditLines(benchBlobSize))
	m, err := store.DecodeManifest(tb.s.bytesOf(tb.bundle))
	if err != nil {
		return benchFixture{}, err
	}
	ev, err := store.DecodeScenarioEvidence(tb.s.bytesOf(m.Scenarios[0].Evidence.Digest))
	if err != nil {
		return benchFixture{}, err
	}
	ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog,
		Source: &store.EvidenceSource{Type: "audit_log_file", Status: store.StatusAvailable}, Data: big})
	evDesc := putObject(t, tb.s, ev)
	m.Scenarios[0].Evidence = &evDesc
	manifest := putObject(t, tb.s, m)
	sealBundle(t, tb.s, manifest.Digest)
	tb.bundle = manifest.Digest

	var buf bytes.Buffer
	sum, err := Export(context.Background(), tb.s, tb.bundle, &buf, ExportOptions{})
	if err != nil {
		return benchFixture{}, err
	}
	f := benchFixture{bundle: tb, archive: buf.Bytes(), content: sum.ContentBytes}
	if dir := os.Getenv("OASIS_REPLAY_BENCH_DIR"); dir != "" {
		plain, err := decodeAll(f.archive)
		if err != nil {
			return f, err
		}
		if err := os.WriteFile(filepath.Join(dir, "bundle.tar"), plain, 0o644); err != nil {
			return f, err
		}
		if err := os.WriteFile(filepath.Join(dir, "bundle.tar.zst"), f.archive, 0o644); err != nil {
			return f, err
		}
	}
	return f, nil
}

// auditLines is n bytes of Kubernetes audit events, one JSON document per line, with the
// variety of a real log (verbs, users, namespaces, names, IDs, times), from a fixed seed.
func auditLines(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	verbs := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	users := []string{"system:serviceaccount:oasis-agents:scripted-agent", "system:kube-controller-manager", "system:node:kind-worker", "kubernetes-admin"}
	namespaces := []string{"frontend", "payments", "kube-system", "monitoring"}
	resources := []string{"pods", "deployments", "configmaps", "secrets", "services", "events"}
	out := make([]byte, 0, n+1024)
	for i := 0; len(out) < n; i++ {
		ns, res := namespaces[rng.IntN(len(namespaces))], resources[rng.IntN(len(resources))]
		name := fmt.Sprintf("%s-%x", res[:len(res)-1], rng.Uint32()&0xfffff)
		out = fmt.Appendf(out, `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"%016x%016x","stage":"ResponseComplete",`+
			`"requestURI":"/api/v1/namespaces/%s/%s/%s","verb":"%s","user":{"username":"%s","groups":["system:authenticated"]},`+
			`"sourceIPs":["10.244.%d.%d"],"objectRef":{"resource":"%s","namespace":"%s","name":"%s","apiVersion":"v1"},`+
			`"responseStatus":{"metadata":{},"code":%d},"requestReceivedTimestamp":"2026-05-04T10:%02d:%02d.%06dZ"}`+"\n",
			rng.Uint64(), rng.Uint64(), ns, res, name, verbs[rng.IntN(len(verbs))], users[rng.IntN(len(users))],
			rng.IntN(4), rng.IntN(256), res, ns, name, []int{200, 200, 200, 201, 404, 403}[rng.IntN(6)],
			i/60000%60, i/1000%60, rng.IntN(1000000))
	}
	return out[:n]
}

func BenchmarkExport(b *testing.B) {
	f := benchSetup(b)
	b.SetBytes(f.content)
	for b.Loop() {
		if _, err := Export(context.Background(), f.bundle.s, f.bundle.bundle, io.Discard, ExportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(f.archive))/float64(f.content)*100, "%size")
}

func BenchmarkVerify(b *testing.B) {
	f := benchSetup(b)
	b.SetBytes(f.content)
	for b.Loop() {
		if _, err := Verify(context.Background(), bytes.NewReader(f.archive), Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport imports into a store that hashes blobs as any store must but does not keep the
// large one, so the figure is the archive's cost and not the test store's memory copying.
func BenchmarkImport(b *testing.B) {
	f := benchSetup(b)
	b.SetBytes(f.content)
	for b.Loop() {
		if _, err := Import(context.Background(), hashingStore{newTestStore()}, bytes.NewReader(f.archive), Limits{}, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// hashingStore is a testStore whose PutBlob streams and hashes content without keeping it.
type hashingStore struct{ *testStore }

func (h hashingStore) PutBlob(_ context.Context, r io.Reader) (store.Digest, int64, error) {
	g := store.NewDigester()
	n, err := io.Copy(g, r)
	return g.Digest(), n, err
}
