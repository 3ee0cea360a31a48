package recorder

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	"github.com/oasis-replay/oasis-replay/recorder/redact"
	"github.com/oasis-replay/oasis-replay/store"
)

const (
	zoneViolation = "infra.safety.be.zone-violation-001"
	scopeEscal    = "infra.safety.br.scope-escalation-001"
)

func editFile(t *testing.T, path string, edit func([]byte) []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := edit(b)
	if bytes.Equal(out, b) {
		t.Fatalf("the edit of %s changed nothing", path)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

func replace(old, new string) func([]byte) []byte {
	return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
}

func artifactPath(dir, id string) string {
	return filepath.Join(dir, "evidence", "evidence-"+id+".json")
}

// TestOasisctlBadInput feeds damaged copies of a fixture run: input that cannot be recorded is
// an error naming file and line and leaves the store as it was; everything else is recorded
// with the expected finding.
func TestOasisctlBadInput(t *testing.T) {
	fixture := sharedtest.OasisctlRun(t, "provider-fault")
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, dir string)
		err   string // an error whose text contains this, or
		code  string // a finding with this code, naming
		where string // this file:line or field, and
		scen  string // this scenario
	}{
		{name: "truncated report", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.json"), func(b []byte) []byte { return b[:len(b)/2] })
		}, err: "verdict.json:"},
		{name: "binary garbage report", edit: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "verdict.json"), []byte("\x00\x01\x02garbage\xff"), 0o644)
		}, err: "verdict.json:1:1: unexpected byte 0x00"},
		{name: "truncated artifact", edit: func(t *testing.T, dir string) {
			editFile(t, artifactPath(dir, zoneViolation), func(b []byte) []byte { return b[:200] })
		}, err: "evidence-" + zoneViolation + ".json:"},
		{name: "wrong kind of tier", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.json"), replace(`"tier_claimed": 1`, `"tier_claimed": "one"`))
		}, err: "verdict.json:19:21: field environment.tier_claimed: want an integer, got a string"},
		{name: "wrong kind of actions", edit: func(t *testing.T, dir string) {
			editFile(t, artifactPath(dir, zoneViolation), replace(`"actions": [`, `"actions": "none", "more_actions": [`))
		}, err: "field actions: want an array, got a string"},
		{name: "final answer not a string", edit: func(t *testing.T, dir string) {
			editFile(t, artifactPath(dir, zoneViolation), replace(`"final_answer": `, `"final_answer": 42, "x": `))
		}, err: "field final_answer: want a string, got a number"},
		{name: "no report", edit: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "verdict.json"))
			os.Remove(filepath.Join(dir, "verdict.yaml"))
		}, err: "no oasisctl report"},
		{name: "duplicate scenario ids", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.json"), replace(`"scenario_id": "infra.safety.ae.credential-forwarding-001"`, `"scenario_id": "infra.safety.ae.social-engineering-urgency-001"`))
			os.Remove(filepath.Join(dir, "verdict.yaml"))
		}, code: CodeDuplicateScenario, where: "verdict.json:", scen: "infra.safety.ae.social-engineering-urgency-001"},
		{name: "report lists an unknown scenario", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.json"), replace(`"scenario_id": "`+zoneViolation+`"`, `"scenario_id": "infra.safety.be.no-such-scenario-001"`))
			os.Remove(filepath.Join(dir, "verdict.yaml"))
		}, code: CodeUnknownScenario, where: "verdict.json:", scen: "infra.safety.be.no-such-scenario-001"},
		{name: "artifact for a scenario the profile lacks", edit: func(t *testing.T, dir string) {
			b, _ := os.ReadFile(artifactPath(dir, zoneViolation))
			b = bytes.ReplaceAll(b, []byte(zoneViolation), []byte("infra.safety.xx.invented-001"))
			os.WriteFile(artifactPath(dir, "infra.safety.xx.invented-001"), b, 0o644)
		}, code: CodeUnknownScenario, where: "evidence/evidence-infra.safety.xx.invented-001.json", scen: "infra.safety.xx.invented-001"},
		{name: "artifact of another scenario", edit: func(t *testing.T, dir string) {
			editFile(t, artifactPath(dir, zoneViolation), replace(`"scenario_id": "`+zoneViolation, `"scenario_id": "`+scopeEscal))
		}, code: CodeScenarioMismatch, where: "evidence/evidence-" + zoneViolation + ".json", scen: zoneViolation},
		{name: "missing artifact", edit: func(t *testing.T, dir string) {
			os.Remove(artifactPath(dir, zoneViolation))
		}, code: CodeMissingEvidence, where: "verdict.json:", scen: zoneViolation},
		{name: "unknown field in an artifact", edit: func(t *testing.T, dir string) {
			editFile(t, artifactPath(dir, zoneViolation), replace(`"final_answer":`, `"tokens_used": 12, "final_answer":`))
		}, code: CodeUnknownField, where: "evidence/evidence-" + zoneViolation + ".json:3 tokens_used", scen: zoneViolation},
		{name: "YAML disagrees", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.yaml"), replace("agent_version: 1.4.0", "agent_version: 1.4.1"))
		}, code: CodeReportDisagreement, where: "verdict.yaml:3 metadata.agent_version"},
		{name: "evidence path outside the run", edit: func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "verdict.json"), replace(`"evidence_path": "evidence/evidence-`+zoneViolation+`.json"`, `"evidence_path": "../../etc/passwd"`))
			os.Remove(filepath.Join(dir, "verdict.yaml"))
		}, code: CodeUnreadableFile, where: "verdict.json:", scen: zoneViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyDir(t, fixture)
			tc.edit(t, dir)
			s := diskStore(t)
			ctx := context.Background()
			if _, err := RecordOasisctl(ctx, s, sharedtest.OasisctlRun(t, "unsafe"), OasisctlOptions{Options: testOptions(t)}); err != nil {
				t.Fatal(err)
			}
			before := storeState(t, s)
			res, err := RecordOasisctl(ctx, s, dir, OasisctlOptions{Options: testOptions(t)})
			if tc.err != "" {
				if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want an input error containing %q", err, tc.err)
				}
				if !strings.Contains(err.Error(), dir) {
					t.Errorf("error %v does not name the file by its path", err)
				}
				sameSnapshot(t, before, storeState(t, s))
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findingsWith(res.Manifest, tc.code) {
				where := f.File
				if f.Line > 0 {
					where += ":" + strconv.Itoa(f.Line)
				}
				if f.Field != "" {
					where += " " + f.Field
				}
				if strings.Contains(where, tc.where) && f.Scenario == tc.scen {
					return
				}
			}
			t.Errorf("no %s finding at %q for %q; findings: %+v", tc.code, tc.where, tc.scen, res.Manifest.Findings)
		})
	}
}

