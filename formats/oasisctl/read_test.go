package oasisctl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
)

// TestReadFixtures reads the three oasisctl reports in JSON and in YAML: both formats give the
// same claim, line numbers and source aside.
func TestReadFixtures(t *testing.T) {
	tests := []struct {
		run           string
		safety        string
		passed        int
		scenarios     int
		capability    bool
		aborted       bool
		complete      bool
		failureIDs    int
		providerFails int
	}{
		{run: "safe", safety: "PASS", passed: 21, scenarios: 50, capability: true, complete: true},
		{run: "unsafe", safety: "FAIL", passed: 3, scenarios: 21, complete: true, failureIDs: 18},
		{run: "provider-fault", safety: "PROVIDER_FAILURE", passed: 20, scenarios: 21, aborted: true, complete: true, providerFails: 1},
	}
	for _, tt := range tests {
		t.Run(tt.run, func(t *testing.T) {
			var claims []*Claim
			for _, file := range []string{"verdict.json", "verdict.yaml"} {
				c, err := ReadFile(fixtureReport(t, tt.run, file))
				if err != nil {
					t.Fatal(err)
				}
				if c.Shape != ShapeOasisctl || c.Safety.Value != tt.safety || c.Counts.Passed.Value != tt.passed ||
					len(c.Scenarios) != tt.scenarios || (c.Capability != nil) != tt.capability || c.Aborted.Value != tt.aborted ||
					c.Complete.Value != tt.complete || len(c.Failures.Value) != tt.failureIDs || len(c.ProviderFailures.Value) != tt.providerFails {
					t.Errorf("%s: shape %s safety %q passed %d scenarios %d capability %v aborted %v complete %v failures %d provider failures %d",
						file, c.Shape, c.Safety.Value, c.Counts.Passed.Value, len(c.Scenarios), c.Capability != nil, c.Aborted.Value,
						c.Complete.Value, len(c.Failures.Value), len(c.ProviderFailures.Value))
				}
				if len(c.Categories) != 7 || len(c.Subcategories) != 7 || len(c.Unknown) != 0 || c.CoreVersion.Value != "≥ 1.0.0-rc1.5" {
					t.Errorf("%s: %d categories, %d subcategories, unknown %v, core %q", file, len(c.Categories), len(c.Subcategories), c.Unknown, c.CoreVersion.Value)
				}
				if c.Safety.Line == 0 || c.Scenarios[0].Line == 0 {
					t.Errorf("%s: no line numbers", file)
				}
				claims = append(claims, normalize(c))
			}
			if d := cmp.Diff(claims[0], claims[1]); d != "" {
				t.Errorf("JSON and YAML claims differ (-json +yaml):\n%s", d)
			}
		})
	}
}

// normalize clears what legitimately differs between the formats of one report.
func normalize(c *Claim) *Claim {
	out := *c
	out.Source, out.Format = "", ""
	return zeroLines(&out)
}

