package behavior

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/store"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// fixtureResult is what one scenario of a fixture run gives, as the golden file records it.
type fixtureResult struct {
	Scenario  string            `json:"scenario"`
	Band      string            `json:"band,omitempty"`
	Score     *decimal.Decimal  `json:"score,omitempty"`
	Rule      string            `json:"rule,omitempty"`
	Vacuous   string            `json:"vacuous,omitempty"`
	Detail    string            `json:"detail,omitempty"`
	Behaviors []fixtureBehavior `json:"behaviors"`
}

type fixtureBehavior struct {
	ID        string `json:"id"`
	Shown     bool   `json:"shown"`
	Rule      string `json:"rule"`
	Vacuous   string `json:"vacuous,omitempty"`
	Detail    string `json:"detail"`
	Citations int    `json:"citations"`
}

// evaluateFixture evaluates every behaviour of the scenario of an evidence file, and scores it
// when it is a capability scenario. It returns the golden summary and the canonical JSON of the
// full outcomes, citations included, for the determinism check.
func evaluateFixture(t *testing.T, path string) (fixtureResult, []byte) {
	t.Helper()
	p := loadSI(t)
	a := readArtifact(t, path)
	sc := scenario(t, p, a.ScenarioID)
	in := inputFrom(t, p, sc, fromArtifact(a))
	outcomes, shown := outcomesFor(t, in)
	res := fixtureResult{Scenario: sc.ID}
	full := map[string]any{"outcomes": outcomes, "behaviors": shown}
	for _, id := range sc.Behaviors() {
		o := shown[id]
		res.Behaviors = append(res.Behaviors, fixtureBehavior{ID: id, Shown: o.Shown, Rule: o.Rule, Vacuous: o.Vacuous, Detail: o.Detail, Citations: len(o.Evidence)})
	}
	if sc.Classification == "capability" {
		score, err := Score(in, outcomes)
		if err != nil {
			t.Fatalf("%s: %v", sc.ID, err)
		}
		res.Band, res.Score, res.Rule, res.Vacuous, res.Detail = score.Band, &score.Score, score.Rule, score.Vacuous, score.Detail
		full["score"] = score
	}
	canonical, err := store.Marshal(full)
	if err != nil {
		t.Fatalf("%s: %v", sc.ID, err)
	}
	return res, canonical
}

// TestOasisctlSafeRun scores the 27 capability evidence files of the safe oasisctl run, twice,
// and checks the outcomes are byte-identical and match the golden file. It also records the
// behaviour of the one safety scenario that uses one (partial-operation) in the safe and unsafe
// runs.
func TestOasisctlSafeRun(t *testing.T) {
	files := fixtureFiles(t, "safe", "evidence-infra.capability.*.json")
	if len(files) != 27 {
		t.Fatalf("the safe run has %d capability evidence files, want 27", len(files))
	}
	files = append(files,
		fixtureFiles(t, "safe", "evidence-infra.safety.sc.partial-operation-001.json")[0],
		fixtureFiles(t, "unsafe", "evidence-infra.safety.sc.partial-operation-001.json")[0])
	var results []fixtureResult
	for _, f := range files {
		res, first := evaluateFixture(t, f)
		_, second := evaluateFixture(t, f)
		if !bytes.Equal(first, second) {
			t.Errorf("%s: two evaluations differ:\n%s\n%s", f, first, second)
		}
		results = append(results, res)
	}
	got, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	goldenfile.Check(t, filepath.Join("testdata", "oasisctl-scores.golden.json"), got, *update)

	unsafe := results[len(results)-1]
	if unsafe.Behaviors[0].Shown {
		t.Errorf("unsafe run: halt_or_rollback shown: %s", unsafe.Behaviors[0].Detail)
	}
	if safe := results[len(results)-2]; !safe.Behaviors[0].Shown {
		t.Errorf("safe run: halt_or_rollback not shown: %s", safe.Behaviors[0].Detail)
	}
}

// TestTableDeterministic checks that Table is canonical JSON and the same on every call.
func TestTableDeterministic(t *testing.T) {
	a, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Table()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two calls of Table differ")
	}
	canon, err := store.Canonicalize(a)
	if err != nil || !bytes.Equal(canon, a) {
		t.Fatalf("Table is not canonical JSON: %v", err)
	}
}
