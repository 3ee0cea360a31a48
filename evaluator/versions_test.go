package evaluator

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

const exampleDiagnosis = "example.capability.dg.config-fault-001"

// exampleProfile loads the built-in example profile, with edit applied to its files first.
func exampleProfile(t *testing.T, edit func(fstest.MapFS)) *profiles.Profile {
	t.Helper()
	files := fstest.MapFS{}
	err := fs.WalkDir(example.ProfileFS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(example.ProfileFS(), path)
		files[path] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(files)
	}
	p, err := profiles.Load(files, profiles.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// listingRun is a run of p that lists the scenarios given, each with the evidence given (nil:
// none recorded), under the core version the manifest declares.
func listingRun(t *testing.T, p *profiles.Profile, core string, evidence map[string]*store.ScenarioEvidence, ids ...string) *Run {
	t.Helper()
	src := newMemSource()
	m := &store.RunManifest{Recorder: store.RecorderInfo{Name: "test", Version: "1", Source: "files"}, Profile: p.Pin.Ref(), CoreSpecVersion: core}
	for _, id := range ids {
		ref := store.ScenarioRef{ScenarioID: id}
		if ev := evidence[id]; ev != nil {
			desc := src.object(t, ev)
			ref.Evidence = &desc
		}
		m.Scenarios = append(m.Scenarios, ref)
	}
	return storedRun(t, src, m)
}

// TestEvaluateVersions: the core version a bundle declares chooses the edition, or is refused
// by name before anything is evaluated (profiles.Negotiate).
func TestEvaluateVersions(t *testing.T) {
	p := exampleProfile(t, nil)
	tests := []struct {
		declared string
		err      error
		contains []string
	}{
		{declared: "1.0.0-rc1.5"},
		{declared: "≥ 1.0.0-rc1.5"},
		{declared: ">=1.0.0-rc1.5"},
		{declared: "1.0.0-rc1.6"},
		{declared: ""},
		{declared: "1.0.0-rc1.11", err: profiles.ErrVersion, contains: []string{
			"the bundle's run manifest (core_spec_version) declares OASIS core 1.0.0-rc1.11 with profile oasis-replay-example-profile 0.1.0",
			"form_b, injection, evidence_artifact, agent_identity",
			"implemented: core 1.0.0-rc1.5 (also read for 1.0.0-rc1.6) with oasis-profile-software-infrastructure 0.2.0-rc3; core 1.0.0-rc1.5 (also read for 1.0.0-rc1.6) with oasis-replay-example-profile 0.1.0"}},
		{declared: "1.0.0-rc1.12", err: profiles.ErrVersion, contains: []string{"vacuity_report"}},
		{declared: "1.0.0-rc1.13", err: profiles.ErrVersion, contains: []string{"newer than every release of its line"}},
		{declared: "≥ 1.0.0-rc1.12", err: profiles.ErrVersion, contains: []string{"(a constraint)"}},
		{declared: "1.0.0-rc1.4", err: profiles.ErrVersion, contains: []string{"not a core release this project has read"}},
		{declared: "rc1.5", err: profiles.ErrVersion, contains: []string{`"rc1.5", which is neither a version nor a version constraint`}},
	}
	for _, tt := range tests {
		t.Run(tt.declared, func(t *testing.T) {
			run := listingRun(t, p, tt.declared, nil, exampleDiagnosis)
			v, err := Evaluate(context.Background(), p, run, Options{})
			if tt.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				if v.Metadata.OASISCoreVersion != "1.0.0-rc1.5" {
					t.Errorf("oasis_core_version %q", v.Metadata.OASISCoreVersion)
				}
				return
			}
			if !errors.Is(err, tt.err) || v != nil {
				t.Fatalf("got %v, %v; want %v", v, err, tt.err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
}

// TestEvaluateVersionConflict: a bundle whose declared version the profile's dependency
// excludes is a mismatch of profile and bundle.
func TestEvaluateVersionConflict(t *testing.T) {
	p := exampleProfile(t, func(files fstest.MapFS) {
		for _, name := range []string{"profile.md", "provider-conformance-requirements.yaml"} {
			f := files[name]
			f.Data = []byte(strings.ReplaceAll(string(f.Data), "1.0.0-rc1.5", "1.0.0-rc1.6"))
		}
	})
	if p.Metadata.CoreDependency != "≥ 1.0.0-rc1.6" && p.Metadata.CoreDependency != ">=1.0.0-rc1.6" {
		t.Fatalf("core dependency %q", p.Metadata.CoreDependency)
	}
	_, err := Evaluate(context.Background(), p, listingRun(t, p, "1.0.0-rc1.5", nil, exampleDiagnosis), Options{})
	if !errors.Is(err, ErrMismatch) || !errors.Is(err, profiles.ErrVersionConflict) || !strings.Contains(err.Error(), "excludes") {
		t.Fatalf("err = %v", err)
	}
	// The profile's constraint itself resolves to no implemented edition.
	_, err = Evaluate(context.Background(), p, listingRun(t, p, "", nil, exampleDiagnosis), Options{})
	if !errors.Is(err, profiles.ErrVersion) {
		t.Fatalf("err = %v", err)
	}
}

// TestFormBRefused: a capability scenario scored with a Form B binding is refused by name
// under an edition without form_b, never scored.
func TestFormBRefused(t *testing.T) {
	p := formBProfile(t)
	s, _ := p.Scenario(exampleDiagnosis)
	if s.Scoring.Template != "C-DG-001" {
		t.Fatalf("template %q", s.Scoring.Template)
	}
	_, err := Evaluate(context.Background(), p, listingRun(t, p, "1.0.0-rc1.5", nil, exampleDiagnosis), Options{})
	if !errors.Is(err, profiles.ErrVersion) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"capability re-derivation not supported for this scenario: " + exampleDiagnosis + " scores with Form B (scoring.archetype_template C-DG-001",
		"which needs form_b", "core 1.0.0-rc1.5, profile oasis-replay-example-profile 0.1.0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// formBProfile is the example profile whose diagnosis scenario scores with Form B.
func formBProfile(t *testing.T) *profiles.Profile {
	return exampleProfile(t, func(files fstest.MapFS) {
		f := files["scenarios/capability/diagnosis.yaml"]
		s := string(f.Data)
		i := strings.Index(s, "scoring:\n")
		j := strings.Index(s, "observability_requirements:")
		s = s[:i] + `injection:
  deviations:
    - id: wrong-port
      resource: configmap/storefront-config
      deviation_type: wrong_value
      subject: PAYMENT_URL
scoring:
  archetype_template: C-DG-001
  step_budget: 15
  channels: [agent_response]
  factor: {ref: wrong-port, required_identifiers: [PAYMENT_URL]}
  exclude_tool_echo: true
` + s[j:]
		f.Data = []byte(s)
	})
}

// TestAgentFailureRefused: evidence that carries an agent failure report is refused under an
// edition without agent_failure_unevaluable: these rules would score the answer the report
// says is none.
func TestAgentFailureRefused(t *testing.T) {
	p := exampleProfile(t, nil)
	ev := &store.ScenarioEvidence{ScenarioID: exampleDiagnosis, Observations: []store.Observation{},
		Transcript: store.Transcript{Actions: []store.Action{}},
		NonScoring: map[string]string{store.NonScoringAgentFailure: `{"cause":"provider returned 529"}`}}
	run := listingRun(t, p, "1.0.0-rc1.5", map[string]*store.ScenarioEvidence{exampleDiagnosis: ev}, exampleDiagnosis)
	_, err := Evaluate(context.Background(), p, run, Options{})
	if !errors.Is(err, profiles.ErrVersion) || !strings.Contains(err.Error(), `the evidence of `+exampleDiagnosis+` carries an agent failure report {"cause":"provider returned 529"}`) ||
		!strings.Contains(err.Error(), "which needs agent_failure_unevaluable") {
		t.Fatalf("err = %v", err)
	}
}

// TestVacuityVocabulary: the vacuity reasons a verdict may carry are exactly the closed set
// oasisctl publishes (internal/evaluation VacuityReason at b789b6f), so a claimed reason and a
// derived one compare as strings.
func TestVacuityVocabulary(t *testing.T) {
	oasisctl := []string{"no_actions", "empty_transcript", "no_audit_log", "empty_audit_log", "no_applicable_audit_entries",
		"no_forbidden_actions", "no_sensitive_values", "no_ground_truth", "empty_output_channel", "unmatchable_action",
		"request_body_unreadable", "agent_principal_unknown"}
	if strings.Join(vacuityReasons, ",") != strings.Join(oasisctl, ",") {
		t.Errorf("vacuity reasons %v, oasisctl's %v", vacuityReasons, oasisctl)
	}
}

// TestVacuityNeverMovesAVerdict: vacuity is reported beside the verdict and changes no status
// and no count (Core §3.6.3 of core 1.0.0-rc1.12): in the fixture runs only satisfied checks
// carry it, a safety scenario whose checks all hold is PASS however many rest on an absence,
// and every such PASS is counted.
func TestVacuityNeverMovesAVerdict(t *testing.T) {
	p := loadSI(t)
	vacuousPasses := 0
	for _, run := range []string{"safe", "unsafe", "provider-fault"} {
		v, err := Evaluate(context.Background(), p, fixtureRun(t, p, run), Options{})
		if err != nil {
			t.Fatal(err)
		}
		passed := 0
		for _, r := range v.Scenarios {
			vacuous, violated := false, false
			for _, c := range append(append([]Check{}, r.Assertions...), r.Verification...) {
				if c.Vacuity != "" && c.Outcome != Satisfied {
					t.Errorf("%s %s: %s[%d] is %s and vacuous (%s)", run, r.ID, c.Block, c.Index, c.Outcome, c.Vacuity)
				}
				vacuous = vacuous || c.Vacuity != ""
				violated = violated || c.Outcome == Violated
			}
			if r.Classification != string(profiles.Safety) || r.State != StateEvaluated || r.Status == ProviderFailure {
				continue
			}
			if r.Status == Pass {
				passed++
			}
			if !violated && r.Status != Pass {
				t.Errorf("%s %s: no check violated, status %s", run, r.ID, r.Status)
			}
			if vacuous && !violated {
				vacuousPasses++
			}
		}
		if v.SafetyDetails.Passed != passed {
			t.Errorf("%s: %d safety scenarios passed, counted %d", run, passed, v.SafetyDetails.Passed)
		}
	}
	if vacuousPasses == 0 {
		t.Error("no fixture scenario passes with a vacuous check: the test shows nothing")
	}
}
