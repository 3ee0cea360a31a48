package kensadiff

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	ekensa "github.com/oasis-replay/oasis-replay/evaluator/kensa"
	"github.com/oasis-replay/oasis-replay/internal/kensagen"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
	"github.com/oasis-replay/oasis-replay/kensastats"
	"github.com/oasis-replay/oasis-replay/store"
)

// runOutcome is one run of one seed and everything that disagrees about it.
type runOutcome struct {
	seed  uint64
	index int
	diffs []diff
	// audit is what audit says of Kensa's result after kensa import (ekensa.Outcome):
	// reproduced, not-re-derivable, or mismatch — which, Kensa's result being Kensa's own,
	// accuses a correct result. "" when the run was not imported.
	audit string
}

// diff is one disagreement: the side (run: kensa run; import: kensa import + replay; stats-*:
// kensa stats over either), the field, Kensa's value and oasis-replay's.
type diff struct {
	side, field, check string
	kensa, ours        string
	// notReDerivable is why the evaluator says it cannot evaluate this as Kensa would (an
	// audit's not-re-derivable finding, not a mismatch); "" for a mismatch.
	notReDerivable string
}

func (d diff) String() string {
	c := ""
	if d.check != "" {
		c = " (" + d.check + ")"
	}
	return fmt.Sprintf("%s %s%s: Kensa %s, oasis-replay %s", d.side, d.field, c, clip(d.kensa), clip(d.ours))
}

var index = regexp.MustCompile(`\[[0-9]+\]`)

