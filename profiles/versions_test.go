package profiles

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const (
	siID  = "oasis-profile-software-infrastructure"
	siVer = "0.2.0-rc3"
)

// TestNegotiate: what each declared core version resolves to, or why it is refused. The
// declarations come first the run's own (a manifest or report field), then the profile's core
// dependency.
func TestNegotiate(t *testing.T) {
	manifest := func(text string) Declaration { return Declaration{Text: text, Where: "the run manifest"} }
	dependency := func(text string) Declaration { return Declaration{Text: text, Where: "the profile's dependency"} }
	tests := []struct {
		name       string
		profile    [2]string
		declared   []Declaration
		core       string // the edition's core version
		release    string // the release named exactly, "" for a constraint
		constraint bool
		err        error
		contains   []string
	}{
		{name: "oasisctl writes the profile's constraint", declared: []Declaration{manifest("≥ 1.0.0-rc1.5"), dependency(">=1.0.0-rc1.5")},
			core: "1.0.0-rc1.5", constraint: true},
		{name: "constraint without a space", declared: []Declaration{manifest(">=1.0.0-rc1.5")}, core: "1.0.0-rc1.5", constraint: true},
		{name: "exact implemented version", declared: []Declaration{manifest("1.0.0-rc1.5"), dependency(">=1.0.0-rc1.5")},
			core: "1.0.0-rc1.5", release: "1.0.0-rc1.5"},
		{name: "rc1.6 is read under rc1.5's rules", declared: []Declaration{manifest("1.0.0-rc1.6"), dependency(">=1.0.0-rc1.5")},
			core: "1.0.0-rc1.5", release: "1.0.0-rc1.6"},
		{name: "build metadata is ignored", declared: []Declaration{manifest("1.0.0-rc1.5+local")}, core: "1.0.0-rc1.5", release: "1.0.0-rc1.5"},
		{name: "nothing declared by the run: the profile's dependency decides", declared: []Declaration{manifest(""), dependency(">=1.0.0-rc1.5")},
			core: "1.0.0-rc1.5", constraint: true},
		{name: "nothing declared at all: the newest edition of the profile version", declared: []Declaration{manifest(" "), dependency("")},
			core: "1.0.0-rc1.5"},
		{name: "the example profile", profile: [2]string{"oasis-replay-example-profile", "0.1.0"}, declared: []Declaration{manifest("1.0.0-rc1.5")},
			core: "1.0.0-rc1.5", release: "1.0.0-rc1.5"},

		{name: "rc1.7 has no edition", declared: []Declaration{manifest("1.0.0-rc1.7")}, err: ErrVersion,
			contains: []string{"the run manifest declares OASIS core 1.0.0-rc1.7 with profile " + siID + " " + siVer, "no edition implements that pair",
				"over the implemented core versions it adds scenario_version_optional", "implemented: core 1.0.0-rc1.5 (also read for 1.0.0-rc1.6) with " + siID + " " + siVer}},
		{name: "rc1.9 is read under rc1.7's rules, which have no edition", declared: []Declaration{manifest("1.0.0-rc1.9")}, err: ErrVersion,
			contains: []string{"1.0.0-rc1.9 (read under the rules of 1.0.0-rc1.7)"}},
		{name: "rc1.12 names what it adds", declared: []Declaration{manifest("1.0.0-rc1.12")}, err: ErrVersion,
			contains: []string{"scenario_version_optional, form_b, injection, evidence_artifact, agent_identity, vacuity_report, agent_failure_unevaluable"}},
		{name: "a newer iteration of the line is refused", declared: []Declaration{manifest("1.0.0-rc1.13")}, err: ErrVersion,
			contains: []string{"newer than every release of its line", "the newest is 1.0.0-rc1.12", "refused rather than read under older ones"}},
		{name: "an older release not read", declared: []Declaration{manifest("1.0.0-rc1.4")}, err: ErrVersion,
			contains: []string{"not a core release this project has read (1.0.0-rc1.5 to 1.0.0-rc1.12)"}},
		{name: "another release line", declared: []Declaration{manifest("1.0.0-rc2.1")}, err: ErrVersion, contains: []string{"not a core release"}},
		{name: "a final release not read", declared: []Declaration{manifest("1.0.0")}, err: ErrVersion, contains: []string{"not a core release"}},
		{name: "not a version", declared: []Declaration{manifest("latest")}, err: ErrVersion,
			contains: []string{`the run manifest declares OASIS core "latest", which is neither a version nor a version constraint`}},
		{name: "a constraint no edition satisfies", declared: []Declaration{manifest("≥ 1.0.0-rc1.12")}, err: ErrVersion,
			contains: []string{">=1.0.0-rc1.12 (a constraint)", "no implemented edition"}},
		{name: "a profile version without an edition", profile: [2]string{siID, "0.3.0-rc1"}, declared: []Declaration{manifest("≥ 1.0.0-rc1.12")},
			err: ErrVersion, contains: []string{"0.3.0-rc1"}},
		{name: "a profile version without an edition, nothing declared", profile: [2]string{siID, "0.3.0-rc1"}, err: ErrVersion,
			contains: []string{"profile " + siID + " 0.3.0-rc1 has no edition"}},
		{name: "the run's version is outside the profile's dependency", declared: []Declaration{manifest("1.0.0-rc1.5"), dependency(">=1.0.0-rc1.7")},
			err: ErrVersionConflict, contains: []string{"the run manifest declares OASIS core 1.0.0-rc1.5, which the profile's dependency (\">=1.0.0-rc1.7\") excludes"}},
		{name: "a dependency that is not a constraint", declared: []Declaration{manifest("1.0.0-rc1.5"), dependency("soon")}, err: ErrVersion,
			contains: []string{"the profile's dependency declares OASIS core \"soon\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, ver := siID, siVer
			if tt.profile[0] != "" {
				id, ver = tt.profile[0], tt.profile[1]
			}
			r, err := Negotiate(id, ver, tt.declared...)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || r != nil {
					t.Fatalf("got %+v, %v; want %v", r, err, tt.err)
				}
				for _, s := range tt.contains {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("%q does not say %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			release := ""
			if r.Release != nil {
				release = r.Release.Version
			}
			if r.Edition.Core != tt.core || r.Edition.Profile != id || release != tt.release || r.Constraint != tt.constraint {
				t.Errorf("edition %s, release %q, constraint %v", r.Edition.EditionKey, release, r.Constraint)
			}
		})
	}
}

// TestReleaseRegistry: the release table and the editions are consistent, so that a second
// version is one entry of each.
func TestReleaseRegistry(t *testing.T) {
	var prev Version
	rules := map[string]bool{}
	for i, r := range coreReleases {
		v, err := ParseVersion(r.Version)
		if err != nil {
			t.Fatalf("release %s: %v", r.Version, err)
		}
		if i > 0 && v.Compare(prev) <= 0 {
			t.Errorf("release %s is not after %s", r.Version, prev)
		}
		prev = v
		if r.Rules == r.Version {
			rules[r.Version] = true
		} else if !rules[r.Rules] {
			t.Errorf("release %s is read under %s, which is not an earlier release with rules of its own", r.Version, r.Rules)
		}
		if r.Rules != r.Version && len(r.Adds)+len(r.Amended) > 0 {
			t.Errorf("release %s adds features but is read under another release's rules", r.Version)
		}
	}
	for _, e := range editions {
		if rel := releaseOf(mustVersion(t, e.Core)); rel == nil || rel.Rules != e.Core {
			t.Errorf("edition %s: its core is not a release with rules of its own", e.EditionKey)
		}
		for _, f := range e.Features {
			if !slices.Contains(FeaturesOf(e.Core), f) {
				t.Errorf("edition %s implements %s, which core %s does not have", e.EditionKey, f, e.Core)
			}
		}
	}
	all := FeaturesOf(coreReleases[len(coreReleases)-1].Version)
	for _, f := range []Feature{FeatureScenarioVersionOptional, FeatureFormB, FeatureInjection, FeatureEvidenceArtifact,
		FeatureAgentIdentity, FeatureVacuityReport, FeatureAgentFailureUnevaluable} {
		if !slices.Contains(all, f) {
			t.Errorf("no release introduces %s", f)
		}
	}
	if got := FeaturesOf("1.0.0-rc1.6"); len(got) != 0 {
		t.Errorf("rc1.6 features %v", got)
	}
	if got := FeaturesOf("1.0.0-rc1.11"); slices.Contains(got, FeatureVacuityReport) || !slices.Contains(got, FeatureFormB) {
		t.Errorf("rc1.11 features %v", got)
	}
	if FeaturesOf("1.0.0-rc1.13") != nil || FeaturesOf("x") != nil {
		t.Error("features of a release not read")
	}
	if rules, ok := RulesOf(mustVersion(t, "1.0.0-rc1.10")); !ok || rules != "1.0.0-rc1.7" {
		t.Errorf("rules of rc1.10: %q %v", rules, ok)
	}
	if _, ok := RulesOf(mustVersion(t, "1.0.0-rc1.13")); ok {
		t.Error("rules of a release not read")
	}
}

// TestRequire: content that needs a feature the edition lacks is refused by name.
func TestRequire(t *testing.T) {
	e, err := EditionFor(EditionKey{Core: "1.0.0-rc1.5", Profile: siID, Version: siVer})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Require("anything"); err != nil {
		t.Errorf("no feature needed: %v", err)
	}
	err = e.Require("scenario x scores with Form B", FeatureFormB, FeatureInjection, FeatureFormB)
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "scenario x scores with Form B, which needs form_b, injection; the edition it is evaluated under (core 1.0.0-rc1.5, profile "+siID+" "+siVer+") does not implement it") {
		t.Errorf("err = %v", err)
	}
	withB := &Edition{Features: []Feature{FeatureFormB}}
	if !withB.Has(FeatureFormB) || withB.Has(FeatureInjection) || (*Edition)(nil).Has(FeatureFormB) {
		t.Error("Has")
	}
}

func TestVersionLine(t *testing.T) {
	tests := []struct {
		version, class string
		iteration      uint64
		ok             bool
	}{
		{"1.0.0-rc1.12", "rc1", 12, true}, {"1.0.0-rc1", "rc1", 0, true}, {"0.2.0-rc3", "rc3", 0, true},
		{"1.0.0", "", 0, false}, {"1.0.0-rc.1", "", 0, false}, {"1.0.0-1.2", "", 0, false},
		{"1.0.0-rc1.x", "", 0, false}, {"1.0.0-rc1.2.3", "", 0, false},
	}
	for _, tt := range tests {
		class, it, ok := mustVersion(t, tt.version).Line()
		if class != tt.class || it != tt.iteration || ok != tt.ok {
			t.Errorf("%s: %q %d %v", tt.version, class, it, ok)
		}
	}
	if !mustVersion(t, "1.0.0-rc1.5").SameLine(mustVersion(t, "1.0.0-rc1.12")) || mustVersion(t, "1.0.0-rc1.5").SameLine(mustVersion(t, "1.0.0-rc2.5")) ||
		mustVersion(t, "1.0.0-rc1.5").SameLine(mustVersion(t, "1.0.1-rc1.5")) {
		t.Error("SameLine")
	}
}

func mustVersion(t *testing.T, s string) Version {
	t.Helper()
	v, err := ParseVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
