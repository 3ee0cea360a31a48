package storetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

// RandomBytes returns n bytes that do not compress, the same for the same seed.
func RandomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// LogBytes returns n bytes of JSON lines that compress like an audit log, the same for the
// same seed. Logs of one seed are prefixes of each other, like a log recorded again as it grows.
func LogBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	verbs := []string{"get", "list", "watch", "patch", "update", "delete", "create"}
	for b.Len() < n {
		fmt.Fprintf(&b, `{"kind":"Event","verb":%q,"objectRef":{"resource":"pods","namespace":"ns-%d","name":"pod-%d"},"code":%d}`+"\n",
			verbs[rng.IntN(len(verbs))], rng.IntN(20), rng.IntN(5000), 200+rng.IntN(3))
	}
	return b.Bytes()[:n]
}

// Put stores content as a blob and checks the digest and size PutBlob returns.
func Put(t testing.TB, st store.Store, content []byte) store.Digest {
	t.Helper()
	d, n, err := st.PutBlob(t.Context(), bytes.NewReader(content))
	if err != nil {
		t.Fatalf("PutBlob(%d bytes): %v", len(content), err)
	}
	if want := store.Sum(content); d != want || n != int64(len(content)) {
		t.Fatalf("PutBlob(%d bytes) = %s, %d; want %s, %d", len(content), d, n, want, len(content))
	}
	return d
}

// Encode encodes a structured object canonically, failing the test on error.
func Encode(t testing.TB, obj store.Object) ([]byte, store.Descriptor) {
	t.Helper()
	b, d, err := store.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b, d
}

// DescriptorOf describes content b as a blob of the given media type.
func DescriptorOf(mediaType string, b []byte) store.Descriptor {
	return store.Descriptor{MediaType: mediaType, Digest: store.Sum(b), Size: int64(len(b))}
}

// Bundle is a small, complete bundle for tests: a profile tree with one file, one scenario's
// evidence with an audit-log observation, and its run manifest. Store writes the blobs and
// objects; the manifest is left for the test to seal.
type Bundle struct {
	Blobs    [][]byte // the profile file, then the audit log
	Objects  [][]byte // the profile tree, then the scenario evidence
	Manifest *store.RunManifest
}

// NewBundle builds a bundle whose content depends on seed, with an audit log of logSize bytes.
func NewBundle(t testing.TB, seed uint64, logSize int) Bundle {
	t.Helper()
	var b Bundle
	profileFile := []byte(fmt.Sprintf("id: infra.safety.test-%d\n", seed))
	auditLog := LogBytes(seed, logSize)
	b.Blobs = [][]byte{profileFile, auditLog}
	tree := &store.ProfileTree{ProfileID: "oasis-profile-software-infrastructure", Version: "0.2.0-rc3",
		Entries: []store.TreeEntry{{Path: "scenarios/test.yaml", Blob: DescriptorOf(store.MediaTypeYAML, profileFile)}}}
	treeBytes, treeDesc := Encode(t, tree)
	evidence := &store.ScenarioEvidence{ScenarioID: fmt.Sprintf("infra.safety.test-%d", seed),
		Transcript: store.Transcript{FinalAnswer: "done", Actions: []store.Action{{Tool: "kubectl", Result: "ok"}}},
		Observations: []store.Observation{{Type: store.ObservationAuditLog,
			Source: &store.EvidenceSource{Type: "audit_log_file", Status: store.StatusAvailable},
			Data:   DescriptorOf(store.MediaTypeK8sAuditEvents, auditLog)}}}
	evBytes, evDesc := Encode(t, evidence)
	b.Objects = [][]byte{treeBytes, evBytes}
	b.Manifest = &store.RunManifest{Recorder: store.RecorderInfo{Name: "storetest", Version: "1", Source: "files"},
		Profile:         store.ProfileRef{ID: tree.ProfileID, Version: tree.Version, Tree: treeDesc.Digest},
		CoreSpecVersion: "1.0.0-rc1.5", Agent: store.AgentIdentity{Name: "agent", Version: "1"}, Tier: 1,
		Scenarios: []store.ScenarioRef{{ScenarioID: evidence.ScenarioID, Evidence: &evDesc}}}
	return b
}

// Store writes the bundle's blobs, then its objects.
func (b Bundle) Store(t testing.TB, st store.Store) {
	t.Helper()
	for _, blob := range b.Blobs {
		Put(t, st, blob)
	}
	for _, obj := range b.Objects {
		if _, err := st.PutObject(t.Context(), obj); err != nil {
			t.Fatalf("PutObject: %v", err)
		}
	}
}
