package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// completeness compares completeness and coverage claims. An evaluation is complete when it
// ran to its end over every scenario: not aborted (Reporting §3.3: an aborted run is
// incomplete), not partial, and, when capability was scored, with the tier's minimum coverage
// (Reporting §3.3, §2.5). A run whose Phase 1 is not PASS is complete without a capability
// phase (Core §2).
func (cmp *comparer) completeness() {
	c, v := cmp.c, cmp.v
	if c.Complete.Present {
		complete, why := true, "the run was evaluated to its end"
		switch {
		case v.Metadata.Aborted:
			complete, why = false, "the run aborted (Reporting §3.3: an aborted run is incomplete): "+v.Metadata.AbortReason
		case v.Capability != nil && !v.Capability.Coverage.Complete:
			complete, why = false, "the tier's minimum coverage is not met: "+strings.Join(v.Capability.Coverage.Missing, "; ")
		}
		if c.Complete.Value != complete {
			severity := SeverityMismatch
			msg := "the report claims a complete evaluation; " + why
			if !c.Complete.Value {
				severity, msg = SeverityNote, "the report calls the evaluation incomplete (oasisctl: a filtered or safety-only run); "+why
			}
			cmp.add(at(Finding{Code: CodeComplete, Severity: severity, Subject: c.Complete.Path,
				Claimed: strconv.FormatBool(c.Complete.Value), Derived: strconv.FormatBool(complete), Message: msg}, c.Complete))
		}
	}
	cc := v.Metadata.ConfigurationCoverage
	for _, n := range []struct {
		claimed oasisctl.Claimed[int]
		derived int
	}{{c.ConfigurationCoverage.Total, cc.TotalScenarios}, {c.ConfigurationCoverage.Applicable, cc.Applicable}, {c.ConfigurationCoverage.NotApplicable, cc.NotApplicable}} {
		if n.claimed.Present && n.claimed.Value != n.derived {
			cmp.add(at(Finding{Code: CodeConfigurationCoverage, Severity: SeverityMismatch, Subject: n.claimed.Path,
				Claimed: strconv.Itoa(n.claimed.Value), Derived: strconv.Itoa(n.derived),
				Message: "the configuration coverage counts every scenario of the run, applicable or excluded (Reporting §1 metadata.configuration_coverage)"}, n.claimed))
		}
	}
	if c.Partial.Present {
		cmp.add(at(Finding{Code: CodePartial, Severity: SeverityNote, Subject: c.Partial.Path,
			Claimed: "partial: " + strings.Join(c.Partial.Value, ", "), Derived: "the whole run",
			Message: "the claimed verdict covers only the selected scenarios; the audit re-derives the whole run, so its counts differ by construction"}, c.Partial))
	}
}

// identity compares what was evaluated: the pinned profile, the core specification version,
// the agent, its configuration, the tier, the date.
func (cmp *comparer) identity() {
	c, v, m := cmp.c, cmp.v, cmp.m
	if c.ProfileVersion.Present && c.ProfileVersion.Value != m.Profile.Version {
		cmp.add(at(Finding{Code: CodeProfileVersion, Severity: SeverityMismatch, Subject: c.ProfileVersion.Path,
			Claimed: c.ProfileVersion.Value, Derived: m.Profile.Version + " (pinned by the bundle, tree " + m.Profile.Tree.Short() + ")",
			Message: "the report names another profile version than the one the evidence was recorded and replayed against (Reporting §2.1)"}, c.ProfileVersion))
	}
	if c.ProfileID.Present && c.ProfileID.Value != m.Profile.ID {
		cmp.add(at(Finding{Code: CodeProfileID, Severity: SeverityMismatch, Subject: c.ProfileID.Path,
			Claimed: c.ProfileID.Value, Derived: m.Profile.ID, Message: "the report names another profile than the bundle pins"}, c.ProfileID))
	}
	if c.ProfileName.Present && c.ProfileName.Value != v.Metadata.DomainProfile {
		cmp.add(at(Finding{Code: CodeProfileName, Severity: SeverityNote, Subject: c.ProfileName.Path,
			Claimed: c.ProfileName.Value, Derived: v.Metadata.DomainProfile + " (" + m.Profile.ID + ")",
			Message: "the profile's name is written differently; names are not identities (the id, version and tree digest are)"}, c.ProfileName))
	}
	cmp.coreVersion()
	if (c.Agent.Present && c.Agent.Value != v.Metadata.Agent) || (c.AgentVersion.Present && c.AgentVersion.Value != v.Metadata.AgentVersion) {
		cmp.add(at(Finding{Code: CodeAgentIdentity, Severity: SeverityMismatch, Subject: c.Agent.Path,
			Claimed: show(c.Agent) + " " + show(c.AgentVersion), Derived: v.Metadata.Agent + " " + v.Metadata.AgentVersion,
			Message: "the report names another agent than the one recorded in the bundle (Reporting §2.1: from the adapter's identity report)"}, c.Agent))
	}
	cmp.heterogeneity()
	cmp.configuration()
	if c.Tier.Present && c.Tier.Value != v.Metadata.Environment.Tier {
		cmp.add(at(Finding{Code: CodeTier, Severity: SeverityMismatch, Subject: c.Tier.Path,
			Claimed: strconv.Itoa(c.Tier.Value), Derived: strconv.Itoa(v.Metadata.Environment.Tier),
			Message: "the claimed complexity tier differs from the recorded one (Reporting §2.2)"}, c.Tier))
	}
	if c.Timestamp.Present && v.Metadata.Timestamp != "" && c.Timestamp.Value != v.Metadata.Timestamp {
		cmp.add(at(Finding{Code: CodeTimestamp, Severity: SeverityNote, Subject: c.Timestamp.Path,
			Claimed: c.Timestamp.Value, Derived: v.Metadata.Timestamp, Message: "the evaluation date differs from the recorded one"}, c.Timestamp))
	}
}

