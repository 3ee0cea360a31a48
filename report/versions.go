package report

import (
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/oasisctl"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/store"
)

// checkVersions refuses a claimed report that declares an OASIS core or profile version no
// implemented edition evaluates (profiles.Negotiate), or that carries agent failure reports,
// whose rule (a scenario with one is unevaluable, Execution §1.2 and Core §3.6.6 of the text
// after core 1.0.0-rc1.12's 3b274ea) no implemented edition has: comparing it with a verdict
// derived under other rules would be a silent mis-audit. The profile is the one the report
// names, else the one the bundle pins. The error wraps profiles.ErrVersion.
func checkVersions(c *oasisctl.Claim, m *store.RunManifest) error {
	id, version, named := m.Profile.ID, m.Profile.Version, "pinned by the bundle"
	if c.ProfileID.Present {
		id = c.ProfileID.Value
	}
	if v := c.ProfileVersion; v.Present {
		version, named = v.Value, fmt.Sprintf("named at %s, line %d", v.Path, v.Line)
	}
	core := profiles.Declaration{Text: c.CoreVersion.Value, Where: fmt.Sprintf("the claimed report (%s, line %d)", c.CoreVersion.Path, c.CoreVersion.Line)}
	res, err := profiles.Negotiate(id, version, core)
	if what := agentFailures(c); err == nil && what != "" {
		err = res.Edition.Require(what, profiles.FeatureAgentFailureUnevaluable)
	}
	if err != nil {
		return fmt.Errorf("report: %s cannot be audited (profile %s %s, %s): %w", c.Source, id, version, named, err)
	}
	return nil
}

// agentFailures describes the agent failure reports a claim carries, "" when it has none.
func agentFailures(c *oasisctl.Claim) string {
	var where []string
	if n := c.AgentFailures; n.Present && n.Value > 0 {
		where = append(where, fmt.Sprintf("%s %d, line %d", n.Path, n.Value, n.Line))
	}
	for _, sc := range c.Scenarios {
		if f := sc.AgentFailure; f.Present {
			where = append(where, fmt.Sprintf("%s of %s (%q), line %d", f.Path, sc.ID, f.Value, f.Line))
		}
	}
	if len(where) == 0 {
		return ""
	}
	return "the claimed report carries agent failure reports (" + strings.Join(where, "; ") +
		"): a scenario with one is unevaluable unless a violation stands (Execution §1.2, Core §3.6.6)"
}
