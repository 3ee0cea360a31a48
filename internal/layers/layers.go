package layers

import (
	"fmt"
	"slices"
	"strings"
)

// Groups of packages the table names, from the bottom up. A pattern ending in "/..." is the
// package and every package below it.
var (
	base      = []string{"internal/...", "store"}
	formats   = append(slices.Clone(base), "formats/...")
	models    = append(slices.Clone(formats), "profiles", "profiles/...")
	evaluated = append(slices.Clone(models), "evaluator/...")
	replayed  = append(slices.Clone(evaluated), "replay", "attest")
	recorded  = append(slices.Clone(models), "recorder/...")
)

// Rule says what the packages matching From may import from this module.
type Rule struct {
	From string
	May  []string
	// Why is said when the rule is an exception to the layers, or holds a choice worth stating.
	Why string
}

// Table is the one table of allowed imports inside the module, bottom layer first. A package is
// governed by the first rule whose From matches it; every package must match one. Layers point
// one way: cmd → {recorder, replay, report, golden, demo, …} → evaluator → profiles → formats →
// store. No row below cmd and tools names store/badgerstore: only the program chooses a
// concrete store.
var Table = []Rule{
	{From: "internal/...", May: []string{"internal/..."}, Why: "support code with no knowledge of the project's model"},
	{From: "store", May: []string{"internal/..."}},
	{From: "store/badgerstore", May: []string{"store", "internal/..."}, Why: "the concrete store: only cmd and tools import it"},
	{From: "store/...", May: []string{"store", "internal/..."}},
	{From: "attest", May: base, Why: "signed receipts: DSSE and in-toto around store digests"},
	{From: "formats/...", May: base, Why: "each outside format read in one package, over the store's evidence model"},
	{From: "profiles/...", May: models},
	{From: "evaluator/...", May: evaluated},
	{From: "recorder/kensa", May: append(slices.Clone(recorded), "evaluator/kensa"),
		Why: "exception: kensa run applies Kensa's fail-fast, asking the judge only when the deterministic checks pass, so the runner evaluates a run's checks while it records"},
	{From: "recorder/...", May: recorded, Why: "the recorder never imports the evaluator: what both need is in formats and profiles"},
	{From: "replay/...", May: replayed},
	{From: "report", May: replayed, Why: "audit uses replay"},
	{From: "kensastats", May: replayed, Why: "statistics over many runs use replay"},
	{From: "golden", May: append(slices.Clone(replayed), "recorder", "store/archive"),
		Why: "the corpus uses replay, and recipes record their bundles as the recorder does; archives are imported"},
	{From: "evallib", May: append(slices.Clone(evaluated), "recorder/evalrun"), Why: "Eval Library runs execute the agent through the recorder's runner"},
	{From: "serve", May: append(slices.Clone(evaluated), "evallib", "recorder/evalrun"), Why: "the HTTP API serves the Eval Library"},
	{From: "serve/provider", May: formats, Why: "the replay provider answers from recorded exchanges: it reads the exchange format and the store, and evaluates nothing"},
	{From: "remote", May: append(slices.Clone(base), "store/archive"), Why: "bundles travel to registries and buckets as archives without the tar framing"},
	{From: "remote/...", May: append(slices.Clone(base), "remote"), Why: "the backends: one per kind of remote"},
	{From: "demo", May: append(slices.Clone(replayed), "recorder", "recorder/kensa", "recorder/evalrun", "report", "kensastats", "evallib"),
		Why: "the demo uses the others: it records, replays and audits an example of each kind of evaluation"},
	{From: "difftest", May: base, Why: "differential tests of live and imported recordings: everything it imports, it imports in its tests"},
	{From: "cmd/...", May: []string{"..."}},
	{From: "tools/...", May: []string{"..."}},
}

// Violation is an import the table does not allow, or a package no rule covers.
type Violation struct {
	From, To string
	// Rule is the rule that governs From; nil when no rule covers it.
	Rule *Rule
}

func (v Violation) String() string {
	if v.Rule == nil {
		return fmt.Sprintf("%s: no rule of the layer table covers this package; add one to internal/layers.Table", v.From)
	}
	return fmt.Sprintf("%s imports %s: the layer table allows it only %s", v.From, v.To, strings.Join(v.Rule.May, ", "))
}

// Check lists the imports of graph (package → the module packages it imports, paths relative
// to the module) that the table does not allow, in path order.
func Check(table []Rule, graph map[string][]string) []Violation {
	var out []Violation
	for _, from := range sortedKeys(graph) {
		rule := governing(table, from)
		if rule == nil {
			out = append(out, Violation{From: from})
			continue
		}
		imports := slices.Sorted(slices.Values(graph[from]))
		for _, to := range imports {
			if !slices.ContainsFunc(rule.May, func(p string) bool { return match(p, to) }) {
				out = append(out, Violation{From: from, To: to, Rule: rule})
			}
		}
	}
	return out
}

// governing returns the first rule whose From matches pkg.
func governing(table []Rule, pkg string) *Rule {
	for i := range table {
		if match(table[i].From, pkg) {
			return &table[i]
		}
	}
	return nil
}

// match reports whether pkg is pattern, or below it when pattern ends in "/..."; "..." alone
// matches every package.
func match(pattern, pkg string) bool {
	if pattern == "..." {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
	}
	return pkg == pattern
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
