package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

var (
	preflightMet   = &profiles.PreflightResult{Met: true, Profile: "p", ProfileVersion: "1.0.0", RequestedTier: 1}
	preflightUnmet = &profiles.PreflightResult{Profile: "p", ProfileVersion: "1.0.0", RequestedTier: 1, Unmet: []profiles.Unmet{
		{Key: "audit_policy_installation", Expected: "true", Actual: "false", Reason: "provider does not satisfy p 1.0.0 requirement audit_policy_installation: expected true, got false",
			ProviderReason: "no --audit-policy-file"}}}
	preflightMalformed = &profiles.PreflightResult{Profile: "p", ProfileVersion: "1.0.0", RequestedTier: 1,
		Malformed: "profiles: malformed conformance answer: sha256:0123456789ab:1:40: supported: want a boolean, got a string"}
)

// preflightRun is a verdict carrying result and the manifest of a run recorded by source,
// with the scenario evidence and exchange sources given.
func preflightRun(result *profiles.PreflightResult, source string, evidence []string, exchanges []string) (*evaluator.Verdict, *store.RunManifest) {
	v := &evaluator.Verdict{Metadata: evaluator.Metadata{Environment: evaluator.Environment{Preflight: result}}}
	answer := store.Descriptor{MediaType: store.MediaTypeConformance, Digest: store.Sum([]byte("answer")), Size: 6}
	m := &store.RunManifest{Recorder: store.RecorderInfo{Source: source}, Conformance: &answer}
	for _, id := range evidence {
		d := store.Descriptor{MediaType: store.MediaTypeScenarioEvidence, Digest: store.Sum([]byte(id))}
		m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: id, Evidence: &d})
	}
	m.Scenarios = append(m.Scenarios, store.ScenarioRef{ScenarioID: "listed-without-evidence"})
	for _, p := range exchanges {
		m.Sources = append(m.Sources, store.SourceFile{Path: p, Blob: store.Descriptor{MediaType: store.MediaTypeHTTPExchange, Digest: store.Sum([]byte(p))}})
	}
	return v, m
}

// runExchanges are the exchanges of the run itself: they show no scenario ran.
var runExchanges = []string{"exchanges/run/001-conformance.json", "exchanges/run/002-identity.json", "exchanges/run/003-other.json"}

func TestPreflightFindings(t *testing.T) {
	many := slices.Clone(runExchanges)
	for i := range 10 {
		many = append(many, fmt.Sprintf("exchanges/s%d/001-provision.json", i))
	}
	tests := []struct {
		name      string
		result    *profiles.PreflightResult
		source    string
		evidence  []string
		exchanges []string
		claimed   bool
		findings  []string // "severity code"
		// evidence are words of the first finding's evidence lines, in order.
		words []string
	}{
		{name: "no answer recorded", source: "proxy"},
		{name: "unmet, scenario evidence", result: preflightUnmet, source: "oasisctl", evidence: []string{"s1"},
			findings: []string{"mismatch preflight-not-conformant-executed"},
			words:    []string{"not met: 1 unmet", "unmet audit_policy_installation: provider does not satisfy", "(the provider says: no --audit-policy-file)", "scenario s1: evidence sha256:"}},
		{name: "unmet, a provision exchange only", result: preflightUnmet, source: "proxy",
			exchanges: append(slices.Clone(runExchanges), "exchanges/infra.safety.x-001/001-provision.json"),
			findings:  []string{"mismatch preflight-not-conformant-executed"}, words: []string{"not met", "unmet", "exchange exchanges/infra.safety.x-001/001-provision.json"}},
		{name: "unmet, an agent task only", result: preflightUnmet, source: "proxy", exchanges: []string{"exchanges/run/004-task.json"},
			findings: []string{"mismatch preflight-not-conformant-executed"}},
		{name: "unmet, no traffic, a published report", result: preflightUnmet, source: "proxy", exchanges: runExchanges, claimed: true,
			findings: []string{"mismatch preflight-not-conformant-executed"}},
		{name: "unmet, the runner aborted", result: preflightUnmet, source: "proxy", exchanges: runExchanges},
		{name: "malformed answer, scenarios ran", result: preflightMalformed, source: "proxy", exchanges: many,
			findings: []string{"mismatch preflight-not-conformant-executed"},
			words:    []string{"malformed conformance answer", "exchange exchanges/s0/001-provision.json", "… and 2 more"}},
		{name: "met, live, no scenario traffic", result: preflightMet, source: "proxy", exchanges: runExchanges,
			findings: []string{"mismatch preflight-conformant-aborted"}, words: []string{"met: "}},
		{name: "met, live, no scenario traffic, failed calls", result: preflightMet, source: "proxy", exchanges: runExchanges,
			findings: []string{"note preflight-conformant-aborted"}, words: []string{"met: ", "recorder finding call-failed: the agent adapter refused the connection"}},
		{name: "met, imported, no scenario traffic", result: preflightMet, source: "oasisctl"},
		{name: "met, live, scenarios ran", result: preflightMet, source: "proxy", exchanges: many},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, m := preflightRun(tt.result, tt.source, tt.evidence, tt.exchanges)
			if strings.Contains(tt.name, "failed calls") {
				m.Findings = []store.Finding{{Code: "call-failed", Severity: store.SeverityError, Message: "the agent adapter refused the connection"},
					{Code: "unread-body", Severity: store.SeverityWarning, Message: "not an error"}}
			}
			got := PreflightFindings(v, m, tt.claimed)
			var codes []string
			for _, f := range got {
				codes = append(codes, string(f.Severity)+" "+f.Code)
				if f.Subject != "preflight" || f.Scenario != "" || f.Claimed == "" || f.Derived != tt.result.Summary() || f.Message == "" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
			if !slices.Equal(codes, tt.findings) {
				t.Fatalf("findings %v, want %v", codes, tt.findings)
			}
			if len(got) == 0 {
				return
			}
			evidence := strings.Join(got[0].Evidence, "\n")
			at := 0
			for _, w := range tt.words {
				i := strings.Index(evidence[at:], w)
				if i < 0 {
					t.Fatalf("evidence does not say %q (after position %d):\n%s", w, at, evidence)
				}
				at += i + len(w)
			}
		})
	}
}

