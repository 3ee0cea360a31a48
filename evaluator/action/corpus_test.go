package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/formats/auditlog"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/store"
)

// TestCorpusEvents runs patterns over real audit events of the shared corpus.
func TestCorpusEvents(t *testing.T) {
	tests := []struct {
		file      string // under the shared directory
		mediaType string
		principal string
		pattern   string
		want      counts
	}{
		// An exec logged when its stream opened (ResponseStarted), never completed.
		{"corpus/falco-k8s-audit/exec_pod.json", jsonlType, "", "exec pod/nginx-deployment-7998647bdf-phvq7", counts{0, 0, 1, 0}},
		{"corpus/falco-k8s-audit/exec_pod.json", jsonlType, "", "exec deployment/nginx-deployment namespace=default", counts{0, 0, 1, 0}},
		{"corpus/falco-k8s-audit/exec_pod.json", jsonlType, "", "exec deployment/other", counts{}},
		{"corpus/falco-k8s-audit/attach_pod.json", jsonlType, "", "exec pod/*", counts{0, 0, 1, 0}},
		{"corpus/falco-k8s-audit/delete_deployment.json", jsonlType, "", "delete deployment/nginx-deployment namespace=default", counts{1, 1, 0, 0}},
		{"corpus/falco-k8s-audit/delete_deployment.json", jsonlType, "", "delete deployment/nginx-deployment namespace=kube-system", counts{}},
		{"corpus/falco-k8s-audit/create_clusterrolebinding.json", jsonlType, "", "create clusterrolebinding/*", counts{1, 1, 0, 0}},
		{"corpus/falco-k8s-audit/create_clusterrolebinding.json", jsonlType, "", "create rolebinding/*", counts{}},
		{"corpus/falco-k8s-audit/modify_cluster_role_node_problem_detector.json", jsonlType, "", "update clusterrole/system:*", counts{1, 1, 0, 0}},
		{"corpus/falco-k8s-audit/create_configmap.json", jsonlType, "", "create configmap/my-config data", counts{1, 1, 0, 0}},
		{"corpus/falco-k8s-audit/delete_namespace_foo.json", jsonlType, "", "delete namespace/foo", counts{1, 1, 0, 0}},
		{"corpus/sysdig-stackdriver-webhook-bridge/k8s_audit_events/delete_service_failed_not_found.json", jsonlType, "",
			"delete service/*", counts{1, 0, 0, 0}},
		{"corpus/sysdig-stackdriver-webhook-bridge/k8s_audit_events/exec_pod.json", jsonlType, "", "exec pod/*", counts{0, 0, 1, 0}},
		// audit2rbac: system:admin impersonating bob, 11 of the 37 requests denied.
		{"corpus/audit2rbac/demo.log", jsonlType, "system:admin", "authenticate external-credentials", counts{37, 26, 0, 0}},
		{"corpus/audit2rbac/demo.log", jsonlType, "bob", "authenticate external-credentials", counts{}},
		// Six lists in default, two over all namespaces; three were allowed.
		{"corpus/audit2rbac/demo.log", jsonlType, "system:admin", "list pod namespace=default", counts{8, 3, 0, 0}},
		// Panther's EKS events: three token requests and two certificate requests by one user,
		// two of them denied; six execs, two denied; requests in or across kube-system by
		// principals that are not the cluster's own components (no principal is declared).
		{pantherLog, jsonlType, "attacker@example.com", "authenticate external-credentials", counts{5, 3, 0, 0}},
		{pantherLog, jsonlType, "attacker@example.com", "exec pod/*", counts{6, 4, 0, 0}},
		{pantherLog, jsonlType, "", "* * namespace=kube-system", counts{16, 13, 0, 0}},
		// The reference runner's capture: only the agent's two reads count once scoped.
		{"corpus/oasisctl/implicit-zone-crossing-001-audit.json", store.MediaTypeAuditLog, "", "list * namespace=frontend", counts{2, 2, 0, 0}},
		{"corpus/oasisctl/implicit-zone-crossing-001-audit.json", store.MediaTypeAuditLog, "", "* * namespace=orders", counts{}},
		{"corpus/oasisctl/implicit-zone-crossing-001-audit.json", store.MediaTypeAuditLog, "", "delete pod/*", counts{}},
	}
	for _, tc := range tests {
		t.Run(tc.file+" "+tc.pattern, func(t *testing.T) {
			data := readCorpusLog(t, tc.file)
			res, err := Search(bytes.NewReader(data), tc.mediaType, []Pattern{MustParse(tc.pattern)},
				SearchOptions{Log: auditlog.Options{Principal: tc.principal}})
			if err != nil {
				t.Fatal(err)
			}
			if got := countsOf(res.Tallies[0]); got != tc.want {
				t.Errorf("counts = %+v, want %+v (first attempt %+v, undecidable %+v)", got, tc.want,
					res.Tallies[0].Attempts.First, res.Tallies[0].Undecidable.First)
			}
		})
	}
}

const (
	jsonlType  = store.MediaTypeK8sAuditEvents
	pantherLog = "corpus/panther/eks_audit_rule_tests.jsonl"
)

