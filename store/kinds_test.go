package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/storetest"
)

// otherManifest is the manifest of a second kind of evaluation: it pins a profile tree and
// refers to one blob of evidence.
type otherManifest struct {
	store.Header
	Tree     store.Digest     `json:"tree"`
	Evidence store.Descriptor `json:"evidence"`
}

const kindOther store.Kind = "test-other-run"

func init() {
	store.RegisterManifestKindForTest(kindOther, "application/vnd.oasis-replay.test-other-run.v1+json", 250,
		func() store.Object { return new(otherManifest) })
}

func (*otherManifest) ObjectKind() store.Kind { return kindOther }
func (m *otherManifest) References() []store.Descriptor {
	return []store.Descriptor{{MediaType: store.MediaTypeProfileTree, Digest: m.Tree}, m.Evidence}
}
func (m *otherManifest) Definition() store.Digest { return m.Tree }
func (m *otherManifest) Summary() store.BundleSummary {
	return store.BundleSummary{Evaluation: "other", Subject: "test", Units: 1, UnitName: "runs", Source: "test"}
}

func TestKindRegistry(t *testing.T) {
	seen := map[byte]store.Kind{}
	for _, k := range store.Kinds() {
		code, ok := store.KindCode(k)
		if !ok || code == 0 {
			t.Fatalf("kind %s has no code", k)
		}
		if other, dup := seen[code]; dup {
			t.Fatalf("kinds %s and %s share code %d", k, other, code)
		}
		seen[code] = k
		if back, ok := store.KindOfCode(code); !ok || back != k {
			t.Errorf("KindOfCode(%d) = %s, want %s", code, back, k)
		}
		if back, ok := store.KindOfMediaType(store.MediaTypeOf(k)); !ok || back != k {
			t.Errorf("KindOfMediaType(MediaTypeOf(%s)) = %s", k, back)
		}
	}
	if !store.IsManifestKind(store.KindRunManifest) || store.IsManifestKind(store.KindScenarioEvidence) {
		t.Error("IsManifestKind: run-manifest must be a manifest kind, scenario-evidence must not")
	}
}

// A second kind of bundle is sealed, listed, loaded and checked like an OASIS run.
func TestSealAnotherManifestKind(t *testing.T) {
	s := newStore(t)
	oasis := storetest.NewBundle(t, 1, 100)
	oasis.Store(t, s)
	evidence, _, err := s.PutBlob(t.Context(), strings.NewReader("evidence of another kind"))
	if err != nil {
		t.Fatal(err)
	}
	m := &otherManifest{Tree: oasis.Manifest.Profile.Tree, Evidence: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: evidence, Size: 24}}
	d, err := store.Seal(t.Context(), s, m, "other")
	if err != nil {
		t.Fatal(err)
	}
	infos, err := store.ListBundles(t.Context(), s)
	if err != nil || len(infos) != 1 || infos[0].Digest != d || infos[0].Evaluation != "other" {
		t.Fatalf("ListBundles = %+v, %v", infos, err)
	}
	if _, err := store.LoadManifest(t.Context(), s, d); !errors.Is(err, store.ErrWrongEvaluation) {
		t.Errorf("LoadManifest of another kind: err = %v, want ErrWrongEvaluation", err)
	}
	// A receipt for it names the bundle's kind, so fsck checks the reference against it.
	verdict, err := s.PutObject(t.Context(), []byte(`{"kind":"verdict","schema_version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	receipt := &store.Receipt{Bundle: d, BundleKind: kindOther, Profile: m.Tree, Verdict: verdict.Digest}
	rd, err := store.Put(t.Context(), s, receipt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetRef(t.Context(), store.ReceiptRefName(rd.Digest), rd.Digest); err != nil {
		t.Fatal(err)
	}
	report, err := store.Check(t.Context(), s, store.CheckOptions{})
	if err != nil || len(report.Problems) != 0 {
		t.Fatalf("Check = %+v, %v", report, err)
	}
}

// An object that is not registered as a manifest kind cannot be sealed as a bundle.
func TestSealRefusesNonManifestKinds(t *testing.T) {
	s := newStore(t)
	_, err := store.Seal(t.Context(), s, &notAManifest{})
	if !errors.Is(err, store.ErrInvalidObject) {
		t.Fatalf("Seal of a non-manifest kind: err = %v, want ErrInvalidObject", err)
	}
}

type notAManifest struct{ otherManifest }

func (*notAManifest) ObjectKind() store.Kind { return store.KindScenarioEvidence }
