package kensastats

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"time"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/store"
)

// Run is what the report reads of one recorded run.
type Run struct {
	Bundle   store.Digest
	Scenario string
	Case     int
	RunID    string
	Status   string
	Checks   []ekensa.CheckResult
	// Judged is the judge's passed when a judgement was used.
	Judged   *bool
	HasTrace bool
	Cost     float64
	Duration float64
	Observed ekensa.Observed
	// Reproduced is false when two evaluations of the run gave different verdicts.
	Reproduced bool
	Verdict    store.Digest
	// Reason is the first cause of the run's not passing (see Reason), "" when it passed.
	Reason string
	// Definition is the scenario's definition tree; Time when the run was recorded (zero when
	// its recorder wrote no time): they choose the latest definition (see GatherSelected).
	Definition store.Digest
	Time       time.Time
}

// Report is the JSON of kensa stats.
type Report struct {
	Scenarios []*Scenario `json:"scenarios"`
	// Selection says which runs were counted (kensa stats); nil for a report over runs given.
	Selection *Selection `json:"selection,omitempty"`
}

// Scenario is one scenario's statistics.
type Scenario struct {
	ID                string            `json:"id"`
	Runs              int               `json:"runs"`
	PassRate          Fixed             `json:"pass_rate"`
	Wilson95          [2]Fixed          `json:"wilson95"`
	PassK             map[string]Fixed  `json:"pass_k"`
	PassKObserved     map[string]*Fixed `json:"pass_k_observed"`
	Flaky             bool              `json:"flaky"`
	KensaFlaky        bool              `json:"kensa_flaky"`
	VarianceSource    string            `json:"variance_source"`
	Cases             []*Case           `json:"cases"`
	EvaluatorVariance int               `json:"evaluator_variance"`
	StatusCounts      map[string]int    `json:"status_counts"`
	Pending           int               `json:"pending"`
	Checks            []CheckStat       `json:"checks"`
	// Traced is how many runs carry a trace: Cost and Duration are over those runs only, and
	// are zeros, not measurements, when there are none.
	Traced     int         `json:"traced_runs"`
	Cost       Spread      `json:"cost"`
	Duration   Spread      `json:"duration"`
	Flags      []Flag      `json:"flags"`
	Divergence *Divergence `json:"divergence"`
	// Listed are the scenario's runs in the report's order; the JSON lists them once, in the
	// selection.
	Listed []Listed `json:"-"`
}

// Case is one dataset row's (or the scenario's only case's) runs.
type Case struct {
	Case     int   `json:"case"`
	Runs     int   `json:"runs"`
	Passes   int   `json:"passes"`
	PassRate Fixed `json:"pass_rate"`
	Flaky    bool  `json:"flaky"`
}

// CheckStat is Kensa's AssertionStat.
type CheckStat struct {
	Type     string `json:"type"`
	Passes   int    `json:"passes"`
	Total    int    `json:"total"`
	PassRate Fixed  `json:"pass_rate"`
}

// Spread is Kensa's VarianceStats.
type Spread struct {
	Mean   Fixed `json:"mean"`
	Stddev Fixed `json:"stddev"`
	Min    Fixed `json:"min"`
	Max    Fixed `json:"max"`
}

// Flag is one of Kensa's anomaly flags on a run.
type Flag struct {
	RunID  string       `json:"run_id"`
	Bundle store.Digest `json:"bundle"`
	Flag   string       `json:"flag"`
	Detail string       `json:"detail"`
}

// Divergence is the first point where a passing and a failing run of one case differ.
type Divergence struct {
	Case    int          `json:"case"`
	Passing store.Digest `json:"passing"`
	Failing store.Digest `json:"failing"`
	// Kind is tool_call (a different tool at Index), argument (the same tool with other
	// arguments), extra_call (one run made more calls), output (same calls, other output) or
	// none (the evidence a check reads is the same).
	Kind string `json:"kind"`
	// Index is the call at which the runs differ, counted from 0; -1 for output and none,
	// which are at no call (Where says so in words).
	Index       int    `json:"index"`
	PassingSide string `json:"passing_side"`
	FailingSide string `json:"failing_side"`
}

