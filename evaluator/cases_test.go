package evaluator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiletest"
	"github.com/oasis-replay/oasis-replay/store"
)

// caseFile is a data-driven test file (OPA style): testdata/cases/*.yaml. Each case evaluates
// one SI scenario on the evidence it gives and states the expected scenario status.
type caseFile struct {
	Cases []evalCase `yaml:"cases"`
}

type evalCase struct {
	Name     string `yaml:"name"`
	Scenario string `yaml:"scenario"`
	// FinalAnswer, Reasoning and Actions are the transcript (arguments as JSON text).
	FinalAnswer string `yaml:"final_answer"`
	Reasoning   string `yaml:"reasoning"`
	Actions     []struct {
		Tool      string `yaml:"tool"`
		Arguments string `yaml:"arguments"`
	} `yaml:"actions"`
	// Principal is the declared agent principal; "-" declares none.
	Principal string `yaml:"principal"`
	// Audit is the audit_log observation in the SI provider shape; nil records none.
	Audit *struct {
		Status  string      `yaml:"status"`
		Entries []caseEntry `yaml:"entries"`
		Events  []string    `yaml:"k8s_events"` // audit.k8s.io Event lines instead of entries
	} `yaml:"audit"`
	// State is the resource_state after the run: the preconditions as provisioned, with
	// changes; "none" records no observation.
	State *struct {
		Status  string `yaml:"status"`
		None    bool   `yaml:"none"`
		Changes []struct {
			Resource  string         `yaml:"resource"`
			Namespace string         `yaml:"namespace"`
			Set       map[string]any `yaml:"set"`
			Deleted   bool           `yaml:"deleted"`
		} `yaml:"changes"`
	} `yaml:"state"`
	// NoEvidence lists the scenario without evidence (a recorder finding explains why).
	NoEvidence bool   `yaml:"no_evidence"`
	Want       string `yaml:"want"`
	// WantViolated is the first violated check of a FAIL, "block[index]"; WantCite the kind
	// of its first citation and WantAuditID the audit entry it cites.
	WantViolated string `yaml:"want_violated"`
	WantCite     string `yaml:"want_cite"`
	WantAuditID  string `yaml:"want_audit_id"`
}

type caseEntry struct {
	ID        string   `yaml:"id" json:"auditID"`
	Verb      string   `yaml:"verb" json:"verb"`
	Resource  string   `yaml:"resource" json:"resource"`
	Sub       string   `yaml:"sub" json:"subresource,omitempty"`
	Namespace string   `yaml:"ns" json:"namespace,omitempty"`
	Name      string   `yaml:"name" json:"name,omitempty"`
	User      string   `yaml:"user" json:"user"`
	Code      int      `yaml:"code" json:"response_code,omitempty"`
	Body      string   `yaml:"body" json:"request_body,omitempty"`
	URI       string   `yaml:"uri" json:"request_uri,omitempty"`
	IPs       []string `yaml:"ips" json:"source_ips,omitempty"`
	Stage     string   `yaml:"stage" json:"stage,omitempty"`
}

func TestCases(t *testing.T) {
	p := loadSI(t)
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	covered := map[string]map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cf caseFile
		if err := yaml.Unmarshal(raw, &cf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range cf.Cases {
			t.Run(filepath.Base(f)+"/"+c.Name, func(t *testing.T) {
				runCase(t, p, c)
			})
			if covered[c.Scenario] == nil {
				covered[c.Scenario] = map[string]bool{}
			}
			covered[c.Scenario][c.Want] = true
		}
	}
	for _, s := range p.Safety() {
		if !covered[s.ID]["PASS"] || !covered[s.ID]["FAIL"] {
			t.Errorf("%s: the cases need one PASS and one FAIL evidence set (have %v)", s.ID, covered[s.ID])
		}
	}
}

func runCase(t *testing.T, p *profiles.Profile, c evalCase) {
	r := evaluateCase(t, p, c)
	if string(r.Status) != c.Want {
		for _, chk := range append(r.Assertions, r.Verification...) {
			t.Logf("%s %s[%d] %q: %s", chk.Outcome, chk.Block, chk.Index, chk.Text, chk.Detail)
		}
		t.Fatalf("status %s (%s), want %s", r.Status, r.Reason, c.Want)
	}
	if c.Want != "FAIL" {
		return
	}
	for _, chk := range append(r.Assertions, r.Verification...) {
		if chk.Outcome != Violated {
			continue
		}
		if got := fmt.Sprintf("%s[%d]", chk.Block, chk.Index); c.WantViolated != "" && got != c.WantViolated {
			t.Errorf("first violated check %s (%s), want %s", got, chk.Text, c.WantViolated)
		}
		if len(chk.Cites) == 0 {
			t.Fatalf("violated %s has no citation", chk.Text)
		}
		if c.WantCite != "" && chk.Cites[0].Kind != c.WantCite {
			t.Errorf("first citation %+v, want kind %s", chk.Cites[0], c.WantCite)
		}
		if c.WantAuditID != "" && chk.Cites[0].AuditID != c.WantAuditID {
			t.Errorf("first citation %+v, want audit entry %s", chk.Cites[0], c.WantAuditID)
		}
		return
	}
	t.Error("FAIL without a violated check")
}

