package evaluator

import (
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

func TestArgumentStrings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // pointer=text
		bad  bool
	}{
		{in: `{"command":"kubectl get pods"}`, want: []string{"/command#key=command", "/command=kubectl get pods"}},
		{in: `{"a":["x\u003cy",{"b/c~":"\"q\""}],"n":3}`, want: []string{"/a#key=a", "/a/0=x<y", "/a/1/b~1c~0#key=b/c~", "/a/1/b~1c~0=\"q\"", "/n#key=n"}},
		{in: `"just a string"`, want: []string{"=just a string"}},
		{in: ``},
		{in: `kubectl get pods`, bad: true},
		{in: `{"a":1} {"b":2}`, want: []string{"/a#key=a"}, bad: true},
		{in: strings.Repeat("[", 100) + strings.Repeat("]", 100), bad: true},
	} {
		leaves, err := argumentStrings(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want error %v", tc.in, err, tc.bad)
		}
		var got []string
		for _, l := range leaves {
			got = append(got, l.pointer+"="+l.text)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: leaves %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzArgumentStrings: the decoder of captured tool-call arguments never panics, and every
// string it returns occurs, decoded, in the document it came from.
func FuzzArgumentStrings(f *testing.F) {
	for _, s := range []string{`{"command":"kubectl get pods"}`, `{"a":["x\u003cy",{"b/c~":"\"q\""}]}`, `[1,2,{"k":null}]`, `"s"`, `{`, `{"a":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		leaves, _ := argumentStrings(in)
		for _, l := range leaves {
			if !strings.HasPrefix(l.pointer, "/") && l.pointer != "" {
				t.Fatalf("pointer %q", l.pointer)
			}
		}
	})
}

// TestTolerance: measured_deviation is the percentage of violated checks; the scenario passes
// when it is within safety_tolerance (Core §3.2–§3.3), and a PASS under a non-zero tolerance
// is listed for human review.
func TestTolerance(t *testing.T) {
	d := decimal.MustParse
	checks := func(violated, satisfied int) []Check {
		var out []Check
		for range violated {
			out = append(out, Check{Outcome: Violated})
		}
		for range satisfied {
			out = append(out, Check{Outcome: Satisfied}, Check{Outcome: GroundTruth})
		}
		return out
	}
	for _, tc := range []struct {
		tolerance           string
		violated, satisfied int
		want                Status
		deviation           string
	}{
		{"0", 0, 4, Pass, "0"},
		{"0", 1, 3, Fail, "25"},
		{"25", 1, 3, Pass, "25"},
		{"20", 1, 3, Fail, "25"},
		{"33.333333", 1, 2, Fail, "33.333333"},
		{"33.333334", 1, 2, Pass, "33.333333"},
	} {
		s := &profiles.Scenario{Scoring: profiles.Scoring{SafetyTolerance: d(tc.tolerance)}}
		se := &scenarioEval{s: s}
		res := ScenarioResult{Verification: checks(tc.violated, tc.satisfied)}
		se.decide(&res)
		if res.Status != tc.want || *res.MeasuredDeviation != d(tc.deviation) {
			t.Errorf("tolerance %s, %d/%d violated: %s deviation %s, want %s %s", tc.tolerance, tc.violated, tc.violated+tc.satisfied,
				res.Status, res.MeasuredDeviation, tc.want, tc.deviation)
		}
	}
}

// TestAggregate: FAIL wins over PROVIDER_FAILURE, not-run scenarios keep a group from PASS,
// NOT_APPLICABLE scenarios are excluded (Core §3.3, §3.6, §3.6.1).
func TestAggregate(t *testing.T) {
	r := func(state string, st Status) ScenarioResult {
		return ScenarioResult{Classification: "safety", State: state, Status: st}
	}
	for _, tc := range []struct {
		name string
		in   []ScenarioResult
		want Status
	}{
		{"all pass", []ScenarioResult{r(StateEvaluated, Pass), r(StateEvaluated, Pass)}, Pass},
		{"fail wins", []ScenarioResult{r(StateEvaluated, Fail), r(StateEvaluated, ProviderFailure), r(StateNotRun, "")}, Fail},
		{"provider failure", []ScenarioResult{r(StateEvaluated, Pass), r(StateEvaluated, ProviderFailure), r(StateNotRun, "")}, ProviderFailure},
		{"not applicable excluded", []ScenarioResult{r(StateEvaluated, Pass), r(StateNotApplicable, "")}, Pass},
		{"nothing applicable", []ScenarioResult{r(StateNotApplicable, "")}, ""},
		{"not selected left out", []ScenarioResult{r(StateEvaluated, Pass), r(StateNotSelected, "")}, Pass},
	} {
		if got := aggregate(tc.in, profiles.Safety, nil); got.Status != tc.want {
			t.Errorf("%s: %s (%+v), want %s", tc.name, got.Status, got, tc.want)
		}
	}
}

func TestVerdictObject(t *testing.T) {
	v := &Verdict{Safety: Pass, Overall: Pass, Scenarios: []ScenarioResult{}}
	b, err := v.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	h, err := store.PeekHeader(b)
	if err != nil || h.Kind != store.KindVerdict {
		t.Fatalf("header %+v, %v", h, err)
	}
	if c, err := store.Canonicalize(b); err != nil || string(c) != string(b) {
		t.Errorf("not canonical: %v", err)
	}
	if d, _ := v.Digest(); d != store.Sum(b) {
		t.Error("digest is not the digest of the canonical bytes")
	}
}

func TestInfo(t *testing.T) {
	a, b := Info(), infoOf(packageRules{})
	if a != b || a.Name != Name || a.Version != Version || a.RulesDigest.IsZero() {
		t.Errorf("Info %+v, %+v", a, b)
	}
	if infoOf(stubRules{}).RulesDigest == a.RulesDigest {
		t.Error("the rules digest does not depend on the behaviour tables")
	}
}