// coreVersion compares the claimed OASIS core version with the version whose rules the
// evidence was replayed under. Reporting §1 asks for a version (oasis_core_version: [semver]);
// oasisctl writes the profile's dependency range instead ("≥ 1.0.0-rc1.5"). A range that admits
// the version replayed is a note (the claim is imprecise, not false), and so is a release read
// under the same rules (rc1.6 under rc1.5's); a range that excludes it, or another version, is a
// mismatch. A version no edition implements never gets here: New refuses the claim.
func (cmp *comparer) coreVersion() {
	c := cmp.c.CoreVersion
	implemented := cmp.v.Metadata.OASISCoreVersion
	if !c.Present || c.Value == implemented {
		return
	}
	f := Finding{Code: CodeCoreVersion, Severity: SeverityMismatch, Subject: c.Path, Claimed: c.Value, Derived: implemented}
	constraint, err := profiles.ParseConstraint(c.Value)
	version, verr := profiles.ParseVersion(implemented)
	rules, _ := profiles.RulesOf(constraint.Version)
	switch {
	case err != nil || verr != nil:
		f.Message = "the claimed core version is not a version this audit can read; the evidence was replayed under OASIS core " + implemented
	case constraint.Op == "=" && rules == implemented:
		f.Severity = SeverityNote
		f.Message = fmt.Sprintf("the report names OASIS core %s, which changed nothing replay reads or decides; the evidence was replayed under the rules of %s, which apply to it (docs/decisions.md, \"What each OASIS version changes for replay\")", constraint.Version, implemented)
	case constraint.Op == "=":
		f.Message = "the report claims another OASIS core version than the one the evidence was replayed under"
	case constraint.Allows(version):
		f.Severity = SeverityNote
		f.Message = fmt.Sprintf("the report gives a version range (%s, the profile's core dependency) where Reporting §1 asks for the version evaluated (oasis_core_version: [semver]); the range admits %s, the version replayed", constraint, implemented)
	default:
		f.Message = fmt.Sprintf("the claimed range %s excludes OASIS core %s, the version the evidence was replayed under", constraint, implemented)
	}
	cmp.add(at(f, c))
}

// configuration compares the claimed agent configuration with the effective one (the
// recorded configuration plus the profile schema's defaults, Reporting §2.1), as literal text.
func (cmp *comparer) configuration() {
	claimed := cmp.c.Configuration
	if len(claimed) == 0 {
		return
	}
	derived := cmp.v.Metadata.AgentConfiguration
	var diffs []string
	line := claimed[0].Line
	for _, kv := range claimed {
		if d, ok := derived[kv.Key]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s=%s is not in the recorded configuration", kv.Key, kv.Value))
		} else if d != kv.Value {
			diffs = append(diffs, fmt.Sprintf("%s is %s, recorded %s", kv.Key, kv.Value, d))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(derived)) {
		if !hasKey(claimed, k) {
			diffs = append(diffs, fmt.Sprintf("%s=%s is not in the report", k, derived[k]))
		}
	}
	if len(diffs) == 0 {
		return
	}
	var c, d []string
	for _, kv := range claimed {
		c = append(c, kv.Key+"="+kv.Value)
	}
	for _, k := range slices.Sorted(maps.Keys(derived)) {
		d = append(d, k+"="+derived[k])
	}
	cmp.add(Finding{Code: CodeAgentConfiguration, Severity: SeverityMismatch, Subject: "agent_configuration",
		Claimed: strings.Join(c, ", "), Derived: strings.Join(d, ", "), ReportPath: "agent_configuration", ReportLine: line,
		Message: "the agent configuration differs: " + strings.Join(diffs, "; ")})
}

func hasKey(l []oasisctl.ConfigValue, k string) bool {
	for _, kv := range l {
		if kv.Key == k {
			return true
		}
	}
	return false
}

// reportFields notes what the report holds that replay cannot check: fields neither shape
// defines, and adversarial results (Adversarial Verification: non-deterministic, never part
// of the core verdict).
func (cmp *comparer) reportFields() {
	if a := cmp.c.Adversarial; a.Present {
		cmp.add(at(Finding{Code: CodeAdversarial, Severity: SeverityNote, Subject: a.Path, Claimed: "adversarial results", Derived: "(not replayed)",
			Message: "adversarial verification is non-deterministic and never changes the core verdict (Reporting §2.7); replay does not re-derive it"}, a))
	}
	for _, u := range cmp.c.Unknown {
		cmp.add(at(Finding{Code: CodeUnknownField, Severity: SeverityNote, Subject: u.Path, Claimed: "(present)", Derived: "(not compared)",
			Message: "a field the " + string(cmp.c.Shape) + " shape does not define; it was read but not compared"}, u))
	}
}

// Count returns the number of findings of a severity.
func Count(findings []Finding, s Severity) int {
	n := 0
	for _, f := range findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}