// zeroLines clears every Line of a claim, through a round trip of its fields.
func zeroLines(c *Claim) *Claim {
	lines := func(p ...*int) {
		for _, l := range p {
			*l = 0
		}
	}
	lines(&c.Safety.Line, &c.SafetyPassed.Line, &c.Overall.Line, &c.PhaseSafety.Line, &c.PhaseCapability.Line,
		&c.Counts.Total.Line, &c.Counts.Applicable.Line, &c.Counts.NotApplicable.Line, &c.Counts.Passed.Line, &c.Counts.Failed.Line,
		&c.Counts.ProviderFailure.Line, &c.Counts.ToleranceAdjusted.Line, &c.Counts.NotRun.Line, &c.Failures.Line, &c.ProviderFailures.Line,
		&c.HumanReview.Line, &c.HumanReviewNeeded.Line, &c.Agent.Line, &c.AgentVersion.Line, &c.ProfileName.Line, &c.ProfileID.Line,
		&c.ProfileVersion.Line, &c.CoreVersion.Line, &c.Timestamp.Line, &c.Tier.Line, &c.Aborted.Line, &c.AbortReason.Line,
		&c.Complete.Line, &c.Partial.Line, &c.ConfigurationCoverage.Total.Line, &c.ConfigurationCoverage.Applicable.Line,
		&c.ConfigurationCoverage.NotApplicable.Line, &c.Adversarial.Line, &c.Evaluator.Line, &c.ProviderInfo.Line, &c.TierEvidence.Line,
		&c.AgentFailures.Line, &c.Uncategorized.Line)
	c.Categories = append([]CategoryClaim{}, c.Categories...)
	for i := range c.Categories {
		lines(&c.Categories[i].Status.Line, &c.Categories[i].Passed.Line)
	}
	c.Subcategories = append([]SubcategoryClaim{}, c.Subcategories...)
	for i := range c.Subcategories {
		s := &c.Subcategories[i]
		lines(&s.Line, &s.Total.Line, &s.Passed.Line, &s.Failed.Line, &s.ProviderFailure.Line)
	}
	c.Scenarios = append([]ScenarioClaim{}, c.Scenarios...)
	for i := range c.Scenarios {
		s := &c.Scenarios[i]
		lines(&s.Line, &s.Status.Line, &s.Score.Line, &s.ObservedModel.Line, &s.AgentFailure.Line)
		s.Assertions = append([]AssertionClaim{}, s.Assertions...)
		for j := range s.Assertions {
			a := &s.Assertions[j]
			lines(&a.Line, &a.Status.Line, &a.Vacuous.Line, &a.VacuityReason.Line)
			if a.Scope != nil {
				scope := *a.Scope
				lines(&scope.Line, &scope.Principal.Line, &scope.AgentEntries.Line, &scope.TotalEntries.Line)
				a.Scope = &scope
			}
		}
	}
	if c.Identity != nil {
		id := *c.Identity
		lines(&id.Line, &id.BinaryVersion.Line, &id.BinarySHA.Line, &id.ConfigHash.Line, &id.SystemPromptHash.Line,
			&id.DeclaredModel.Line, &id.DeclaredProvider.Line, &id.FixedWrapperText.Line, &id.Heterogeneous.Line, &id.Detail.Line)
		id.Detail.Value = append([]HeterogeneityClaim{}, id.Detail.Value...)
		for i := range id.Detail.Value {
			id.Detail.Value[i].Line = 0
		}
		c.Identity = &id
	}
	c.Configuration = append([]ConfigValue{}, c.Configuration...)
	for i := range c.Configuration {
		c.Configuration[i].Line = 0
	}
	if c.Capability != nil {
		cc := *c.Capability
		lines(&cc.Line, &cc.Tier.Line, &cc.Required.Line, &cc.Evaluated.Line, &cc.Complete.Line)
		for _, l := range []*[]ScoreClaim{&cc.Categories, &cc.Dimensions, &cc.Archetypes} {
			*l = append([]ScoreClaim{}, *l...)
			for i := range *l {
				lines(&(*l)[i].Score.Line, &(*l)[i].ArchetypesEvaluated.Line)
			}
		}
		c.Capability = &cc
	}
	return c
}

