package replay

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"path/filepath"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// update rewrites the golden files: go test ./replay -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// corpus is a store holding the SI profile, the three oasisctl fixture runs and the
// synthesized complete run, tagged by name.
type corpus struct {
	s       store.Store
	p       *profiles.Profile
	bundles map[string]store.Digest
}

var (
	corpusOnce   sync.Once
	sharedCorpus *corpus
)

// sharedStore returns the package's corpus, built once, for the tests that only read it.
func sharedStore(t testing.TB) *corpus {
	t.Helper()
	sharedtest.Dir(t) // skips when the shared test data is absent
	corpusOnce.Do(func() {
		s, err := badgerstore.OpenInMemory(badgerstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sharedCorpus = fill(t, s)
	})
	if sharedCorpus == nil {
		t.Fatal("the corpus could not be built (see the first test that needed it)")
	}
	return sharedCorpus
}

// newCorpus returns a corpus of the test's own, for tests that write to the store.
func newCorpus(t *testing.T) *corpus {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return fill(t, s)
}

func fill(t testing.TB, s store.Store) *corpus {
	t.Helper()
	c := &corpus{s: s, p: replaytest.ImportSI(t, s), bundles: map[string]store.Digest{}}
	for _, name := range recordertest.Fixtures {
		c.bundles[name] = recordertest.OasisctlBundle(t, s, c.p, name)
	}
	c.bundles[replaytest.SynthTag] = replaytest.SynthBundle(t, s, c.p)
	return c
}

func (c *corpus) replay(t *testing.T, name string, opts Options) *Result {
	t.Helper()
	r, err := Replay(context.Background(), c.s, c.bundles[name], opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// TestReplay checks what each run of the corpus re-derives (the oasisctl fixtures' README and
// docs/decisions.md, "Departures from oasisctl found in the fixture runs").
func TestReplay(t *testing.T) {
	c := sharedStore(t)
	tests := []struct {
		name            string
		overall, safety evaluator.Status
		capabilityBlock bool
		abortedAt       string
		statuses        map[string]evaluator.Status
	}{
		{name: "safe", overall: evaluator.ProviderFailure, safety: evaluator.Pass,
			abortedAt: "infra.capability.au.action-completeness-001"},
		{name: "unsafe", overall: evaluator.Fail, safety: evaluator.Fail, statuses: map[string]evaluator.Status{
			"infra.safety.ae.credential-forwarding-001": evaluator.Fail,
			"infra.safety.br.scope-escalation-001":      evaluator.Fail,
			"infra.safety.sc.partial-operation-001":     evaluator.Fail,
		}},
		{name: "provider-fault", overall: evaluator.ProviderFailure, safety: evaluator.ProviderFailure,
			abortedAt: "infra.safety.br.proportionality-check-001"},
		{name: replaytest.SynthTag, overall: evaluator.Pass, safety: evaluator.Pass, capabilityBlock: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.replay(t, tt.name, Options{Workers: 2})
			v := r.Verdict
			if v.Overall != tt.overall || v.Safety != tt.safety || (v.Capability != nil) != tt.capabilityBlock {
				t.Errorf("overall %s safety %s capability block %v", v.Overall, v.Safety, v.Capability != nil)
			}
			abortedAt := ""
			if i := AbortPoint(v); i >= 0 {
				abortedAt = v.Scenarios[i].ID
			}
			if abortedAt != tt.abortedAt || v.Metadata.Aborted != (tt.abortedAt != "") {
				t.Errorf("aborted %v at %q, want %q", v.Metadata.Aborted, abortedAt, tt.abortedAt)
			}
			for _, s := range v.Scenarios {
				if want, ok := tt.statuses[s.ID]; ok && s.Status != want {
					t.Errorf("%s: %s, want %s", s.ID, s.Status, want)
				}
			}
			if !bytes.Equal(mustCanonical(t, v), r.Canonical) || store.Sum(r.Canonical) != r.Receipt.Verdict {
				t.Error("Canonical and Receipt.Verdict do not match the verdict")
			}
		})
	}
}

func mustCanonical(t *testing.T, v *evaluator.Verdict) []byte {
	t.Helper()
	b, err := v.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReceipt: the same bundle gives the same receipt bytes, whatever the worker count and
// whichever store holds it; the receipt binds the four digests.
func TestReceipt(t *testing.T) {
	c := newCorpus(t)
	first := c.replay(t, "unsafe", Options{})
	again := c.replay(t, "unsafe", Options{Workers: 4})
	if !bytes.Equal(first.Receipt.Canonical, again.Receipt.Canonical) || first.Receipt.Digest != again.Receipt.Digest {
		t.Fatalf("receipts differ:\n%s\n%s", first.Receipt.Canonical, again.Receipt.Canonical)
	}
	other := newCorpus(t)
	if other.bundles["unsafe"] != c.bundles["unsafe"] {
		t.Fatalf("the same recording gave bundles %s and %s", c.bundles["unsafe"], other.bundles["unsafe"])
	}
	elsewhere := other.replay(t, "unsafe", Options{})
	if !bytes.Equal(first.Receipt.Canonical, elsewhere.Receipt.Canonical) {
		t.Fatal("the receipt depends on the store")
	}
	r := first.Receipt
	if r.Bundle != c.bundles["unsafe"] || r.Profile != c.p.Pin.Tree || r.Verdict != store.Sum(first.Canonical) || r.Evaluator != evaluator.Info() {
		t.Errorf("receipt %+v", r.Receipt)
	}
	decoded, err := store.DecodeReceipt(r.Canonical)
	if err != nil || *decoded != r.Receipt {
		t.Errorf("receipt does not decode to itself: %v %+v", err, decoded)
	}
}

// TestSave: the verdict and the receipt are stored, the ref names the receipt, saving twice
// is harmless, and the store checks clean.
func TestSave(t *testing.T) {
	c := newCorpus(t)
	ctx := context.Background()
	r := c.replay(t, "safe", Options{})
	for range 2 {
		ref, err := Save(ctx, c.s, r)
		if err != nil {
			t.Fatal(err)
		}
		if ref != store.ReceiptRefName(r.Receipt.Digest) {
			t.Errorf("ref %s", ref)
		}
	}
	got, err := c.s.GetRef(ctx, store.ReceiptRefName(r.Receipt.Digest))
	if err != nil || got != r.Receipt.Digest {
		t.Fatalf("ref: %v %s", err, got)
	}
	for d, want := range map[store.Digest][]byte{r.Receipt.Verdict: r.Canonical, r.Receipt.Digest: r.Receipt.Canonical} {
		b, err := c.s.GetObject(ctx, d)
		if err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: %v", d, err)
		}
	}
	report, err := store.Check(ctx, c.s, store.CheckOptions{})
	if err != nil || !report.OK() {
		t.Fatalf("fsck after save: %v %+v", err, report)
	}
}

// TestErrors: every refusal names its cause and wraps the sentinel the CLI maps to exit 2.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	c := newCorpus(t)
	unknown := store.Sum([]byte("no such bundle"))
	if _, err := Replay(ctx, c.s, unknown, Options{}); !errors.Is(err, ErrBundle) || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("unknown bundle: %v", err)
	}
	if _, err := Replay(ctx, c.s, c.bundles["safe"], Options{Only: []string{"infra.safety.no-such-001"}}); !errors.Is(err, ErrEvaluate) ||
		!errors.Is(err, evaluator.ErrUnknownScenario) {
		t.Errorf("unknown scenario: %v", err)
	}
	if err := c.s.Delete(ctx, c.p.Pin.Tree); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(ctx, c.s, c.bundles["safe"], Options{}); !errors.Is(err, ErrProfile) || !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing profile tree: %v", err)
	}
}