// Where says where the runs differ, for people: " at call N" for a difference in the calls,
// "" for output and none, which are at no call (their Index, -1, is not a call).
func (d *Divergence) Where() string {
	if d.Index < 0 {
		return ""
	}
	return fmt.Sprintf(" at call %d", d.Index)
}

// Fixed is a number printed with a fixed number of decimals.
type Fixed struct {
	V      float64
	Places int
}

// MarshalJSON writes the number with its places.
func (f Fixed) MarshalJSON() ([]byte, error) { return []byte(f.String()), nil }

func (f Fixed) String() string {
	if math.IsNaN(f.V) || math.IsInf(f.V, 0) {
		return "null"
	}
	return strconv.FormatFloat(f.V, 'f', f.Places, 64)
}

func fixed4(v float64) Fixed { return Fixed{V: v, Places: 4} }
func fixed6(v float64) Fixed { return Fixed{V: v, Places: 6} }

// Compute builds the report over runs, for the scenarios named (all when none).
func Compute(runs []Run, only []string) *Report {
	byScenario := map[string][]Run{}
	for _, r := range runs {
		if len(only) == 0 || slices.Contains(only, r.Scenario) {
			byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
		}
	}
	flags := analyze(runs)
	rep := &Report{Scenarios: []*Scenario{}}
	for _, id := range slices.Sorted(mapsKeys(byScenario)) {
		rep.Scenarios = append(rep.Scenarios, scenario(id, byScenario[id], flags))
	}
	return rep
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func scenario(id string, runs []Run, flags map[store.Digest][]Flag) *Scenario {
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Case, b.Case), cmp.Compare(a.RunID, b.RunID), a.Bundle.Compare(b.Bundle))
	})
	s := &Scenario{ID: id, Runs: len(runs), StatusCounts: map[string]int{}, Flags: []Flag{}, Cases: []*Case{}}
	passes := 0
	for _, r := range runs {
		s.StatusCounts[ekensa.AsKensa(r.Status)]++
		if r.Status == ekensa.StatusPending {
			s.Pending++
		}
		if r.Status == ekensa.StatusPass {
			passes++
		}
		if !r.Reproduced {
			s.EvaluatorVariance++
		}
		s.Flags = append(s.Flags, flags[r.Bundle]...)
		s.Listed = append(s.Listed, Listed{Bundle: r.Bundle, RunID: r.RunID, Scenario: r.Scenario, Case: r.Case,
			Definition: r.Definition, Status: r.Status, Reason: r.Reason})
	}
	rate := float64(passes) / float64(len(runs))
	s.PassRate = fixed4(pyvalue.Round(rate, 4))
	lo, hi := wilson(passes, len(runs))
	s.Wilson95 = [2]Fixed{fixed4(lo), fixed4(hi)}
	s.PassK = map[string]Fixed{}
	for _, k := range []int{1, 3, 5} {
		s.PassK[strconv.Itoa(k)] = fixed6(pyvalue.Round(pyvalue.PowInt(rate, k), 6))
	}
	s.KensaFlaky = 0.2 < rate && rate < 0.8
	s.cases(runs)
	s.PassKObserved = observedPassK(s.Cases)
	s.Checks = checkStats(runs)
	var costs, durations []float64
	for _, r := range runs {
		if r.HasTrace {
			costs, durations = append(costs, r.Cost), append(durations, r.Duration)
		}
	}
	s.Traced, s.Cost, s.Duration = len(costs), spread(costs), spread(durations)
	s.Divergence = divergence(runs, s.Cases)
	return s
}

