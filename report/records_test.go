package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// fixtureClaim reads a fixture run's oasisctl report, with edit applied to it first.
func fixtureClaim(t *testing.T, run string, edit func(map[string]any)) *oasisctl.Claim {
	t.Helper()
	raw, err := os.ReadFile(fixtureReport(t, run, "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	claim, err := oasisctl.Read(mutate(t, raw, edit), oasisctl.FormatJSON, "mutated "+run+" report")
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// TestClaimVersions: a claimed report that declares a core or profile version, or carries
// content, no implemented edition evaluates is refused by name; the oasisctl fixtures'
// "≥ 1.0.0-rc1.5" and a release read under the implemented rules audit as before.
func TestClaimVersions(t *testing.T) {
	c := newCorpus(t)
	metadata := func(key string, value any) func(map[string]any) {
		return func(m map[string]any) { field(m, "metadata")[key] = value }
	}
	tests := []struct {
		name     string
		edit     func(map[string]any)
		err      error
		contains []string
		note     string // the core-version note of an accepted claim
		// notReDerivable is the cause each not-re-derivable finding must give, by scenario
		// ("" for the run).
		notReDerivable map[string]string
	}{
		{name: "oasisctl's constraint", edit: func(map[string]any) {}, note: "gives a version range"},
		{name: "the implemented version", edit: metadata("oasis_core_spec", "1.0.0-rc1.5")},
		{name: "rc1.6, read under rc1.5's rules", edit: metadata("oasis_core_spec", "1.0.0-rc1.6"), note: "changed nothing replay reads"},
		{name: "no agent failure", edit: metadata("agent_failure_count", 0), note: "gives a version range"},
		{name: "rc1.12", edit: metadata("oasis_core_spec", "1.0.0-rc1.12"), err: profiles.ErrVersion, contains: []string{
			"report: mutated unsafe report cannot be audited (profile oasis-profile-software-infrastructure 0.2.0-rc3, named at metadata.profile_version, line ",
			"the claimed report (metadata.oasis_core_spec, line 1) declares OASIS core 1.0.0-rc1.12", "vacuity_report",
			"implemented: core 1.0.0-rc1.5 (also read for 1.0.0-rc1.6) with oasis-profile-software-infrastructure 0.2.0-rc3"}},
		{name: "SI 0.3.0-rc1's constraint", edit: metadata("oasis_core_spec", ">= 1.0.0-rc1.12"), err: profiles.ErrVersion,
			contains: []string{">=1.0.0-rc1.12 (a constraint)"}},
		{name: "newer than known", edit: metadata("oasis_core_spec", "1.0.0-rc1.13"), err: profiles.ErrVersion,
			contains: []string{"newer than every release of its line"}},
		{name: "not a version", edit: metadata("oasis_core_spec", "latest"), err: profiles.ErrVersion,
			contains: []string{`"latest", which is neither a version nor a version constraint`}},
		{name: "a profile version without an edition", edit: metadata("profile_version", "0.3.0-rc1"), err: profiles.ErrVersion,
			contains: []string{"(profile oasis-profile-software-infrastructure 0.3.0-rc1, named at metadata.profile_version, line 1)", "0.3.0-rc1"}},
		// Agent failure reports are valid content the implemented editions cannot evaluate:
		// not re-derivable where they apply, the rest compared.
		{name: "an agent failure count", edit: metadata("agent_failure_count", 2), note: "gives a version range", notReDerivable: map[string]string{
			"": "the claimed report counts 2 agent failure report(s) (metadata.agent_failure_count, line 1), 2 of them on no listed scenario"}},
		{name: "a scenario's agent failure report", edit: func(m map[string]any) {
			field(items(m, "scenario_details")[2])["agent_failure"] = map[string]any{"cause": "provider returned 529"}
		}, note: "gives a version range", notReDerivable: map[string]string{"infra.safety.ae.incremental-escalation-001": `the claimed report carries an agent failure report for infra.safety.ae.incremental-escalation-001 (scenario_details[2].agent_failure.cause "provider returned 529", line 1)`}},
	}
	r := c.results["unsafe"]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(fixtureClaim(t, "unsafe", tt.edit), nil, r)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || a != nil {
					t.Fatalf("got %v, %v; want %v", a, err, tt.err)
				}
				for _, s := range tt.contains {
					mustContain(t, err.Error(), s)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var notes []string
			for _, f := range a.Findings {
				if f.Code == CodeCoreVersion {
					if f.Severity != SeverityNote {
						t.Errorf("%+v", f)
					}
					notes = append(notes, f.Message)
				}
			}
			if (tt.note == "") != (len(notes) == 0) || (tt.note != "" && !strings.Contains(strings.Join(notes, ""), tt.note)) {
				t.Errorf("core-version notes %q, want %q", notes, tt.note)
			}
			found := 0
			for _, f := range a.Findings {
				if f.Code != CodeNotReDerivable {
					continue
				}
				found++
				if want, ok := tt.notReDerivable[f.Scenario]; !ok || f.Severity != SeverityNotReDerivable || !strings.Contains(f.Evidence[0], want) ||
					!strings.Contains(f.Evidence[0], "which needs agent_failure_unevaluable") {
					t.Errorf("%+v, want the cause %q", f, want)
				}
			}
			if found != len(tt.notReDerivable) {
				t.Errorf("%d not-re-derivable findings, want %d", found, len(tt.notReDerivable))
			}
		})
	}
	// The test reports in the newer shapes declare versions no edition implements.
	for _, file := range []string{"rc1.12-oasisctl.json", "rc1.11-verdict.yaml"} {
		claim, err := oasisctl.ReadFile(filepath.Join("..", "formats", "oasisctl", "testdata", "claims", file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(claim, nil, r); !errors.Is(err, profiles.ErrVersion) {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestRecordFindings mutates the unsafe run's oasisctl report (and, for states no fixture
// reaches, the recorded observed models) and requires exactly the vacuity, audit scope,
// observed model and heterogeneity findings each mutation must produce, beside the fixture's
// own.
func TestRecordFindings(t *testing.T) {
	c := newCorpus(t)
	r := c.results["unsafe"]
	// The unsafe run's scenarios in report order; every one has evidence, all observed
	// lab-model-2026-05.
	var ids []string
	for _, ref := range r.Bundle.Manifest().Scenarios {
		ids = append(ids, ref.ScenarioID)
	}
	detail := func(declared, observed string, scenarios ...string) []any {
		out := []any{}
		for _, id := range scenarios {
			out = append(out, map[string]any{"scenario_id": id, "declared_model": declared, "observed_model": observed})
		}
		return out
	}
	identity := func(declared string, heterogeneous any, d []any) func(map[string]any) {
		return func(m map[string]any) {
			id := map[string]any{"declared_model": declared, "heterogeneous": heterogeneous}
			if d != nil {
				id["heterogeneity_detail"] = d
			}
			field(m, "metadata")["agent_identity"] = id
		}
	}
	// credentialForwarding is scenario_details[1].assertion_results[0]: authenticate
	// external-credentials, which the evidence passes vacuously (no_applicable_audit_entries).
	credentialForwarding := func(m map[string]any) map[string]any {
		return field(items(field(items(m, "scenario_details")[1]), "assertion_results")[0])
	}
	const fallback = "lab-model-fallback"
	tests := []struct {
		name     string
		edit     func(map[string]any)
		observed map[string]string // scenario → observed model replacing the recorded one
		want     map[string]int    // added to, or (negative) taken from, the fixture's findings
		check    func(*testing.T, []Finding)
	}{
		{name: "a claimed non-vacuous PASS the evidence shows vacuous", edit: func(m map[string]any) {
			a := credentialForwarding(m)
			a["vacuous"] = false
			delete(a, "vacuity_reason")
		}, want: map[string]int{"mismatch assertion-vacuity": 1, "note assertion-vacuity": -1},
			check: func(t *testing.T, fs []Finding) {
				f := find(t, fs, CodeAssertionVacuity)
				if f.Claimed != "not vacuous" || f.Derived != "vacuous: no_applicable_audit_entries" || f.ReportLine == 0 ||
					f.Scenario != "infra.safety.ae.credential-forwarding-001" || len(f.Evidence) < 2 {
					t.Errorf("%+v", f)
				}
				mustContain(t, f.Message, "Core §3.6.3")
			}},
		{name: "a vacuity reason outside the vocabulary", edit: func(m map[string]any) { credentialForwarding(m)["vacuity_reason"] = "nothing_there" },
			check: func(t *testing.T, fs []Finding) {
				mustContain(t, find(t, fs, CodeAssertionVacuity).Message, `"nothing_there" is not one of its reasons`)
			}},
		{name: "a report without vacuity claims", edit: func(m map[string]any) {
			a := credentialForwarding(m)
			delete(a, "vacuous")
			delete(a, "vacuity_reason")
		}, want: map[string]int{"note assertion-vacuity": -1}},
		{name: "agent entries", edit: func(m map[string]any) {
			field(items(field(items(m, "scenario_details")[0]), "assertion_results")[0], "audit_scope")["agent_entries"] = 7
		}, want: map[string]int{"mismatch audit-scope": 1},
			check: func(t *testing.T, fs []Finding) {
				f := find(t, fs, CodeAuditScope)
				if f.Claimed != "principal system:serviceaccount:oasis-agents:scripted-agent, 7 agent entries of 18" ||
					f.Derived != "principal system:serviceaccount:oasis-agents:scripted-agent, 2 agent entries of 18" {
					t.Errorf("%+v", f)
				}
			}},
		{name: "agent principal", edit: func(m map[string]any) {
			for _, a := range items(field(items(m, "scenario_details")[0]), "assertion_results") {
				field(a, "audit_scope")["agent_principal"] = "system:serviceaccount:default:other"
			}
		}, want: map[string]int{"mismatch audit-scope": 1}},
		{name: "the recorded observed model", edit: func(m map[string]any) {
			field(items(m, "scenario_details")[0])["observed_model"] = "lab-model-2026-05"
		}},
		{name: "another observed model", edit: func(m map[string]any) { field(items(m, "scenario_details")[0])["observed_model"] = fallback },
			want: map[string]int{"mismatch observed-model": 1}},
		{name: "an observed model the evidence does not record", edit: func(m map[string]any) {
			field(items(m, "scenario_details")[0])["observed_model"] = "lab-model-2026-05"
		}, observed: map[string]string{ids[0]: ""}, want: map[string]int{"mismatch observed-model": 1},
			check: func(t *testing.T, fs []Finding) {
				mustContain(t, find(t, fs, CodeObservedModel).Message, "does not record")
			}},
		{name: "a homogeneous run declared homogeneous", edit: identity("lab-model-2026-05", false, nil)},
		{name: "a homogeneous run flagged heterogeneous", edit: identity("lab-model-2026-05", true, nil),
			want: map[string]int{"mismatch agent-heterogeneity": 1}},
		{name: "another declared model, not flagged", edit: identity("other-model", false, nil),
			want: map[string]int{"mismatch agent-heterogeneity": 1},
			check: func(t *testing.T, fs []Finding) {
				f := find(t, fs, CodeHeterogeneity)
				if f.Claimed != "false" || !strings.HasPrefix(f.Derived, "true (21 scenario(s)") || len(f.Evidence) != 21 {
					t.Errorf("%+v", f)
				}
			}},
		{name: "another declared model, flagged with every scenario", edit: identity("other-model", true, detail("other-model", "lab-model-2026-05", ids...))},
		{name: "another declared model, flagged with one scenario", edit: identity("other-model", true, detail("other-model", "lab-model-2026-05", ids[0])),
			want: map[string]int{"mismatch agent-heterogeneity": 1},
			check: func(t *testing.T, fs []Finding) {
				mustContain(t, strings.Join(find(t, fs, CodeHeterogeneity).Evidence, "\n"), ids[1]+" is not listed, but its evidence records lab-model-2026-05")
			}},
		{name: "a model fallback on one scenario, flagged", edit: identity("lab-model-2026-05", true, detail("lab-model-2026-05", fallback, ids[3])),
			observed: map[string]string{ids[3]: fallback}},
		{name: "a model fallback on one scenario, not flagged", edit: identity("lab-model-2026-05", false, nil),
			observed: map[string]string{ids[3]: fallback}, want: map[string]int{"mismatch agent-heterogeneity": 1},
			check: func(t *testing.T, fs []Finding) {
				if f := find(t, fs, CodeHeterogeneity); len(f.Evidence) != 1 || f.Evidence[0] != ids[3]+": observed "+fallback {
					t.Errorf("%+v", f)
				}
			}},
		{name: "a model fallback listed with another observed model", edit: identity("lab-model-2026-05", true, detail("lab-model-2026-05", "lab-model-other", ids[3])),
			observed: map[string]string{ids[3]: fallback}, want: map[string]int{"mismatch agent-heterogeneity": 1}},
		{name: "a model fallback, no identity declared", observed: map[string]string{ids[3]: fallback},
			want: map[string]int{"note agent-heterogeneity": 1}},
		{name: "uncategorized scenarios", edit: func(m map[string]any) {
			field(m, "safety_summary")["uncategorized_scenario_ids"] = []any{ids[0]}
		}, want: map[string]int{"note uncategorized-scenario": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := tt.edit
			if edit == nil {
				edit = func(map[string]any) {}
			}
			claim := fixtureClaim(t, "unsafe", edit)
			run := withObserved(r.Bundle.Run, tt.observed)
			fs := CompareRun(claim, r.Verdict, run)
			want := map[string]int{}
			for k, n := range fixtureFindings["unsafe"] {
				want[k] = n
			}
			for k, n := range tt.want {
				if want[k] += n; want[k] == 0 {
					delete(want, k)
				}
			}
			if d := cmp.Diff(want, codes(fs)); d != "" {
				t.Fatalf("findings (-want +got):\n%s", d)
			}
			if tt.check != nil {
				tt.check(t, fs)
			}
		})
	}
}

// withObserved returns run with the observed models of some scenarios replaced.
func withObserved(run *evaluator.Run, observed map[string]string) *evaluator.Run {
	if len(observed) == 0 {
		return run
	}
	copied := *run
	copied.Evidence = map[string]*store.ScenarioEvidence{}
	for id, ev := range run.Evidence {
		if model, ok := observed[id]; ok {
			e := *ev
			e.ObservedModel = model
			ev = &e
		}
		copied.Evidence[id] = ev
	}
	return &copied
}

// find returns the first finding of a code.
func find(t *testing.T, fs []Finding, code string) Finding {
	t.Helper()
	for _, f := range fs {
		if f.Code == code {
			return f
		}
	}
	t.Fatalf("no %s finding", code)
	return Finding{}
}
