package profiles

import (
	"fmt"
	"slices"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// A Feature is one change of OASIS after core 1.0.0-rc1.5 that replay reads or decides by.
// Behaviour is keyed on features, never on a version string: a core release lists the
// features it introduces (coreReleases), an edition the features it implements
// (Edition.Features), and content that needs a feature an edition lacks is refused by name.
type Feature string

// The features, each with the text that introduced it (docs/decisions.md, "What each OASIS
// version changes for replay").
const (
	// FeatureScenarioVersionOptional: scenario and suite version may be omitted and are
	// inherited from the profile (Scenarios §1.1, §3; core 1.0.0-rc1.7).
	FeatureScenarioVersionOptional Feature = "scenario_version_optional"
	// FeatureFormB: a capability scenario's scoring may be a binding to a profile band template
	// (archetype_template), scored by the profile's decomposition (Scenarios §1.7; 1.0.0-rc1.11).
	FeatureFormB Feature = "form_b"
	// FeatureInjection: a scenario may declare an injection manifest, the ground truth Form B
	// reads (Scenarios §1.11; 1.0.0-rc1.11).
	FeatureInjection Feature = "injection"
	// FeatureEvidenceArtifact: every executed scenario has an evidence-<scenario-id>.json
	// artifact that its scenario record references (Reporting §1.2; 1.0.0-rc1.11).
	FeatureEvidenceArtifact Feature = "evidence_artifact"
	// FeatureAgentIdentity: the report declares the agent identity once, each scenario record
	// carries the observed model, and a run whose observed model differs from the declared one
	// is flagged heterogeneous (Reporting §1.2; 1.0.0-rc1.11).
	FeatureAgentIdentity Feature = "agent_identity"
	// FeatureVacuityReport: each assertion resolved PASS reports whether its check had
	// anything to examine, beside a verdict that does not move (Core §3.6.3; 1.0.0-rc1.12).
	FeatureVacuityReport Feature = "vacuity_report"
	// FeatureAgentFailureUnevaluable: an agent failure report in the execute response makes the
	// scenario unevaluable unless a violation stands (Execution §1.2, Core §3.6.6), a text
	// still labelled 1.0.0-rc1.12 that came after 3b274ea. It changes an outcome for the same
	// evidence, so it is decided by content: evidence or a report that carries an agent
	// failure needs it.
	FeatureAgentFailureUnevaluable Feature = "agent_failure_unevaluable"
)

// CoreRelease is one release of the OASIS core specification as this project has read it.
type CoreRelease struct {
	// Version is the release's version, as tagged.
	Version string
	// Rules is the release whose rules replay applies to it: itself, or an earlier release
	// when it changed nothing replay reads or decides.
	Rules string
	// Adds lists the features the release introduces.
	Adds []Feature
	// Amended lists features a later text under the same version label introduces; whether a
	// run follows it is decided by content (FeatureAgentFailureUnevaluable).
	Amended []Feature
	// Source names the text that was read.
	Source string
}

// coreReleases are the core releases read, oldest first. A new release is one entry here;
// an edition implementing it is one entry of editions.
var coreReleases = []CoreRelease{
	{Version: "1.0.0-rc1.5", Rules: "1.0.0-rc1.5", Source: "tag v1.0.0-rc1.5, commit b02891f"},
	{Version: "1.0.0-rc1.6", Rules: "1.0.0-rc1.5", Source: "tag v1.0.0-rc1.6, commit 828b93e: README only"},
	{Version: "1.0.0-rc1.7", Rules: "1.0.0-rc1.7", Adds: []Feature{FeatureScenarioVersionOptional},
		Source: "CHANGELOG [1.0.0-rc1.7], 2026-05-05"},
	{Version: "1.0.0-rc1.8", Rules: "1.0.0-rc1.7", Source: "tag named by the CHANGELOG; embedded version string still 1.0.0-rc1.7"},
	{Version: "1.0.0-rc1.9", Rules: "1.0.0-rc1.7", Source: "tag named by the CHANGELOG; embedded version string still 1.0.0-rc1.7"},
	{Version: "1.0.0-rc1.10", Rules: "1.0.0-rc1.7", Source: "tag named by the CHANGELOG; embedded version string still 1.0.0-rc1.7"},
	{Version: "1.0.0-rc1.11", Rules: "1.0.0-rc1.11",
		Adds:   []Feature{FeatureFormB, FeatureInjection, FeatureEvidenceArtifact, FeatureAgentIdentity},
		Source: "commit f9c4620 (Reporting §1.2, Scenarios §1.7 and §1.11, Execution §1.1)"},
	{Version: "1.0.0-rc1.12", Rules: "1.0.0-rc1.12", Adds: []Feature{FeatureVacuityReport},
		Amended: []Feature{FeatureAgentFailureUnevaluable},
		Source:  "commit 3b274ea (Core §3.6.3); the later text with Execution §1.2 agent failure report"},
}

// CoreReleases returns the core releases read, oldest first. They are shared: do not modify
// them.
func CoreReleases() []CoreRelease { return coreReleases }

// releaseOf returns the release of version v, or nil when none was read. Build metadata is
// ignored, as semver precedence ignores it.
func releaseOf(v Version) *CoreRelease {
	for i := range coreReleases {
		if r, err := ParseVersion(coreReleases[i].Version); err == nil && r.Compare(v) == 0 {
			return &coreReleases[i]
		}
	}
	return nil
}

// RulesOf returns the release whose rules apply to core release v (rc1.6 is read under
// rc1.5's), and false when v is not a release read.
func RulesOf(v Version) (string, bool) {
	if r := releaseOf(v); r != nil {
		return r.Rules, true
	}
	return "", false
}

// FeaturesOf returns every feature core release version introduces or inherits, amendments
// included, in release order; nil for a release that was not read.
func FeaturesOf(version string) []Feature {
	v, err := ParseVersion(version)
	if err != nil || releaseOf(v) == nil {
		return nil
	}
	var out []Feature
	for _, r := range coreReleases {
		if w, _ := ParseVersion(r.Version); w.Compare(v) <= 0 {
			out = append(append(out, r.Adds...), r.Amended...)
		}
	}
	return out
}

// Has reports whether the edition implements feature f.
func (e *Edition) Has(f Feature) bool { return e != nil && slices.Contains(e.Features, f) }

// Missing returns the features of fs the edition does not implement, in the order given.
func (e *Edition) Missing(fs ...Feature) []Feature {
	var out []Feature
	for _, f := range fs {
		if !e.Has(f) && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Require refuses content that needs features the edition does not implement. what names
// the content and where it is ("scenario X scores with Form B (archetype_template
// C-DA-001)"); the error wraps ErrVersion.
func (e *Edition) Require(what string, fs ...Feature) error {
	missing := e.Missing(fs...)
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w (%w): %s, which needs %s; the edition it is evaluated under (%s) does not implement it",
		ErrVersion, ErrNotReDerivable, what, joinFeatures(missing), e.EditionKey)
}

// Version negotiation errors.
var (
	// ErrVersion: a run or a report declares an OASIS core or profile version, or carries
	// content, that no implemented edition evaluates, or a version that is not one. Nothing
	// is evaluated or audited under rules the project has not read.
	ErrVersion = errclass.New(errclass.Input, "profiles: OASIS version not implemented")
	// ErrNotReDerivable: content that is valid for its OASIS version (a feature the version
	// defines, a prose entry OASIS leaves to the evaluator, evidence past a bound of this
	// evaluator) which the edition evaluating it cannot evaluate exactly. It is not an error of
	// the input: replay refuses it, an audit reports the scenario concerned as not
	// re-derivable and compares the rest (docs/decisions.md, "Audit: not re-derivable in OASIS
	// and Eval Library audits"). Edition.Require's refusals wrap it beside ErrVersion.
	ErrNotReDerivable = errclass.New(errclass.Input, "not re-derivable")
	// ErrVersionConflict: two sources of one run declare core versions that exclude each
	// other (a run of 1.0.0-rc1.5 against a profile that needs at least 1.0.0-rc1.7).
	ErrVersionConflict = errclass.New(errclass.Input, "profiles: declared OASIS versions disagree")
)

// Declaration is a core version as one source declares it.
type Declaration struct {
	// Text is the version or constraint as written: "1.0.0-rc1.12", or oasisctl's "≥
	// 1.0.0-rc1.5"; "" when the source declares none.
	Text string
	// Where names the source in messages: "the bundle's run manifest (core_spec_version)".
	Where string
}

// Resolution is what Negotiate decided.
type Resolution struct {
	// Edition is the edition whose rules apply.
	Edition *Edition
	// By is the declaration that decided: the first that declares a version. It is zero when
	// none does; the newest edition of the profile version applies then.
	By Declaration
	// Constraint says By is a constraint, not a version: it was resolved to the newest
	// implemented core version it admits.
	Constraint bool
	// Release is the release By names exactly; nil for a constraint.
	Release *CoreRelease
}

// Negotiate returns the edition that evaluates a run of profile (id, version) whose sources
// declare the given core versions, most authoritative first (Reporting §1's version field of
// the report or manifest, then the profile's core dependency). The first declaration that
// declares anything decides:
//
//   - an exact version must be a release read (coreReleases) whose rules an edition of the
//     profile version implements; rc1.6 is read under rc1.5's rules, rc1.8–rc1.10 under
//     rc1.7's. A newer iteration of a known line is refused, not read under older rules;
//   - a constraint ("≥ 1.0.0-rc1.5", a leading ≥ or >= and its spaces accepted) resolves to
//     the newest implemented core version it admits.
//
// Every later declaration must admit the version the first one resolved to. A refusal wraps
// ErrVersion (nothing implemented) or ErrVersionConflict and names the declaration, its
// source and every implemented edition.
func Negotiate(profileID, profileVersion string, declared ...Declaration) (*Resolution, error) {
	res := &Resolution{}
	rest := declared
	for i, d := range declared {
		if strings.TrimSpace(d.Text) != "" {
			res.By, rest = d, declared[i+1:]
			break
		}
	}
	if res.By.Text == "" {
		res.Edition = newestEdition(profileID, profileVersion, nil)
		if res.Edition == nil {
			return nil, fmt.Errorf("%w: profile %s %s has no edition; implemented: %s", ErrVersion, profileID, profileVersion, implemented())
		}
		return res, nil
	}
	c, err := ParseConstraint(res.By.Text)
	if err != nil {
		return nil, fmt.Errorf("%w: %s declares OASIS core %q, which is neither a version nor a version constraint; implemented: %s",
			ErrVersion, res.By.Where, res.By.Text, implemented())
	}
	runVersion := c.Version
	if c.Op == "=" {
		err = res.exact(c.Version, profileID, profileVersion)
	} else {
		runVersion, err = res.constrained(c, profileID, profileVersion)
	}
	if err != nil {
		return nil, err
	}
	for _, d := range rest {
		if strings.TrimSpace(d.Text) == "" {
			continue
		}
		c, err := ParseConstraint(d.Text)
		if err != nil {
			return nil, fmt.Errorf("%w: %s declares OASIS core %q, which is neither a version nor a version constraint", ErrVersion, d.Where, d.Text)
		}
		if !c.Allows(runVersion) {
			return nil, fmt.Errorf("%w: %s declares OASIS core %s, which %s (%q) excludes", ErrVersionConflict, res.By.Where, runVersion, d.Where, d.Text)
		}
	}
	return res, nil
}

// exact resolves an exact declared version.
func (res *Resolution) exact(v Version, profileID, profileVersion string) error {
	res.Release = releaseOf(v)
	if res.Release == nil {
		return fmt.Errorf("%w: %s declares OASIS core %s, %s; implemented: %s", ErrVersion, res.By.Where, v, unknownRelease(v), implemented())
	}
	res.Edition = editionOf(res.Release.Rules, profileID, profileVersion)
	if res.Edition == nil {
		return fmt.Errorf("%w: %s declares OASIS core %s%s with profile %s %s, and no edition implements that pair%s; implemented: %s",
			ErrVersion, res.By.Where, v, readAs(res.Release), profileID, profileVersion, adds(res.Release), implemented())
	}
	return nil
}

// constrained resolves a declared constraint to the newest implemented core version it admits.
func (res *Resolution) constrained(c Constraint, profileID, profileVersion string) (Version, error) {
	res.Constraint = true
	res.Edition = newestEdition(profileID, profileVersion, &c)
	if res.Edition == nil {
		return Version{}, fmt.Errorf("%w: %s declares OASIS core %s (a constraint) with profile %s %s, and no implemented edition of that profile version has a core version it admits; implemented: %s",
			ErrVersion, res.By.Where, c, profileID, profileVersion, implemented())
	}
	v, _ := ParseVersion(res.Edition.Core)
	return v, nil
}

// unknownRelease says why an exact version names no release read.
func unknownRelease(v Version) string {
	newest := Version{}
	found := false
	for _, r := range coreReleases {
		w, _ := ParseVersion(r.Version)
		if w.SameLine(v) && (!found || w.Compare(newest) > 0) {
			newest, found = w, true
		}
	}
	if found && v.Compare(newest) > 0 {
		return fmt.Sprintf("newer than every release of its line this project has read (the newest is %s); its rules are unknown, so it is refused rather than read under older ones", newest)
	}
	return fmt.Sprintf("which is not a core release this project has read (%s to %s)", coreReleases[0].Version, coreReleases[len(coreReleases)-1].Version)
}

// readAs says which release's rules a release is read under, when another's.
func readAs(r *CoreRelease) string {
	if r.Rules == r.Version {
		return ""
	}
	return " (read under the rules of " + r.Rules + ")"
}

// adds names the features a release has that the implemented editions' core versions lack.
func adds(r *CoreRelease) string {
	have := map[Feature]bool{}
	for _, e := range editions {
		for _, f := range FeaturesOf(e.Core) {
			have[f] = true
		}
	}
	var out []string
	for _, f := range FeaturesOf(r.Version) {
		if !have[f] {
			out = append(out, string(f))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; over the implemented core versions it adds " + strings.Join(out, ", ")
}

// editionOf returns the edition of (core, profile id, profile version), or nil.
func editionOf(core, profileID, profileVersion string) *Edition {
	e, err := EditionFor(EditionKey{Core: core, Profile: profileID, Version: profileVersion})
	if err != nil {
		return nil
	}
	return e
}

// newestEdition returns the edition of the profile version with the newest core version c
// admits (any, when c is nil), or nil.
func newestEdition(profileID, profileVersion string, c *Constraint) *Edition {
	var best *Edition
	var bestV Version
	for _, e := range editions {
		if e.Profile != profileID || e.Version != profileVersion {
			continue
		}
		v, err := ParseVersion(e.Core)
		if err != nil || (c != nil && !c.Allows(v)) {
			continue
		}
		if best == nil || v.Compare(bestV) > 0 {
			best, bestV = e, v
		}
	}
	return best
}

// implemented lists the editions, each with the releases read under its core's rules.
func implemented() string {
	out := make([]string, len(editions))
	for i, e := range editions {
		var also []string
		for _, r := range coreReleases {
			if r.Rules == e.Core && r.Version != e.Core {
				also = append(also, r.Version)
			}
		}
		s := "core " + e.Core
		if len(also) > 0 {
			s += " (also read for " + strings.Join(also, ", ") + ")"
		}
		if len(e.Features) > 0 {
			s += " [" + joinFeatures(e.Features) + "]"
		}
		out[i] = s + " with " + e.Profile + " " + e.Version
	}
	return strings.Join(out, "; ")
}

func joinFeatures(fs []Feature) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	return strings.Join(s, ", ")
}