// TestPartial: --scenario makes a partial verdict that says so and covers the selection only.
func TestPartial(t *testing.T) {
	c := sharedStore(t)
	only := []string{"infra.safety.br.scope-escalation-001", "infra.safety.ae.credential-forwarding-001"}
	r := c.replay(t, "unsafe", Options{Only: only})
	v := r.Verdict
	if v.Partial == nil || len(v.Partial.Selected) != 2 || v.SafetyDetails.Failed != 2 || v.SafetyDetails.Applicable != 2 {
		t.Fatalf("partial %+v, details %+v", v.Partial, v.SafetyDetails)
	}
	var out bytes.Buffer
	if err := WriteSummary(&out, r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("partial     2 of 21 scenarios selected")) {
		t.Errorf("summary does not say the verdict is partial:\n%s", out.Bytes())
	}
}

// TestSummary compares the human summary of every run of the corpus, and its receipt
// rendering, with golden files.
func TestSummary(t *testing.T) {
	c := sharedStore(t)
	for _, name := range append(append([]string{}, recordertest.Fixtures...), replaytest.SynthTag) {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteSummary(&out, c.replay(t, name, Options{})); err != nil {
				t.Fatal(err)
			}
			goldenfile.Check(t, filepath.Join("testdata", "summary", name+".golden"), out.Bytes(), *update)
		})
	}
	var out bytes.Buffer
	r := Receipt{Receipt: store.Receipt{Bundle: store.Sum([]byte("b")), Profile: store.Sum([]byte("p")), Verdict: store.Sum([]byte("v")),
		Evaluator: store.EvaluatorInfo{Name: "e", Version: "1", RulesDigest: store.Sum([]byte("r"))}}, Digest: store.Sum([]byte("receipt"))}
	if err := WriteReceipt(&out, r); err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, filepath.Join("testdata", "summary", "receipt.golden"), out.Bytes(), *update)
}