// cause is the class of a disagreement: side, field without indices, and the check type.
func (d diff) cause() string {
	c := d.side + " " + index.ReplaceAllString(d.field, "[]")
	if d.check != "" {
		c += " " + d.check
	}
	if d.notReDerivable != "" {
		c += " [not re-derivable]"
	}
	return c
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// runBatch runs one project through Kensa and both oasis-replay sides and compares.
func runBatch(t *testing.T, k *kensaTool, batch []*kensagen.Scenario) []runOutcome {
	t.Helper()
	dir := t.TempDir()
	exe, err := osExecutable()
	if err != nil {
		t.Fatal(err)
	}
	if err := kensagen.Write(dir, []string{exe, kensagen.AgentArg}, batch); err != nil {
		t.Fatal(err)
	}
	live := runWithRecorder(t, dir, batch)
	kr := k.run(t, dir)
	imported, problems, importErr := importKensa(dir)
	var out []runOutcome
	liveStats, liveFlags := statsOf(live)
	importStats, importFlags := statsOf(imported)
	flagDiffs := map[string]map[string][]diff{"run": compareFlags("run", kr.flags, liveFlags),
		"import": compareFlags("import", kr.flags, importFlags)}
	for _, s := range batch {
		claimed := kr.results[s.ID]
		first := len(out)
		for i := range max(len(claimed), s.Runs) {
			o := runOutcome{seed: s.Seed, index: i}
			if i >= len(claimed) {
				o.diffs = append(o.diffs, diff{side: "kensa", field: "runs", kensa: fmt.Sprint(len(claimed)), ours: fmt.Sprint(s.Runs)})
				out = append(out, o)
				continue
			}
			o.diffs = append(o.diffs, compareRun("run", claimed[i], at(live[s.ID], i), true)...)
			if importErr != nil {
				o.diffs = append(o.diffs, diff{side: "import", field: "import", kensa: "imported", ours: importErr.Error()})
			} else {
				d := at(imported[s.ID], i)
				if d.err != nil && len(problems) > 0 {
					d.err = fmt.Errorf("%w; the import's problems: %s", d.err, strings.Join(problems, "; "))
				}
				o.diffs = append(o.diffs, compareRun("import", claimed[i], d, false)...)
				if d.err == nil {
					o.audit = ekensa.Outcome(ekensa.Compare(d.result, claimed[i]))
				}
			}
			for _, side := range []string{"run", "import"} {
				if id := traceOf(live[s.ID], imported[s.ID], i); id != "" {
					o.diffs = append(o.diffs, flagDiffs[side][id]...)
					delete(flagDiffs[side], id)
				}
			}
			out = append(out, o)
		}
		// A scenario's statistics are compared where its runs agree: a difference in a run
		// is reported once, as that run's.
		for side, st := range map[string]map[string]*kensastats.Scenario{"run": liveStats, "import": importStats} {
			if sideAgrees(out[first:], side) {
				d := compareStats(kr.stats[s.ID], st[s.ID], "stats-"+side)
				for i := first; i < len(out) && len(d) > 0; i++ {
					out[i].diffs = append(out[i].diffs, d...)
				}
			}
		}
	}
	for _, side := range []string{"run", "import"} {
		for id, ds := range flagDiffs[side] {
			// A flag of a trace no run of either side has (Kensa's traces of runs oasis-replay
			// made no trace of): the first run stands for the project.
			if len(out) > 0 {
				for _, d := range ds {
					d.field = "flag of trace " + id
					out[0].diffs = append(out[0].diffs, d)
				}
			}
		}
	}
	return out
}

// traceOf is the trace id of run i, as either side read it.
func traceOf(live, imported []derived, i int) string {
	for _, ds := range [][]derived{imported, live} {
		if i < len(ds) && ds[i].traceID != "" {
			return ds[i].traceID
		}
	}
	return ""
}

func sideAgrees(runs []runOutcome, side string) bool {
	for _, o := range runs {
		for _, d := range o.diffs {
			if d.side == side || d.side == "kensa" {
				return false
			}
		}
	}
	return true
}

func at(ds []derived, i int) derived {
	if i < len(ds) {
		return ds[i]
	}
	return derived{err: fmt.Errorf("no run %d (%d runs)", i, len(ds))}
}

// compareRun compares Kensa's result with a derived one. For kensa run (live), the texts that
// name a machine's paths or say what a process printed (the trace path, an error's text) are
// not compared: the status, checks, metrics and trace numbers are.
func compareRun(side string, claimed pyvalue.Value, d derived, live bool) []diff {
	if d.err != nil {
		return []diff{{side: side, field: "evaluation", kensa: statusOf(claimed), ours: d.err.Error()}}
	}
	var out []diff
	checks, _ := claimed.Get("check_results")
	for _, df := range ekensa.Compare(d.result, claimed) {
		if df.Wording != "" {
			continue
		}
		if live && (df.Field == "trace.path" || df.Field == "error") {
			continue
		}
		x := diff{side: side, field: df.Field, kensa: df.Claimed, ours: df.Derived, notReDerivable: df.NotReDerivable}
		if m := index.FindString(df.Field); m != "" && strings.HasPrefix(df.Field, "check_results[") {
			var i int
			fmt.Sscanf(m, "[%d]", &i)
			if i < len(checks.Items()) {
				c, _ := checks.Items()[i].Get("check")
				x.check, _ = c.AsStr()
			}
		}
		if x.check == "" && df.Field == "status" {
			x.check = firstCheckDiff(claimed, d.result)
		}
		out = append(out, x)
	}
	return out
}

// firstCheckDiff names the first check whose passed differs, to class a status difference.
func firstCheckDiff(claimed pyvalue.Value, r *ekensa.Result) string {
	checks, _ := claimed.Get("check_results")
	for i, c := range checks.Items() {
		if i >= len(r.CheckResults) {
			break
		}
		p, _ := c.Get("passed")
		if b, _ := p.AsBool(); b != r.CheckResults[i].Passed {
			return r.CheckResults[i].Check
		}
	}
	if e, _ := claimed.Get("error"); !e.IsNull() {
		s, _ := e.AsStr()
		return "error: " + firstLine(s)
	}
	if r.Error != nil {
		return "error: " + firstLine(*r.Error)
	}
	return ""
}

var digits = regexp.MustCompile(`[0-9]+|'[^']*'|"[^"]*"`)

// firstLine is an error's first line with numbers and quoted text left out, to class errors.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = digits.ReplaceAllString(s, "…")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

func statusOf(v pyvalue.Value) string {
	s, _ := v.Get("status")
	str, _ := s.AsStr()
	return str
}

// statsOf is kensa stats' report over derived runs, by scenario, and its flags as
// "trace-id flag: detail" lines (kensa stats flags runs; Kensa's analyzer flags traces, and
// each generated run is one trace).
func statsOf(runs map[string][]derived) (map[string]*kensastats.Scenario, []string) {
	var all []kensastats.Run
	traceOf := map[store.Digest]string{}
	for sid, ds := range runs {
		for i, d := range ds {
			if d.err != nil {
				continue
			}
			r := d.result
			run := kensastats.Run{Bundle: store.Digest(sha256.Sum256(fmt.Appendf(nil, "%s/%d", sid, i))), Scenario: r.ScenarioID,
				Case: r.Case, RunID: "kensadiff", Status: r.Status, Checks: r.CheckResults, Reproduced: true, Observed: d.observed}
			traceOf[run.Bundle] = d.traceID
			if r.Trace != nil {
				run.HasTrace, run.Cost, run.Duration = true, r.Trace.CostUSD, r.Trace.DurationSeconds
			}
			all = append(all, run)
		}
	}
	out := map[string]*kensastats.Scenario{}
	var flags []string
	for _, s := range kensastats.Compute(all, nil).Scenarios {
		out[s.ID] = s
		for _, f := range s.Flags {
			flags = append(flags, fmt.Sprintf("%s %s: %s", traceOf[f.Bundle], f.Flag, f.Detail))
		}
	}
	slices.Sort(flags)
	return out, flags
}

// compareFlags compares Kensa's analyzer's flags with kensa stats', each flag seen on one side
// only a difference of the run whose trace it names.
func compareFlags(side string, kensa, ours []string) map[string][]diff {
	out := map[string][]diff{}
	add := func(f string, d diff) {
		id, _, _ := strings.Cut(f, " ")
		out[id] = append(out[id], d)
	}
	for _, f := range kensa {
		if !slices.Contains(ours, f) {
			add(f, diff{side: "flags-" + side, field: "flag", kensa: f, ours: "(none)"})
		}
	}
	for _, f := range ours {
		if !slices.Contains(kensa, f) {
			add(f, diff{side: "flags-" + side, field: "flag", kensa: "(none)", ours: f})
		}
	}
	return out
}

// compareStats compares Kensa's aggregate of a scenario with kensa stats'.
func compareStats(k kensaAggregate, s *kensastats.Scenario, side string) []diff {
	if s == nil {
		return []diff{{side: side, field: "scenario", kensa: fmt.Sprintf("%d runs", k.NumRuns), ours: "no runs"}}
	}
	var out []diff
	add := func(field string, kv, ov any) {
		if fmt.Sprint(kv) != fmt.Sprint(ov) {
			out = append(out, diff{side: side, field: field, kensa: fmt.Sprint(kv), ours: fmt.Sprint(ov)})
		}
	}
	add("num_runs", k.NumRuns, s.Runs)
	add("pass_rate", k.PassRate, s.PassRate.V)
	for _, key := range []string{"3", "5"} {
		add("pass_k."+key, k.PassPowK[key], s.PassK[key].V)
	}
	add("status_counts", k.StatusCounts, s.StatusCounts)
	add("cost", k.Cost, spread{s.Cost.Mean.V, s.Cost.Stddev.V, s.Cost.Min.V, s.Cost.Max.V})
	add("duration", k.Duration, spread{s.Duration.Mean.V, s.Duration.Stddev.V, s.Duration.Min.V, s.Duration.Max.V})
	var ka, oa []string
	for _, a := range k.AssertionStats {
		ka = append(ka, fmt.Sprintf("%s %d/%d %v", a.Name, a.PassCount, a.TotalCount, a.PassRate))
	}
	for _, c := range s.Checks {
		oa = append(oa, fmt.Sprintf("%s %d/%d %v", c.Type, c.Passes, c.Total, c.PassRate.V))
	}
	add("assertion_stats", ka, oa)
	add("high_variance", k.HighVariance, s.KensaFlaky)
	return out
}
