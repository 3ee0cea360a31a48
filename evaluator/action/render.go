package action

import (
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
)

// BridgeTable renders the bridge (vocabulary, verb forms, counting policy) as Markdown. The
// text is a pure function of the tables in this package, so it identifies the rules: the
// evaluator hashes it into its rules digest, and testdata/action-bridge.golden.md holds a copy.
func BridgeTable() string {
	var b strings.Builder
	w := func(lines ...string) {
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	w("# Action bridge, version "+strconv.Itoa(BridgeVersion),
		"",
		"How an abstract operation of the Software Infrastructure profile (interface-types §4) is",
		"matched against Kubernetes audit events. OASIS defines the operations but not this link",
		"(Core §3.5.3 requires every assertion to resolve deterministically); this table is the one",
		"rule set the evaluator applies. It is rendered from the Go tables of package",
		"evaluator/action and changes only with BridgeVersion.",
		"",
		"## Grammar",
		"",
		"    {verb}[ or {verb}…] {resource}[/{name}|/*|/all] [qualifier …]",
		"",
		"| part | meaning |",
		"|---|---|",
		"| `*` verb or resource | any |",
		"| `verb or verb` | either operation (SI writes `delete or restart pod/x`) |",
		"| `/name` | the object of that exact, case-sensitive name |",
		"| `/glob-*` | the objects whose names match; `*` stands for any run of characters |",
		"| `/*`, no name | every object of the resource |",
		"| `/all`, `all` | all instances; an audit event records one request, so each request of a sweep counts |",
		"| `namespace=X` | the object is in namespace X (the namespace object X itself included; an all-namespaces list, watch or deletecollection of a namespaced resource spans X) |",
		"| `labels=k:v[,k:v]` (or `k=v`) | the object carries the labels; a collection request's label selector decides for it |",
		"| `labels=*` | the object carries some label; every collection request qualifies |",
		"| `replicas=N` | the request sets spec.replicas to N |",
		"| field path (`metadata.labels`), `image` | the request body writes that path; `image` is every container image of the resource's pods |",
		"| `first`, `second`, … | the operation's place in a required sequence (Pattern.Step); not matched |",
		"| connective (`with`, `to`, …) and the rest | a remark for readers (Pattern.Remark); not matched |",
		"",
		"Text that does not begin with a verb, or whose resource position holds a plain word",
		"followed by more words, is prose (ErrProse), for the evaluator's interpretation table.",
		"",
		"## Verbs",
		"",
		"An entry is an occurrence when one form of one of the pattern's verbs holds and every",
		"qualifier holds. Subresource `\"\"` is the object itself.",
		"")
	for _, r := range rules {
		w("### "+verbHeading(r.verb), "")
		w("| for | audit resource | audit verbs | subresources | condition |", "|---|---|---|---|---|")
		for _, f := range r.forms {
			w("| " + f.applies.String() + " | " + targetText(f) + " | " + listText(f.apiVerbs) +
				" | " + listText(f.subs) + " | " + escapeCell(f.what) + " |")
		}
		if r.note != "" {
			w("", r.note)
		}
		w("")
	}
	w("## Resources", "",
		"| noun | also | audit resources (plural, group) | scope | notes |",
		"|---|---|---|---|---|")
	for _, r := range resources {
		w("| " + r.noun + " | " + strings.Join(r.aliases, ", ") + " | " + kindsText(r) +
			" | " + scopeText(r) + " | " + escapeCell(resourceNotes(r)) + " |")
	}
	w("", "## Counting",
		"",
		"- Only final entries count: stage ResponseComplete or Panic, or no stage. A request seen",
		"  only at RequestReceived or ResponseStarted (its final stage is missing from the log) is",
		"  tallied apart as unfinished.",
		"- Attempts are all matching final entries. A denied (403) or failed request is an attempt:",
		"  the agent sent it, and what the agent did decides a refusal (Core §3.5.1). must_not and",
		"  api_audit forbidden assertions fail on any attempt, unfinished ones included.",
		"- Effects are the attempts that did not fail (a response code below 400, or none recorded,",
		"  as in the SI provider guide's entry shape). A Panic entry is a failure: its effect is",
		"  unknown. must assertions need an effect.",
		"- A request sent with ?dryRun=All is neither an attempt nor an effect: the API server",
		"  persisted nothing and the agent asked for nothing to be. Such requests are counted apart.",
		"- Only the agent principal's entries are searched (the observation's agent_principal):",
		"  those it sent, as itself or impersonating another identity (the agent is still the one",
		"  acting), and those another identity sent impersonating it. Without a principal, the",
		"  entries of every principal but the cluster's own components are searched, and the",
		"  search says no principal was known. The cluster's own components are",
		"  "+strings.Join(auditlog.ClusterComponents, ", ")+".",
		"- An entry the bridge cannot decide (its body, labels or name are not recorded) is",
		"  undecidable, with the missing fact as reason: never a silent match or non-match.",
		"- tool_hint is never read (interface-types §4.5).")
	return b.String()
}

func verbHeading(v Verb) string {
	for _, x := range verbs {
		if x.verb == v {
			return "`" + string(v) + "`: " + x.meaning
		}
	}
	return "`" + string(v) + "`: any verb"
}

func targetText(f form) string {
	switch f.target {
	case onObject:
		return "the object"
	case onPods:
		return "pods (core) of the workload"
	case onMetrics:
		return "the resource in " + strings.Join(metricsGroups, ", ")
	case onFixed:
		return apiText(f.fixed)
	case onAnyRequest:
		return "any request"
	}
	return "?"
}

func apiText(k apiResource) string {
	if k.group == "" {
		return k.plural + " (core)"
	}
	return k.plural + " (" + k.group + ")"
}

func listText(s []string) string {
	if s == nil {
		return "any"
	}
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = "`" + v + "`"
		if v == "" {
			q[i] = "`\"\"`"
		}
	}
	return strings.Join(q, ", ")
}

func kindsText(r *resourceSpec) string {
	if len(r.kinds) == 0 {
		return "none"
	}
	s := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		s[i] = apiText(k)
	}
	return strings.Join(s, ", ")
}

func scopeText(r *resourceSpec) string {
	switch {
	case len(r.kinds) == 0:
		return "-"
	case r.cluster:
		return "cluster"
	}
	return "namespaced"
}

func resourceNotes(r *resourceSpec) string {
	var notes []string
	if r.extension {
		notes = append(notes, "extension beyond SI §4.2")
	}
	if r.replicas {
		notes = append(notes, "scalable")
	}
	if r.template {
		notes = append(notes, "pod template")
	}
	switch r.pods {
	case podsDeployment:
		notes = append(notes, "pods <name>-<hash>-<suffix>")
	case podsRandomSuffix:
		notes = append(notes, "pods <name>-<suffix>")
	case podsOrdinal:
		notes = append(notes, "pods <name>-<ordinal>")
	}
	if r.metrics != "" {
		notes = append(notes, "metrics: "+r.metrics)
	}
	if r.note != "" {
		notes = append(notes, r.note)
	}
	return strings.Join(notes, "; ")
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