// TestReadSpecVerdict reads a Reporting §1 verdict with its top-level "verdict" key (YAML)
// and without it (JSON).
func TestReadSpecVerdict(t *testing.T) {
	var claims []*Claim
	for _, file := range []string{"spec-unsafe.yaml", "spec-unsafe.json"} {
		c, err := ReadFile(filepath.Join("testdata", "claims", file))
		if err != nil {
			t.Fatal(err)
		}
		if c.Shape != ShapeVerdict || c.Safety.Value != "FAIL" || c.Counts.Passed.Value != 3 || len(c.Failures.Value) != 18 ||
			len(c.Subcategories) != 9 || c.Subcategories[0].Category != "authority-escalation-resistance" || c.ListsScenarios ||
			c.Tier.Value != 1 || !c.Aborted.Present || c.Aborted.Value || len(c.Configuration) != 3 || len(c.Unknown) != 0 {
			t.Errorf("%s: %+v", file, c)
		}
		claims = append(claims, normalize(c))
	}
	// Paths differ by the "verdict." prefix of the YAML form; compare the values.
	if claims[0].Safety.Value != claims[1].Safety.Value || len(claims[0].Failures.Value) != len(claims[1].Failures.Value) {
		t.Error("the two forms of the verdict read differently")
	}
	if claims[0].Safety.Path != "verdict.safety" || claims[1].Safety.Path != "safety" {
		t.Errorf("paths %q and %q", claims[0].Safety.Path, claims[1].Safety.Path)
	}
}

// TestReadUnknownFields: fields no shape defines are kept, with their path and line.
func TestReadUnknownFields(t *testing.T) {
	doc := "safety_summary:\n  safety: PASS\n  surprise: 1\nmetadata:\n  agent_name: a\n  color: blue\nextra: true\n"
	c, err := Read([]byte(doc), "", "unknown.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range c.Unknown {
		got = append(got, u.Path+"@"+string(rune('0'+u.Line)))
	}
	want := []string{"metadata.color@6", "safety_summary.surprise@3", "extra@7"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("unknown fields (-want +got):\n%s", d)
	}
}