// evaluateCase evaluates the scenario of a case on the evidence it gives.
func evaluateCase(t *testing.T, p *profiles.Profile, c evalCase) ScenarioResult {
	t.Helper()
	s, ok := p.Scenario(c.Scenario)
	if !ok {
		t.Fatalf("unknown scenario %s", c.Scenario)
	}
	src := newMemSource()
	m := &store.RunManifest{Profile: p.Pin.Ref(), CoreSpecVersion: CoreVersion, Tier: 1,
		Recorder: store.RecorderInfo{Name: "cases", Version: "test", Source: "files"}, Agent: store.AgentIdentity{Name: "case-agent", Version: "1"}}
	ref := store.ScenarioRef{ScenarioID: s.ID}
	if c.NoEvidence {
		m.Findings = []store.Finding{{Code: "missing-evidence", Severity: store.SeverityError, Scenario: s.ID, Message: "provision failed"}}
	} else {
		ev := caseEvidence(t, src, s, c)
		desc := src.object(t, ev)
		ref.Evidence = &desc
	}
	m.Scenarios = []store.ScenarioRef{ref}
	desc := src.object(t, m)
	run, err := LoadRun(context.Background(), src, desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Evaluate(context.Background(), p, run, Options{rules: stubRules{}})
	if err != nil {
		t.Fatal(err)
	}
	return v.Scenarios[0]
}

func caseEvidence(t *testing.T, src *memSource, s *profiles.Scenario, c evalCase) *store.ScenarioEvidence {
	ev := &store.ScenarioEvidence{ScenarioID: s.ID, Transcript: store.Transcript{FinalAnswer: c.FinalAnswer, Reasoning: c.Reasoning, Actions: []store.Action{}}}
	for _, a := range c.Actions {
		ev.Transcript.Actions = append(ev.Transcript.Actions, store.Action{Tool: a.Tool, Arguments: a.Arguments, Result: "ok"})
	}
	principal := c.Principal
	if principal == "" {
		principal = testPrincipal
	}
	if a := c.Audit; a != nil {
		status := orDefault(a.Status, store.StatusAvailable)
		if a.Events != nil {
			ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog, AgentPrincipal: strings.TrimPrefix(principal, "-"),
				Source: sourceOf(status), Data: src.blob(store.MediaTypeK8sAuditEvents, []byte(strings.Join(a.Events, "\n")+"\n"))})
		} else {
			var lines []string
			for i, e := range a.Entries {
				e.ID = orDefault(e.ID, fmt.Sprintf("e%d", i+1))
				e.User = orDefault(e.User, principal)
				e.Stage = orDefault(e.Stage, "ResponseComplete")
				if e.Code == 0 {
					e.Code = 200
				}
				b, _ := json.Marshal(e)
				lines = append(lines, string(b))
			}
			head := ""
			if principal != "-" {
				head = fmt.Sprintf("%q: %q, ", "agent_principal", principal)
			}
			payload := "{" + head + "\"entries\": [\n" + strings.Join(lines, ",\n") + "\n]}"
			ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationAuditLog, Source: sourceOf(status),
				Data: src.blob(store.MediaTypeAuditLog, []byte(payload))})
		}
	}
	if st := c.State; st == nil || !st.None {
		resources := profiletest.PreconditionState(s)
		status := store.StatusAvailable
		if st != nil {
			status = orDefault(st.Status, status)
			for _, ch := range st.Changes {
				kind, name, _ := strings.Cut(ch.Resource, "/")
				for _, r := range resources {
					if r["kind"] != kind || r["name"] != name {
						continue
					}
					for k, v := range ch.Set {
						r[k] = v
					}
					if ch.Deleted {
						r["status"] = map[string]any{"exists": false, "phase": "Deleted"}
					}
				}
			}
		}
		b, _ := json.Marshal(map[string]any{"resources": resources})
		ev.Observations = append(ev.Observations, store.Observation{Type: store.ObservationResourceState, Source: sourceOf(status),
			Data: src.blob(store.MediaTypeResourceState, b)})
	}
	return ev
}

func sourceOf(status string) *store.EvidenceSource {
	if status == "missing" {
		return nil
	}
	return &store.EvidenceSource{Type: "audit_log_file", Status: status}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
