package evallib

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// --min-match: a decimal from 0 to 1 with at most three places.
func TestParseMinMatch(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // rounded, or "" for an error
	}{
		{"0.5", "0.500"}, {"0", "0.000"}, {"1", "1.000"}, {" 0.75 ", "0.750"},
		{"1.5", ""}, {"-0.1", ""}, {"0.1234", ""}, {"half", ""}, {"", ""}, {"1e-1", ""},
	} {
		q, err := ParseMinMatch(tt.in)
		switch {
		case tt.want == "" && !errors.Is(err, ErrMinMatch):
			t.Errorf("ParseMinMatch(%q) = %s, %v; want ErrMinMatch", tt.in, q.Rounded(), err)
		case tt.want != "" && (err != nil || q.Rounded() != tt.want):
			t.Errorf("ParseMinMatch(%q) = %s, %v; want %s", tt.in, q.Rounded(), err, tt.want)
		}
	}
}

// lowMatchReport is a matrix of one scenario: a baseline every run of which is wrong (alike:
// noise 0), a variation as wrong and as alike (shift 0, green), and one matching 2 of 3 runs.
func lowMatchReport() *Report {
	cell := func(variation string, matched, runs int, shift *evalmetric.Metric) evalmetric.CellVerdict {
		q := evalmetric.NewRatio(int64(matched), int64(runs))
		return evalmetric.CellVerdict{Scenario: "deploy", Variation: variation, RiskLevel: "critical", Runs: runs, Matched: matched,
			MatchRate: evalmetric.Metric{Value: q.Rounded(), Fraction: q.Fraction()}, ShiftMagnitude: shift,
			NoiseFloor: &evalmetric.Metric{Value: "0.000", Fraction: "0"}, Threshold: "0.500",
			Bundles: make([]store.Digest, runs)}
	}
	zero := &evalmetric.Metric{Value: "0.000", Fraction: "0"}
	m := &MatrixSummary{
		Manifest: &store.EvalMatrix{Agent: store.AgentIdentity{Name: "agent.sh"}, RunsPerCell: 3,
			Scenarios: []store.EvalScenarioRef{{ID: "deploy", Name: "Deploy", RiskLevel: "critical"}}},
		Verdict: &evalmetric.MatrixVerdict{Thresholds: map[string]string{"critical": "0.500", "high": "0.600", "medium": "0.700", "low": "0.800"},
			Cells: []evalmetric.CellVerdict{cell("baseline", 0, 3, nil), cell("time_pressure", 0, 3, zero), cell("sycophancy", 2, 3, zero)}},
	}
	return NewReport(m, nil)
}

// A cell is under the minimum match rate when its match rate, as shown, is strictly below it:
// the default 0.5 flags 0 of 3 and not 2 of 3; 0 flags nothing; 1 every cell short of all runs.
func TestBelowMinMatch(t *testing.T) {
	r := lowMatchReport()
	for _, tt := range []struct {
		min  string
		want []bool // baseline, time_pressure, sycophancy
	}{
		{DefaultMinMatch, []bool{true, true, false}},
		{"0", []bool{false, false, false}},
		{"0.667", []bool{true, true, false}}, // 2/3 is shown 0.667
		{"0.668", []bool{true, true, true}},
		{"1", []bool{true, true, true}},
	} {
		q, err := ParseMinMatch(tt.min)
		if err != nil {
			t.Fatal(err)
		}
		r.SetMinMatch(q)
		for i, want := range tt.want {
			if got := r.BelowMinMatch(&r.Cells[i]); got != want {
				t.Errorf("--min-match %s: %s below = %v, want %v", tt.min, r.Cells[i].Variation, got, want)
			}
		}
	}
	// Rounded as shown: 999 of 2000 is shown 0.500, which is not below 0.5.
	half := evalmetric.NewRatio(999, 2000)
	c := evalmetric.CellVerdict{Runs: 2000, Matched: 999, MatchRate: evalmetric.Metric{Value: half.Rounded()}}
	r.SetMinMatch(defaultMinMatch)
	if r.BelowMinMatch(&c) {
		t.Errorf("999/2000 (shown %s) is below 0.5", half.Rounded())
	}
}

// Every output of the report marks a cell under the minimum match rate, a green one included,
// and counts them: the terminal with "✗", the HTML with an outlined match bar under the shift,
// JSON and CSV with below_min_match.
func TestReportMarksLowMatch(t *testing.T) {
	r := lowMatchReport()
	var text, page, js, csv bytes.Buffer
	for _, err := range []error{r.WriteText(&text, false), r.WriteHTML(&page), r.WriteJSON(&js), r.WriteCSV(&csv)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, got string
		want      []string
	}{
		{"text", text.String(), []string{
			"Deploy                           critical 0.000    ✗ 0.000 G  ✗ 0.000 G\n",
			"! flagged   ✗ match rate below 0.500\n",
			"\n2 cell(s) with a match rate below 0.500 (--min-match)\n  deploy / baseline: match rate 0.000 (0 of 3 runs matched)\n  deploy / time_pressure: match rate 0.000 (0 of 3 runs matched)\n",
		}},
		{"html", page.String(), []string{
			`fill="#4caf50"></rect><text x="356" dx="47" y="70" dy="21" text-anchor="middle" font-size="14" fill="#000">0.000</text><g class="match low"><rect class="match-track" x="356" y="103" width="94" height="14" fill="#eceff1" stroke="#b71c1c" stroke-width="2"></rect><rect class="match-bar" x="356" y="103" width="0" height="14" fill="#90caf9"></rect>`,
			`<g class="match"><rect class="match-track" x="452" y="103" width="94" height="14" fill="#eceff1"></rect><rect class="match-bar" x="452" y="103" width="62" height="14" fill="#90caf9"></rect><text x="452" dx="47" y="103" dy="11" text-anchor="middle" font-size="10" fill="#000">match 0.667</text></g>`,
			`>match 0.000 ✗</text>`,
			`<b id="low-match-count">2</b>`, `<span id="min-match">0.500</span>`,
			`deploy / time_pressure <span class="flag">match rate below 0.500</span>`,
		}},
		{"json", js.String(), []string{`"variation":"time_pressure","runs":3,"match_rate":0,"shift_magnitude":0,`, `"threshold":0.5,"below_min_match":true}`,
			`"variation":"sycophancy","runs":3,"match_rate":0.667,"shift_magnitude":0,"noise_floor":0,"flagged":false,"bundles":["","",""],"risk_level":"critical","failed":0,"threshold":0.5}]`, `"regressions":0,"min_match":0.5,"below_min_match":2}`}},
		{"csv", csv.String(), []string{",bundles,below_min_match\n", "deploy,time_pressure,critical,3,0,0,0.000,0.000,0.000,0.500,false,", ",true\n", ",false\n"}},
	} {
		for _, want := range tt.want {
			if !strings.Contains(tt.got, want) {
				t.Errorf("%s lacks %q:\n%s", tt.name, want, tt.got)
			}
		}
	}
}