// TestReadMalformed: every malformed report is an error naming the source and, where it has
// one, the line and field — never a panic and never a claim.
func TestReadMalformed(t *testing.T) {
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	tests := []struct {
		name, doc, format string
		err               error
		contains          []string
	}{
		{"empty YAML", "", "", ErrMalformed, []string{"empty"}},
		{"not an object", "[1, 2]", "json", ErrShape, []string{"claimed.doc:1:1: the document is an array, not an object"}},
		{"neither shape", `{"results": [], "summary": {}}`, "", ErrShape, []string{"neither", "safety_summary", "results, summary"}},
		{"safety without details", `{"safety": "PASS"}`, "", ErrShape, []string{"safety_details"}},
		{"wrong type", "safety_summary:\n  passed_count: three\n", "", ErrMalformed, []string{"claimed.doc:2:17: safety_summary.passed_count: want an integer, got a string"}},
		{"wrong type JSON", "{\n\"safety_summary\": {\n\"category_results\": {\"x\": \"yes\"}}}", "", ErrMalformed, []string{"claimed.doc:3:27: safety_summary.category_results.x: want a boolean"}},
		{"scenario without id", "safety_summary: {}\nscenario_details:\n  - status: PASS\n", "", ErrMalformed, []string{"claimed.doc:3:5: scenario_details[0]: the scenario entry has no scenario_id"}},
		{"scenario list not a list", `{"safety_summary": {}, "scenario_details": {}}`, "", ErrMalformed, []string{"scenario_details: want an array"}},
		{"score not a number", `{"safety": "PASS", "safety_details": {}, "capability": {"core_dimensions": {"reasoning": "high"}}}`, "", ErrMalformed, []string{"capability.core_dimensions.reasoning", "not a decimal"}},
		{"huge exponent", `{"safety": "PASS", "safety_details": {}, "capability": {"core_dimensions": {"reasoning": 1e999999}}}`, "", ErrMalformed, []string{"not a decimal"}},
		{"duplicate key JSON", "{\"safety_summary\": {},\n \"safety_summary\": {}}", "", ErrMalformed, []string{"claimed.doc:2:2: safety_summary: duplicate key", "first at line 1"}},
		{"duplicate key YAML", "safety_summary: {}\nsafety_summary: {}\n", "", ErrMalformed, []string{"claimed.doc:2:1: safety_summary: duplicate key"}},
		{"YAML alias bomb", aliasBomb(), "", ErrMalformed, []string{"MaxAliasNodes"}},
		{"two YAML documents", "safety_summary: {}\n---\nsafety_summary: {}\n", "", ErrMalformed, []string{"(read as YAML)", "a second YAML document"}},
		{"trailing JSON", `{"safety_summary": {}} {}`, "", ErrMalformed, []string{"claimed.doc:1:24", "after the JSON value"}},
		{"truncated JSON", `{"safety_summary": {"safety": `, "", ErrMalformed, []string{"claimed.doc:1:31: safety_summary.safety: unexpected end of input"}},
		{"bad YAML", "safety_summary: [\n", "", ErrMalformed, []string{"YAML"}},
		{"too deep", deep, "json", ErrMalformed, []string{"MaxDepth is 64"}},
		{"unknown format", "{}", "toml", ErrMalformed, []string{"unknown format"}},
		{"many top-level fields are cut", wideObject(25, ""), "json", ErrShape, []string{"k0, k1", "k19, and 6 more"}},
		{"duplicate after many members JSON", wideObject(1000, "k7"), "json", ErrMalformed, []string{"claimed.doc:1001:1: k7: duplicate key"}},
		{"duplicate after many members YAML", wideYAML(1000, "k7"), "yaml", ErrMalformed, []string{"claimed.doc:1001:1: k7: duplicate key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read([]byte(tt.doc), tt.format, "claimed.doc")
			if !errors.Is(err, tt.err) || c != nil {
				t.Fatalf("got %v, %v; want %v", c, err, tt.err)
			}
			for _, s := range append(tt.contains, "claimed.doc") {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not mention %q", err, s)
				}
			}
		})
	}
	big := make([]byte, MaxReportBytes+1)
	if _, err := Read(big, "", "big"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized report: %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"0", "0.0", true}, {"1", "1.0", true}, {"0.75", "0.75", true}, {"-2.5", "-2.5", true},
		{"0.6666666666", "0.666667", true}, {"0.1234565", "0.123457", true}, {"-0.1234565", "-0.123457", true},
		{"0.00000049", "0.0", true}, {"0.0000005", "0.000001", true},
		{"7.5e-1", "0.75", true}, {"1E2", "100.0", true}, {"+3", "3.0", true}, {".5", "0.5", true},
		{"1e31", "", false}, {"1e-31", "", false}, {"0x10", "", false}, {"1/3", "", false}, {"abc", "", false},
		{"", "", false}, {"1.2.3", "", false}, {"+-1", "", false}, {".inf", "", false}, {"99999999999999999999", "", false},
	}
	for _, tt := range tests {
		got, err := parseDecimal(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got.String() != tt.want) {
			t.Errorf("%q: %v %v, want %s ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if d, _ := parseDecimal("0.5"); d != decimal.MustParse("0.5") {
		t.Error("0.5")
	}
}

// wideObject is a JSON object of n members k0..k(n-1), then a second dup member if dup is set.
func wideObject(n int, dup string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, "%q: 0,\n", "k"+strconv.Itoa(i))
	}
	if dup != "" {
		fmt.Fprintf(&b, "%q: 0,\n", dup)
	}
	b.WriteString(`"end": 0}`)
	return b.String()
}

// wideYAML is wideObject as a YAML mapping.
func wideYAML(n int, dup string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%d: 0\n", i)
	}
	if dup != "" {
		fmt.Fprintf(&b, "%s: 0\n", dup)
	}
	return b.String()
}

// aliasBomb is a small YAML document whose aliases would expand to millions of values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		b.WriteString(name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n")
		prev = name
	}
	return b.String() + "safety_summary: {}\n"
}

// fixtureReport returns the path of an oasisctl fixture report, "verdict.json" or
// "verdict.yaml".
func fixtureReport(t testing.TB, run, file string) string {
	t.Helper()
	return filepath.Join(sharedtest.OasisctlRun(t, run), file)
}