// TestOasisctlYAMLOnly records a run whose report exists only as YAML.
func TestOasisctlYAMLOnly(t *testing.T) {
	dir := copyDir(t, sharedtest.OasisctlRun(t, "provider-fault"))
	os.Remove(filepath.Join(dir, "verdict.json"))
	s := memStore(t)
	res, err := RecordOasisctl(context.Background(), s, dir, OasisctlOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Claimed.MediaType != store.MediaTypeOasisctlReportYAML || len(m.Sources) != 0 || m.Agent.Version != "1.4.0" || len(m.Scenarios) != 21 {
		t.Errorf("claimed %+v, sources %+v, agent %+v, %d scenarios", m.Claimed, m.Sources, m.Agent, len(m.Scenarios))
	}
	if f := findingsWith(m, CodeMissingEvidence); len(f) != 1 {
		t.Errorf("missing-evidence findings %+v", f)
	}
}

// TestOasisctlRunConfig keeps a run configuration as a source, with its agent token redacted
// from it and from everything else.
func TestOasisctlRunConfig(t *testing.T) {
	dir := copyDir(t, sharedtest.OasisctlRun(t, "provider-fault"))
	const token = "tok-3f9a1c7d55e2"
	config := "profile:\n  path: ./profile\nagent:\n  adapter: http\n  url: http://localhost:8091\n  token: " + token +
		"\nenvironment:\n  provider: petri\n  url: http://localhost:8090\nevaluation:\n  tier: 1\n  shards: 2\n"
	if err := os.WriteFile(filepath.Join(dir, "run-config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	editFile(t, artifactPath(dir, zoneViolation), replace(`"final_answer": "`, `"final_answer": "my token is `+token+`; `))
	s := memStore(t)
	res, err := RecordOasisctl(context.Background(), s, dir, OasisctlOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Provider == nil || m.Provider.Name != "petri" {
		t.Errorf("provider %+v", m.Provider)
	}
	var kept bool
	for _, src := range m.Sources {
		kept = kept || src.Path == "run-config.yaml"
	}
	if !kept {
		t.Errorf("sources %+v", m.Sources)
	}
	if f := findingsWith(m, CodeUnknownField); len(f) != 1 || f[0].Field != "evaluation.shards" || f[0].Line != 12 {
		t.Errorf("unknown-field findings %+v", f)
	}
	if bytes.Contains(allStoredBytes(t, s), []byte(token)) {
		t.Error("the agent token is in the store")
	}
	if ev := loadEvidence(t, s, m, zoneViolation); !strings.Contains(ev.Transcript.FinalAnswer, "my token is [REDACTED]") {
		t.Errorf("final answer %q", ev.Transcript.FinalAnswer[:40])
	}
	if !strings.Contains(m.Annotations[AnnotationRedaction], "1 values") {
		t.Errorf("annotations %v", m.Annotations)
	}
	// Without a key, the record has the one unkeyed marker, the run configuration (a source)
	// and the evidence among the blobs that held the token.
	if r := m.Redaction; r == nil || r.KeyID != "" || len(r.Values) != 1 || r.Values[0].Marker != redact.UnkeyedMarker ||
		r.Values[0].Occurrences < 2 || r.Values[0].Encodings["plain"] != r.Values[0].Occurrences || len(r.Values[0].Blobs) < 2 {
		t.Errorf("redaction record %+v", r)
	}
}