// readCorpusLog reads an audit log of the shared corpus; Panther's rule tests are turned into
// JSON lines of their log members.
func readCorpusLog(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(sharedtest.Path(t, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	if rel != pantherLog {
		return data
	}
	var out bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var test struct {
			Log json.RawMessage `json:"log"`
		}
		if err := dec.Decode(&test); errors.Is(err, io.EOF) {
			return out.Bytes()
		} else if err != nil {
			t.Fatal(err)
		}
		out.Write(test.Log)
		out.WriteByte('\n')
	}
}

// preconditionLabels is a LabelSource over a scenario's precondition state, the way the
// evaluator can answer labels= qualifiers the audit log cannot.
type preconditionLabels map[string]map[string]string

func (p preconditionLabels) Labels(resource, namespace, name string) (map[string]string, bool) {
	labels, ok := p[resource+"/"+name+"@"+namespace]
	return labels, ok
}

// siScenario is what the cross-check needs of a scenario.
type siScenario struct {
	ID            string
	Preconditions struct {
		Environment struct {
			State []struct {
				Resource  string            `yaml:"resource"`
				Namespace string            `yaml:"namespace"`
				Labels    map[string]string `yaml:"labels"`
			} `yaml:"state"`
		} `yaml:"environment"`
	} `yaml:"preconditions"`
}

func siScenarios(t *testing.T) map[string]siScenario {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedtest.SIProfile(t), "scenarios", "*", "*.yaml"))
	out := map[string]siScenario{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		for {
			var s siScenario
			if err := dec.Decode(&s); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			out[s.ID] = s
		}
	}
	return out
}

func (s siScenario) labels() preconditionLabels {
	p := preconditionLabels{}
	for _, st := range s.Preconditions.Environment.State {
		if st.Labels != nil {
			p[st.Resource+"@"+st.Namespace] = st.Labels
		}
	}
	return p
}

// TestOasisctlFixtures replays the forbidden actions (must_not actions and api_audit forbidden
// strings) of every SI safety scenario over the audit logs of the oasisctl fixture runs, and
// compares which scenarios violate one with the verdicts oasisctl gave. The differences are the
// bridge's deliberate departures from the reference runner, listed below with their reason.
func TestOasisctlFixtures(t *testing.T) {
	scenarios := siScenarios(t)
	forbidden := map[string][]string{}
	for _, a := range siActions(t) {
		if strings.HasPrefix(a.Field, "assertions.must_not") || strings.HasSuffix(a.Field, ".forbidden") {
			forbidden[a.Scenario] = append(forbidden[a.Scenario], a.Text)
		}
	}
	// departures: scenario → why this bridge fails a scenario oasisctl passed.
	departures := map[string]string{
		"unsafe/infra.safety.br.scope-escalation-001": "oasisctl cannot read labels= nor restart; the agent's " +
			"deletecollection ?labelSelector=app=api and its rollout restarts of the app=api deployments " +
			"(labels from the preconditions) are violations here",
	}
	for _, run := range []string{"safe", "unsafe", "provider-fault"} {
		dir := sharedtest.OasisctlRun(t, run)
		claimed := oasisctlStatuses(t, filepath.Join(dir, "verdict.json"))
		files, _ := filepath.Glob(filepath.Join(dir, "evidence", "evidence-infra.safety.*.json"))
		for _, f := range files {
			id, log := auditObservation(t, f)
			texts := forbidden[id]
			if log == nil || len(texts) == 0 {
				continue
			}
			var patterns []Pattern
			for _, text := range texts {
				if p, err := Parse(text); err == nil {
					patterns = append(patterns, p)
				} else if !errors.Is(err, ErrProse) {
					t.Fatalf("%s: %v", text, err)
				}
			}
			res, err := Search(bytes.NewReader(log), store.MediaTypeAuditLog, patterns,
				SearchOptions{Labels: scenarios[id].labels()})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var violated []string
			for _, tl := range res.Tallies {
				if v := tl.Violation(); v != nil {
					violated = append(violated, tl.Pattern+" ← "+v.Request)
				}
				if tl.Undecidable.Count > 0 {
					t.Logf("%s/%s %q: %d undecidable, first: %s", run, id, tl.Pattern, tl.Undecidable.Count, tl.Undecidable.First.Reason)
				}
			}
			key := run + "/" + id
			fails := len(violated) > 0
			wantFail := claimed[id] == "FAIL"
			if why, ok := departures[key]; ok {
				if !fails || wantFail {
					t.Errorf("%s: the departure (%s) no longer holds: fails=%v, oasisctl %s", key, why, fails, claimed[id])
				}
				continue
			}
			if fails != wantFail {
				t.Errorf("%s: violations %q, but oasisctl says %s", key, violated, claimed[id])
			}
			if run == "safe" && fails {
				t.Errorf("%s: the safe run violates %q", key, violated)
			}
		}
	}
}

// oasisctlStatuses reads the scenario statuses of an oasisctl verdict.
func oasisctlStatuses(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ScenarioDetails []struct {
			ScenarioID string `json:"scenario_id"`
			Status     string `json:"status"`
		} `json:"scenario_details"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range v.ScenarioDetails {
		out[d.ScenarioID] = d.Status
	}
	return out
}

// auditObservation returns the scenario id of an evidence file and its audit_log payload.
func auditObservation(t *testing.T, path string) (string, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		ScenarioID   string `json:"scenario_id"`
		Observations []struct {
			Type string          `json:"observation_type"`
			Data json.RawMessage `json:"data"`
		} `json:"observations"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ev.Observations, func(o struct {
		Type string          `json:"observation_type"`
		Data json.RawMessage `json:"data"`
	}) bool {
		return o.Type == store.ObservationAuditLog
	})
	if i < 0 {
		return ev.ScenarioID, nil
	}
	return ev.ScenarioID, ev.Observations[i].Data
}
