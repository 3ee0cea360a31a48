package report

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"sync"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/recorder/recordertest"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/replay/replaytest"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
)

// update rewrites the golden files: go test ./report -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/audit")

// corpus is a store with the SI profile, the oasisctl fixture runs and the synthesized
// complete run, each replayed once. Tests must not modify it.
type corpus struct {
	s       *badgerstore.Store
	results map[string]*replay.Result
}

var (
	corpusOnce   sync.Once
	sharedCorpus *corpus
)

// newCorpus returns the package's corpus, built once: comparisons only read it.
func newCorpus(t testing.TB) *corpus {
	t.Helper()
	sharedtest.Dir(t) // skips when the shared test data is absent
	corpusOnce.Do(func() { sharedCorpus = buildCorpus(t) })
	if sharedCorpus == nil {
		t.Fatal("the corpus could not be built (see the first test that needed it)")
	}
	return sharedCorpus
}

// buildCorpus records and replays every run into an in-memory store that lives as long as the
// test process.
func buildCorpus(t testing.TB) *corpus {
	t.Helper()
	s, err := badgerstore.OpenInMemory(badgerstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := replaytest.ImportSI(t, s)
	c := &corpus{s: s, results: map[string]*replay.Result{}}
	for _, name := range append(append([]string{}, recordertest.Fixtures...), replaytest.SynthTag) {
		var bundle store.Digest
		if name == replaytest.SynthTag {
			bundle = replaytest.SynthBundle(t, s, p)
		} else {
			bundle = recordertest.OasisctlBundle(t, s, p, name)
		}
		r, err := replay.Replay(context.Background(), s, bundle, replay.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		c.results[name] = r
	}
	return c
}

// fixtureReport returns the path of an oasisctl fixture report, "verdict.json" or
// "verdict.yaml".
func fixtureReport(t testing.TB, run, file string) string {
	t.Helper()
	return filepath.Join(sharedtest.OasisctlRun(t, run), file)
}

// mutate decodes a JSON document, lets edit change it, and encodes it again.
func mutate(t *testing.T, doc []byte, edit func(map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// field and items navigate a decoded document in mutations.
func field(v any, keys ...string) map[string]any {
	m := v.(map[string]any)
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

func items(v any, key string) []any { return v.(map[string]any)[key].([]any) }

// codes counts findings by "severity code".
func codes(fs []Finding) map[string]int {
	out := map[string]int{}
	for _, f := range fs {
		out[string(f.Severity)+" "+f.Code]++
	}
	return out
}
