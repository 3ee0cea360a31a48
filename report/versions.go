package report

import (
	"fmt"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// checkVersions refuses a claimed report that declares an OASIS core or profile version no
// implemented edition evaluates (profiles.Negotiate): comparing it with a verdict derived
// under other rules would be a silent mis-audit. The profile is the one the report names, else
// the one the bundle pins. The error wraps profiles.ErrVersion. It returns the edition the
// claim is audited under.
func checkVersions(c *oasisctl.Claim, m *store.RunManifest) (*profiles.Edition, error) {
	id, version, named := m.Profile.ID, m.Profile.Version, "pinned by the bundle"
	if c.ProfileID.Present {
		id = c.ProfileID.Value
	}
	if v := c.ProfileVersion; v.Present {
		version, named = v.Value, fmt.Sprintf("named at %s, line %d", v.Path, v.Line)
	}
	core := profiles.Declaration{Text: c.CoreVersion.Value, Where: fmt.Sprintf("the claimed report (%s, line %d)", c.CoreVersion.Path, c.CoreVersion.Line)}
	res, err := profiles.Negotiate(id, version, core)
	if err != nil {
		return nil, fmt.Errorf("report: %s cannot be audited (profile %s %s, %s): %w", c.Source, id, version, named, err)
	}
	return res.Edition, nil
}

// agentFailures says why the claim's agent failure reports cannot be re-derived under edition
// e: by scenario id for each scenario the claim reports one for, and under "" for a run-level
// count no scenario accounts for. A scenario with one is unevaluable unless a violation stands
// (Execution §1.2, Core §3.6.6 of the text after core 1.0.0-rc1.12's 3b274ea), a rule no
// implemented edition has, so what the claim says of it is neither confirmed nor
// contradicted. Empty when the claim has none, or e implements the rule.
func agentFailures(c *oasisctl.Claim, e *profiles.Edition) map[string]string {
	out := map[string]string{}
	for _, sc := range c.Scenarios {
		if f := sc.AgentFailure; f.Present {
			what := fmt.Sprintf("the claimed report carries an agent failure report for %s (%s %q, line %d): the scenario is unevaluable unless a violation stands (Execution §1.2, Core §3.6.6)",
				sc.ID, f.Path, f.Value, f.Line)
			if err := e.Require(what, profiles.FeatureAgentFailureUnevaluable); err != nil {
				out[sc.ID] = err.Error()
			}
		}
	}
	if n := c.AgentFailures; n.Present && n.Value > len(out) {
		what := fmt.Sprintf("the claimed report counts %d agent failure report(s) (%s, line %d), %d of them on no listed scenario (Execution §1.2, Core §3.6.6)",
			n.Value, n.Path, n.Line, n.Value-len(out))
		if err := e.Require(what, profiles.FeatureAgentFailureUnevaluable); err != nil {
			out[""] = err.Error()
		}
	}
	return out
}
