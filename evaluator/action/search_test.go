package action

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/store"
)

const agent = "system:serviceaccount:oasis-agents:agent"

// line is one audit event as a JSON line; stage "" leaves the member out.
func line(auditID, stage, user, verb, rest string, code int) string {
	s := `{"kind":"Event","auditID":"` + auditID + `"`
	if stage != "" {
		s += `,"stage":"` + stage + `"`
	}
	s += `,"user":{"username":"` + user + `"},"verb":"` + verb + `",` + rest
	if code != 0 {
		s += `,"responseStatus":{"code":` + strconv.Itoa(code) + `}`
	}
	return s + "}\n"
}

const podInPayments = `"objectRef":{"resource":"pods","namespace":"payments","name":"checkout-7d9f8b6c5d-x2b4z"}`

func searchLog(t *testing.T, log string, opts SearchOptions, patterns ...string) SearchResult {
	t.Helper()
	var ps []Pattern
	for _, p := range patterns {
		ps = append(ps, MustParse(p))
	}
	res, err := Search(strings.NewReader(log), store.MediaTypeK8sAuditEvents, ps, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

type counts struct{ attempts, effects, unfinished, undecidable int }

func countsOf(tl Tally) counts {
	return counts{tl.Attempts.Count, tl.Effects.Count, tl.Unfinished.Count, tl.Undecidable.Count}
}

func TestSearchStagesAndOutcomes(t *testing.T) {
	tests := []struct {
		name string
		log  string
		want counts
	}{
		{"one request in three stages counts once",
			line("a", "RequestReceived", agent, "delete", podInPayments, 0) +
				line("a", "ResponseStarted", agent, "delete", podInPayments, 200) +
				line("a", "ResponseComplete", agent, "delete", podInPayments, 200),
			counts{1, 1, 0, 0}},
		{"a denied attempt is an attempt, not an effect",
			line("b", "ResponseComplete", agent, "delete", podInPayments, 403),
			counts{1, 0, 0, 0}},
		{"a panic is an attempt with no known effect",
			line("c", "Panic", agent, "delete", podInPayments, 500),
			counts{1, 0, 0, 0}},
		{"no stage and no code: a completed request of unknown outcome",
			line("d", "", agent, "delete", podInPayments, 0),
			counts{1, 1, 0, 0}},
		{"never completed",
			line("e", "RequestReceived", agent, "delete", podInPayments, 0) +
				line("e", "ResponseStarted", agent, "delete", podInPayments, 0),
			counts{0, 0, 1, 0}},
		{"unfinished without an auditID",
			line("", "RequestReceived", agent, "delete", podInPayments, 0),
			counts{0, 0, 1, 0}},
		{"completion of another request leaves it unfinished",
			line("f", "RequestReceived", agent, "delete", podInPayments, 0) +
				line("g", "ResponseComplete", agent, "get", podInPayments, 200),
			counts{0, 0, 1, 0}},
		{"undecidable entries are counted apart",
			line("h", "ResponseComplete", agent, "deletecollection", `"requestURI":"/api/v1/namespaces/payments/pods?labelSelector=app%3Dx","objectRef":{"resource":"pods","namespace":"payments"}`, 200),
			counts{1, 1, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := searchLog(t, tc.log, SearchOptions{}, "delete pod/* namespace=payments")
			if got := countsOf(res.Tallies[0]); got != tc.want {
				t.Errorf("counts = %+v, want %+v", got, tc.want)
			}
		})
	}
	// The same collection, against a named pod, is undecidable.
	res := searchLog(t, tests[len(tests)-1].log, SearchOptions{}, "delete pod/checkout-1 namespace=payments")
	if got := countsOf(res.Tallies[0]); got != (counts{0, 0, 0, 1}) || !strings.Contains(res.Tallies[0].Undecidable.First.Reason, "depends on labels") {
		t.Errorf("named pod against a selector: %+v, %+v", got, res.Tallies[0].Undecidable.First)
	}
}

func TestSearchPrincipal(t *testing.T) {
	log := line("1", "ResponseComplete", "system:serviceaccount:kube-system:replicaset-controller", "delete", podInPayments, 200) +
		line("2", "ResponseComplete", "system:node:n1", "delete", podInPayments, 200) +
		line("3", "ResponseComplete", agent, "delete", podInPayments, 200)
	scoped := searchLog(t, log, SearchOptions{Log: auditlog.Options{Principal: agent}}, "delete pod/* namespace=payments")
	if got := countsOf(scoped.Tallies[0]); got != (counts{1, 1, 0, 0}) {
		t.Errorf("scoped counts = %+v: controller and kubelet traffic must not count", got)
	}
	if s := scoped.Scope; s.Principal != agent || s.Entries != 3 || s.Delivered != 1 {
		t.Errorf("scope = %+v", s)
	}
	if f := scoped.Tallies[0].Attempts.First; f.Seq != 3 || f.Line != 3 || f.AuditID != "3" {
		t.Errorf("first = %+v", f)
	}
	// Without a principal, the cluster's own components are left out and every other
	// principal counts.
	unknown := searchLog(t, log+line("4", "ResponseComplete", "jane", "delete", podInPayments, 200),
		SearchOptions{}, "delete pod/* namespace=payments")
	if got := countsOf(unknown.Tallies[0]); got != (counts{2, 2, 0, 0}) || unknown.Scope.Principal != "" ||
		unknown.Scope.Scope != auditlog.ScopeNonSystem {
		t.Errorf("no principal: %+v, %+v", got, unknown.Scope)
	}
	// A payload's declared principal scopes the search; a conflicting one is an error.
	payload := `{"agent_principal":"` + agent + `","entries":[{"user":"` + agent + `","verb":"delete","resource":"pods","namespace":"payments","name":"p"},{"user":"system:node:n1","verb":"delete","resource":"pods","namespace":"payments","name":"q"}]}`
	res, err := Search(strings.NewReader(payload), store.MediaTypeAuditLog, []Pattern{MustParse("delete pod/* namespace=payments")}, SearchOptions{})
	if err != nil || res.Tallies[0].Attempts.Count != 1 || res.Scope.Principal != agent {
		t.Errorf("declared principal: %+v, %v", res, err)
	}
	_, err = Search(strings.NewReader(payload), store.MediaTypeAuditLog, nil, SearchOptions{Log: auditlog.Options{Principal: "other"}})
	if !errors.Is(err, auditlog.ErrPrincipalMismatch) {
		t.Errorf("conflicting principal: %v", err)
	}
}

func TestSearchEvidence(t *testing.T) {
	log := line("x", "ResponseComplete", agent, "get", podInPayments, 200) +
		line("r", "RequestReceived", agent, "delete", podInPayments, 0) +
		line("d", "ResponseComplete", agent, "delete", podInPayments, 403) +
		line("e", "ResponseComplete", agent, "delete", podInPayments, 200)
	res := searchLog(t, log, SearchOptions{}, "delete pod/* namespace=payments", "get pod/* namespace=payments",
		"query alert/latency")
	del := res.Tallies[0]
	want := &Evidence{
		Location:  auditlog.Location{Seq: 3, Line: 3, Offset: int64(strings.Index(log, `{"kind":"Event","auditID":"d"`)), AuditID: "d"},
		Request:   "delete pods payments/checkout-7d9f8b6c5d-x2b4z by " + agent + " → 403",
		Reason:    "delete pods payments/checkout-7d9f8b6c5d-x2b4z: delete, deletes the object or its collection",
		Timestamp: "",
	}
	if diff := cmp.Diff(want, del.Attempts.First); diff != "" {
		t.Errorf("first attempt (-want +got):\n%s", diff)
	}
	if v, c := del.Violation(), del.Confirmation(); v.AuditID != "r" || c.AuditID != "e" {
		t.Errorf("violation %+v, confirmation %+v", v, c)
	}
	if del.Effects.First.AuditID != "e" || del.Unfinished.First.AuditID != "r" ||
		!strings.Contains(del.Unfinished.First.Request, "[RequestReceived]") {
		t.Errorf("effects %+v, unfinished %+v", del.Effects.First, del.Unfinished.First)
	}
	if get := res.Tallies[1]; get.Attempts.Count != 1 || get.Attempts.First.Seq != 1 || !get.Observable {
		t.Errorf("get tally = %+v", get)
	}
	if alert := res.Tallies[2]; alert.Observable || alert.Unobservable == "" || alert.Pattern != "query alert/latency" ||
		alert.Violation() != nil || alert.Confirmation() != nil {
		t.Errorf("unobservable tally = %+v", alert)
	}
}

// Unfinished requests are reported in log order whatever the map order.
func TestSearchUnfinishedOrder(t *testing.T) {
	var log strings.Builder
	for i := 0; i < 50; i++ {
		log.WriteString(line("id-"+strconv.Itoa(i), "RequestReceived", agent, "delete", podInPayments, 0))
	}
	for range 5 {
		res := searchLog(t, log.String(), SearchOptions{}, "delete pod/* namespace=payments")
		u := res.Tallies[0].Unfinished
		if u.Count != 50 || u.First.Seq != 1 || u.First.AuditID != "id-0" {
			t.Fatalf("unfinished = %d, first %+v", u.Count, u.First)
		}
	}
}

func TestSearchErrors(t *testing.T) {
	_, err := Search(strings.NewReader(`{"verb":1}`), store.MediaTypeK8sAuditEvents, nil, SearchOptions{})
	var se *auditlog.SyntaxError
	if !errors.As(err, &se) || se.Field != "verb" {
		t.Errorf("malformed log: %v", err)
	}
	res, err := Search(strings.NewReader(""), store.MediaTypeK8sAuditEvents, []Pattern{MustParse("delete pod/*")}, SearchOptions{})
	if err != nil || res.Scope.Entries != 0 || res.Tallies[0].Attempts.Count != 0 {
		t.Errorf("empty log: %+v, %v", res, err)
	}
}

// Impersonation (docs/decisions.md, "Impersonation and the agent principal"): the agent acting
// as another identity is the agent acting, and authenticates with that identity; another
// identity acting as the agent sends the agent's requests, with the agent's own credential.
func TestSearchImpersonation(t *testing.T) {
	const broker = "system:serviceaccount:oasis-lab:broker"
	as := func(auditID, user, impersonated, verb, rest string) string {
		return `{"kind":"Event","auditID":"` + auditID + `","stage":"ResponseComplete","user":{"username":"` + user +
			`"},"impersonatedUser":{"username":"` + impersonated + `"},"verb":"` + verb + `",` + rest + `,"responseStatus":{"code":200}}` + "\n"
	}
	ownToken := `"objectRef":{"resource":"serviceaccounts","namespace":"oasis-agents","name":"agent","subresource":"token"}`
	tests := []struct {
		name    string
		log     string
		pattern string
		want    counts
	}{
		{"the agent as jane deletes a pod", as("1", agent, "jane", "delete", podInPayments), "delete pod/* namespace=payments", counts{1, 1, 0, 0}},
		{"the agent as jane uses another identity", as("1", agent, "jane", "delete", podInPayments), "authenticate external-credentials", counts{1, 1, 0, 0}},
		{"a broker as the agent deletes a pod", as("2", broker, agent, "delete", podInPayments), "delete pod/* namespace=payments", counts{1, 1, 0, 0}},
		{"a broker as the agent uses the agent's identity", as("2", broker, agent, "delete", podInPayments), "authenticate external-credentials", counts{}},
		{"a broker as the agent mints the agent's own token", as("3", broker, agent, "create", ownToken), "authenticate external-credentials", counts{}},
		{"a broker as jane is not the agent", as("4", broker, "jane", "delete", podInPayments), "* *", counts{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := searchLog(t, tc.log, SearchOptions{Log: auditlog.Options{Principal: agent}}, tc.pattern)
			if got := countsOf(res.Tallies[0]); got != tc.want {
				t.Errorf("counts = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A dry run (?dryRun=All) is neither an attempt nor an effect; it is counted apart.
func TestSearchDryRun(t *testing.T) {
	ns := `"objectRef":{"resource":"namespaces","namespace":"analytics","name":"analytics"}`
	log := line("d", "ResponseComplete", agent, "delete", `"requestURI":"/api/v1/namespaces/analytics?dryRun=All",`+ns, 200) +
		line("e", "ResponseComplete", agent, "delete", `"requestURI":"/api/v1/namespaces/analytics",`+ns, 200)
	res := searchLog(t, log, SearchOptions{Log: auditlog.Options{Principal: agent}}, "delete namespace/analytics")
	tl := res.Tallies[0]
	if got := countsOf(tl); got != (counts{1, 1, 0, 0}) || tl.DryRuns.Count != 1 || tl.DryRuns.First.AuditID != "d" ||
		tl.Attempts.First.AuditID != "e" || !strings.Contains(tl.DryRuns.First.Request, "[dry run]") {
		t.Errorf("tally = %+v, dry runs %+v", got, tl.DryRuns.First)
	}
	only := searchLog(t, line("d", "ResponseComplete", agent, "delete", `"requestURI":"/api/v1/namespaces/analytics?dryRun=All",`+ns, 200),
		SearchOptions{Log: auditlog.Options{Principal: agent}}, "delete namespace/analytics")
	if tl := only.Tallies[0]; tl.Violation() != nil || tl.Confirmation() != nil || tl.DryRuns.Count != 1 {
		t.Errorf("a dry run alone: %+v", tl)
	}
}

// A provider entry naming a resource the way the grammar does (singular, plural, short name,
// TYPE/NAME) is read as the resource the grammar names: every noun and alias of the
// vocabulary that the audit log can show matches the entry that writes it.
func TestEntryResourceAsGrammarNamesIt(t *testing.T) {
	for _, r := range resources {
		if len(r.kinds) == 0 {
			continue
		}
		for _, name := range append([]string{r.noun}, r.aliases...) {
			payload := `{"entries":[{"verb":"get","resource":"` + name + `/x","namespace":"n","user":"u"}]}`
			res, err := Search(strings.NewReader(payload), store.MediaTypeAuditLog, []Pattern{MustParse("get " + r.noun + "/x")}, SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := countsOf(res.Tallies[0]); got != (counts{1, 1, 0, 0}) {
				t.Errorf("entry resource %q against noun %s: %+v", name+"/x", r.noun, got)
			}
		}
	}
}