// cases groups runs by dataset row and decides where the variance comes from.
func (s *Scenario) cases(runs []Run) {
	byCase := map[int]*Case{}
	for _, r := range runs {
		c, ok := byCase[r.Case]
		if !ok {
			c = &Case{Case: r.Case}
			byCase[r.Case] = c
			s.Cases = append(s.Cases, c)
		}
		c.Runs++
		if r.Status == ekensa.StatusPass {
			c.Passes++
		}
	}
	rates := map[bool]bool{}
	for _, c := range s.Cases {
		c.PassRate = fixed4(pyvalue.Round(float64(c.Passes)/float64(c.Runs), 4))
		c.Flaky = c.Passes > 0 && c.Passes < c.Runs
		s.Flaky = s.Flaky || c.Flaky
		rates[c.Passes > 0] = true
	}
	rowsDiffer := len(s.Cases) > 1 && len(rates) > 1
	switch {
	case s.Flaky && rowsDiffer:
		s.VarianceSource = "repeats and rows"
	case s.Flaky:
		s.VarianceSource = "repeats"
	case rowsDiffer:
		s.VarianceSource = "rows"
	default:
		s.VarianceSource = "none"
	}
}

// wilson is the Wilson score interval for passes out of n at 95%.
func wilson(passes, n int) (float64, float64) {
	const z = 1.959963984540054
	if n == 0 {
		return 0, 0
	}
	p := float64(passes) / float64(n)
	nf := float64(n)
	z2 := float64(z * z)
	denom := 1 + z2/nf
	center := (p + z2/float64(2*nf)) / denom
	margin := float64(z*math.Sqrt(float64(p*(1-p))/nf+z2/float64(4*nf*nf))) / denom
	return pyvalue.Round(max(0, center-margin), 4), pyvalue.Round(min(1, center+margin), 4)
}

func observedPassK(cases []*Case) map[string]*Fixed {
	out := map[string]*Fixed{}
	for _, k := range []int{1, 3, 5} {
		sum := new(big.Rat)
		count := 0
		for _, c := range cases {
			if c.Runs < k {
				continue
			}
			sum.Add(sum, new(big.Rat).SetFrac(binomial(c.Passes, k), binomial(c.Runs, k)))
			count++
		}
		if count == 0 {
			out[strconv.Itoa(k)] = nil
			continue
		}
		f, _ := sum.Quo(sum, big.NewRat(int64(count), 1)).Float64()
		v := fixed6(pyvalue.Round(f, 6))
		out[strconv.Itoa(k)] = &v
	}
	return out
}

func binomial(n, k int) *big.Int {
	if k > n {
		return big.NewInt(0)
	}
	return new(big.Int).Binomial(int64(n), int64(k))
}

// checkStats is aggregate.py's assertion stats: every check result and the judge
// (llm_judge), by name.
func checkStats(runs []Run) []CheckStat {
	m := map[string]*CheckStat{}
	add := func(name string, passed bool) {
		c, ok := m[name]
		if !ok {
			c = &CheckStat{Type: name}
			m[name] = c
		}
		c.Total++
		if passed {
			c.Passes++
		}
	}
	for _, r := range runs {
		for _, c := range r.Checks {
			add(c.Check, c.Passed)
		}
		if r.Judged != nil {
			add("llm_judge", *r.Judged)
		}
	}
	out := []CheckStat{}
	for _, name := range slices.Sorted(mapsKeys(m)) {
		c := m[name]
		c.PassRate = fixed4(pyvalue.Round(float64(c.Passes)/float64(c.Total), 4))
		out = append(out, *c)
	}
	return out
}

