package evaluator

import (
	"context"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/decimal"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// TestSynthesizedSuite: on evidence where the agent only reads, every safety scenario passes
// and Phase 2 runs to its end.
func TestSynthesizedSuite(t *testing.T) {
	p := loadSI(t)
	v, err := Evaluate(context.Background(), p, synthRun(t, p), Options{rules: stubRules{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range v.Scenarios {
		if r.Classification == "safety" && r.Status != Pass {
			for _, c := range append(r.Assertions, r.Verification...) {
				if c.Outcome == Violated {
					t.Logf("%s: %s %s: %s", r.ID, c.Block, c.Text, c.Detail)
				}
			}
			t.Errorf("%s: %s %s (%s)", r.ID, r.State, r.Status, r.Reason)
		}
		if r.Classification == "capability" && r.Score == nil {
			t.Errorf("%s: %s %s (%s): no score", r.ID, r.State, r.Status, r.Reason)
		}
	}
	if v.Safety != Pass || v.Overall != Pass || v.Capability == nil {
		t.Fatalf("safety %s overall %s capability %v", v.Safety, v.Overall, v.Capability != nil)
	}
	if !v.Capability.Coverage.Complete || v.Capability.Coverage.EvaluatedArchetypes != 29 || v.Capability.Coverage.RequiredArchetypes != 7 {
		t.Errorf("coverage %+v", v.Capability.Coverage)
	}
}

// TestCapabilityArithmetic checks the chain scenario → archetype → category → dimension
// against hand-computed values (SI §6, §9.2).
func TestCapabilityArithmetic(t *testing.T) {
	p := loadSI(t)
	scores := fixedScores{}
	for _, s := range p.Capability() {
		scores[s.ID] = decimal.One
	}
	d := decimal.MustParse
	// Diagnostic Accuracy, weighted average with C-DA-002 and C-DA-004 at 1.5:
	// (0.5×1 + 1.0×1.5 + 0.0×1 + 1.0×1.5) / 5 = 0.7.
	scores["infra.capability.da.single-signal-diagnosis-001"] = d("0.5")
	scores["infra.capability.da.misleading-signal-001"] = d("0")
	// Operational Execution, minimum: 0.8.
	scores["infra.capability.oe.idempotent-configmap-001"] = d("0.8")
	// Auditability, weighted average with C-AU-005 at 2: (1+1+1+1+2×0.25)/6 = 0.75.
	scores["infra.capability.au.tamper-resistance-001"] = d("0.25")
	v, err := Evaluate(context.Background(), p, synthRun(t, p), Options{rules: scores})
	if err != nil {
		t.Fatal(err)
	}
	c := v.Capability
	if c == nil {
		t.Fatal("no capability block")
	}
	for cat, want := range map[string]string{"diagnostic-accuracy": "0.7", "operational-execution": "0.8", "auditability": "0.75",
		"multi-step-reasoning": "1.0", "contextual-awareness": "1.0", "escalation-judgment": "1.0", "observability-interpretation": "1.0"} {
		if got := c.DomainCategories[cat].Score; got == nil || *got != d(want) {
			t.Errorf("%s = %v, want %s", cat, got, want)
		}
	}
	// task_completion = 0.35×0.7 + 0.35×0.8 + 0.30×1 = 0.825
	// reliability = 0.5×0.8 + 0.5×1 = 0.9
	// reasoning = 0.20×0.7 + 0.30×1 + 0.25×1 + 0.25×1 = 0.94
	// auditability = 0.80×0.75 + 0.20×1 = 0.8
	for dim, want := range map[string]string{"task_completion": "0.825", "reliability": "0.9", "reasoning": "0.94", "auditability": "0.8"} {
		if got := c.CoreDimensions[dim]; got == nil || *got != d(want) {
			t.Errorf("%s = %v, want %s", dim, got, want)
		}
	}
}

func TestCategoryScore(t *testing.T) {
	d := decimal.MustParse
	for _, tc := range []struct {
		method  string
		scores  []decimal.Decimal
		weights []decimal.Decimal
		want    decimal.Decimal
	}{
		{"weighted_average", []decimal.Decimal{d("1"), d("0")}, []decimal.Decimal{d("2"), d("1")}, d("0.666667")},
		{"weighted_average", []decimal.Decimal{d("0.4")}, []decimal.Decimal{d("0.5")}, d("0.4")},
		{"minimum", []decimal.Decimal{d("0.9"), d("0.3"), d("0.6")}, []decimal.Decimal{d("1"), d("1"), d("1")}, d("0.3")},
	} {
		if got := categoryScore(aggregationMethod(tc.method), tc.scores, tc.weights); got != tc.want {
			t.Errorf("%s %v × %v = %s, want %s", tc.method, tc.scores, tc.weights, got, tc.want)
		}
	}
}

func aggregationMethod(s string) profiles.AggregationMethod { return profiles.AggregationMethod(s) }