// TestPreflightOutput: text, JSON and JUnit state the preflight result and its findings; the
// JUnit report has a preflight test case only when the bundle recorded an answer.
func TestPreflightOutput(t *testing.T) {
	claim := &oasisctl.Claim{Source: "report.json", Shape: oasisctl.ShapeOasisctl, Format: oasisctl.FormatJSON}
	v, m := preflightRun(preflightUnmet, "proxy", []string{"s1"}, nil)
	v.Safety, v.Overall = evaluator.Pass, evaluator.Pass
	a := &Audit{Bundle: store.Sum([]byte("bundle")), Claim: claim, Verdict: v, VerdictDigest: store.Sum([]byte("verdict")),
		Findings: PreflightFindings(v, m, true)}

	var text bytes.Buffer
	if err := a.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\npreflight not met: 1 unmet requirement(s) of p 1.0.0 at tier 1: audit_policy_installation\n",
		"[preflight-not-conformant-executed] preflight", "claimed   the runner ran scenarios (1 with evidence, 0 scenario exchange(s) recorded) and published a report",
		"unmet audit_policy_installation: provider does not satisfy"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text does not say %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := a.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Preflight *profiles.PreflightResult `json:"preflight"`
		Findings  []Finding                 `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Preflight == nil || doc.Preflight.Unmet[0].ProviderReason != "no --audit-policy-file" || doc.Findings[0].Code != CodePreflightNotConformantExecuted {
		t.Errorf("JSON %s", js.Bytes())
	}

	for _, tt := range []struct {
		result *profiles.PreflightResult
		want   string
	}{
		{preflightUnmet, `<testcase name="preflight" classname="run">` + "\n" + `      <failure message="[preflight-not-conformant-executed] claimed the runner ran scenarios`},
		{nil, ""},
	} {
		a.Verdict.Metadata.Environment.Preflight = tt.result
		var junit bytes.Buffer
		if err := a.WriteJUnit(&junit); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(junit.String(), `name="preflight"`)
		if has != (tt.want != "") || !strings.Contains(junit.String(), tt.want) {
			t.Errorf("JUnit with preflight %v:\n%s", tt.result != nil, junit.String())
		}
	}
}

// TestPreflightCodesCovered: the preflight codes have their own JUnit test case and belong to
// no other group.
func TestPreflightCodesCovered(t *testing.T) {
	for _, code := range []string{CodePreflightNotConformantExecuted, CodePreflightConformantAborted} {
		if !slices.Contains(preflightCodes, code) || slices.Contains(scenarioCodes, code) {
			t.Errorf("%s: not in preflightCodes, or a scenario code", code)
		}
		for _, g := range checkGroups {
			if slices.Contains(g.codes, code) {
				t.Errorf("%s is also in group %s", code, g.name)
			}
		}
	}
}