// spread is aggregate.compute_variance_stats.
func spread(values []float64) Spread {
	if len(values) == 0 {
		return Spread{fixed6(0), fixed6(0), fixed6(0), fixed6(0)}
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(len(values))
	stddev := 0.0
	if len(values) > 1 {
		ss := 0.0
		for _, v := range values {
			d := v - mean
			ss += float64(d * d)
		}
		stddev = math.Sqrt(ss / float64(len(values)-1))
	}
	return Spread{fixed6(pyvalue.Round(mean, 6)), fixed6(pyvalue.Round(stddev, 6)),
		fixed6(pyvalue.Round(slices.Min(values), 6)), fixed6(pyvalue.Round(slices.Max(values), 6))}
}

// analyze is analyzer.analyze_traces' flags over every run with a trace.
func analyze(runs []Run) map[store.Digest][]Flag {
	flags := map[store.Digest][]Flag{}
	var traced []Run
	for _, r := range runs {
		if !r.HasTrace {
			continue
		}
		traced = append(traced, r)
		add := func(flag, detail string) {
			flags[r.Bundle] = append(flags[r.Bundle], Flag{RunID: runLabel(r), Bundle: r.Bundle, Flag: flag, Detail: detail})
		}
		if r.Observed.ErrorSpans {
			add("error", "Trace contains error spans")
		}
		if r.Observed.LLMCalls > 20 {
			add("high_turn_count", fmt.Sprintf("%d LLM calls", r.Observed.LLMCalls))
		}
		if len(r.Observed.Repeated) > 0 {
			add("repeated_tool_call", "Repeated call to "+r.Observed.Repeated[0])
		}
	}
	outliers := func(flag string, value func(Run) float64, detail func(v, ratio float64) string) {
		vals := make([]float64, len(traced))
		for i, r := range traced {
			vals[i] = value(r)
		}
		med := median(vals)
		if med <= 0 {
			return
		}
		for i, r := range traced {
			if ratio := vals[i] / med; ratio > 3 {
				flags[r.Bundle] = append(flags[r.Bundle], Flag{RunID: runLabel(r), Bundle: r.Bundle, Flag: flag, Detail: detail(vals[i], ratio)})
			}
		}
	}
	outliers("cost_outlier", func(r Run) float64 { return r.Cost }, func(v, ratio float64) string {
		return fmt.Sprintf("cost $%s, %sx median", pyvalue.Fixed(v, 4), pyvalue.Fixed(ratio, 1))
	})
	// Kensa's analyzer measures each trace's duration from its spans, unrounded; the
	// aggregate's duration (Run.Duration) is the result's, rounded to 0.01 s.
	outliers("latency_outlier", func(r Run) float64 { return r.Observed.Duration }, func(v, ratio float64) string {
		return fmt.Sprintf("%ss, %sx median", pyvalue.Fixed(v, 1), pyvalue.Fixed(ratio, 1))
	})
	return flags
}

// runLabel names a run: its Kensa run id, with the dataset row when there is one.
func runLabel(r Run) string {
	if r.Case > 0 {
		return fmt.Sprintf("%s#%d", r.RunID, r.Case)
	}
	return r.RunID
}

// median is statistics.median.
func median(vals []float64) float64 {
	if len(vals) == 0 {
		return 0
	}
	s := slices.Clone(vals)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// divergence finds, in the first flaky case, where a passing and a failing run first differ.
func divergence(runs []Run, cases []*Case) *Divergence {
	for _, c := range cases {
		if !c.Flaky {
			continue
		}
		var pass, fail *Run
		for i := range runs {
			r := &runs[i]
			if r.Case != c.Case {
				continue
			}
			if r.Status == ekensa.StatusPass && pass == nil {
				pass = r
			} else if r.Status != ekensa.StatusPass && fail == nil {
				fail = r
			}
		}
		return locate(c.Case, pass, fail)
	}
	return nil
}

func locate(caseN int, pass, fail *Run) *Divergence {
	d := &Divergence{Case: caseN, Passing: pass.Bundle, Failing: fail.Bundle, Kind: "none", Index: -1}
	p, f := pass.Observed, fail.Observed
	for i := range max(len(p.Calls), len(f.Calls)) {
		switch {
		case i >= len(p.Calls) || i >= len(f.Calls):
			d.Kind, d.Index = "extra_call", i
			d.PassingSide, d.FailingSide = at(p.Calls, i), at(f.Calls, i)
			return d
		case p.CallNames[i] != f.CallNames[i]:
			d.Kind, d.Index = "tool_call", i
		case p.Calls[i] != f.Calls[i]:
			d.Kind, d.Index = "argument", i
		default:
			continue
		}
		d.PassingSide, d.FailingSide = p.Calls[i], f.Calls[i]
		return d
	}
	if p.Output != f.Output {
		d.Kind, d.PassingSide, d.FailingSide = "output", p.Output, f.Output
	}
	return d
}

func at(calls []string, i int) string {
	if i < len(calls) {
		return calls[i]
	}
	return "(no call)"
}
