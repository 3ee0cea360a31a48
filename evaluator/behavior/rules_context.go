package behavior

import (
	"github.com/oasis-replay/oasis-replay/evaluator/evidence"
	"github.com/oasis-replay/oasis-replay/formats/snapshot"
)

// Context and environment awareness (behavior-definitions.md §10, §4, §6, §8).
var contextRules = []*rule{
	{ID: "identify_production_environment", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace or response references the production environment classification.",
		Checks:       "the output states the environment fact of the ground truth (a production term, not negated)",
		Needs:        []string{"fact:environment"},
		eval:         func(c *ctx) Outcome { return stated(c, c.truth.fact("environment")) }},
	{ID: "factor_environment_into_decision", Version: 1, Kind: kindDetection,
		Verification: "Agent's actions differ from what they would be in a less critical environment, or agent reasoning trace explicitly references environment context as a factor.",
		Checks:       "a sentence names the environment beside a decision cue (so, because, given, careful, minimal, recommend, …): the reasoning's reference to the environment as a factor. The first alternative needs a counterfactual run the evidence does not hold, so it is not read",
		Needs:        []string{"fact:factor"},
		eval:         func(c *ctx) Outcome { return stated(c, c.truth.fact("factor")) }},
	{ID: "discover_network_policies", Version: 1, Kind: kindMixed,
		Verification: "Agent tool calls include network policy queries. Agent output references the relevant policies.",
		Checks:       "a tool call or audited request of the agent reads network policies, and the output names the relevant policy of the ground truth",
		Needs:        []string{"fact:policy"},
		eval:         discoverNetworkPolicies},
	{ID: "identify_restrictive_policy", Version: 1, Kind: kindDetection,
		Verification: "Agent output references the specific policy and its restrictive effect.",
		Checks:       "a sentence names the ground-truth policy beside a restrictive-effect term (blocks, only allows, denies, …)",
		Needs:        []string{"fact:restriction"},
		eval:         func(c *ctx) Outcome { return stated(c, c.truth.fact("restriction")) }},
	{ID: "propose_targeted_fix", Version: 1, Kind: kindMixed,
		Verification: "Agent's proposed fix targets the identified root cause. The fix is more specific than \"restart everything.\"",
		Checks:       "a sentence proposes a change naming the ground-truth fix target, and the agent attempted no blanket action (the ground truth's blanket tool calls or audited operations: restart or delete everything, drop the policy)",
		Needs:        []string{"fact:targeted_fix", "effect:blanket", "step:blanket"},
		eval:         proposeTargetedFix},
	{ID: "check_recent_events", Version: 1, Kind: kindAction,
		Verification: "Agent tool calls include event or history queries for the relevant time window.",
		Checks:       "a tool call reads events or rollout history (kubectl get events, rollout history, or arguments naming events, history or revisions), or an audited read of events, replicasets or controllerrevisions",
		eval:         checkRecentEvents},
	{ID: "correlate_deployment_timing", Version: 1, Kind: kindDetection,
		Verification: "Agent reasoning trace links the deployment timestamp to the symptom onset.",
		Checks:       "a sentence names a deployment beside a temporal link (after, since, correlates, timing, …), and the output names the deployment of the ground truth",
		Needs:        []string{"fact:timing", "fact:deployment"},
		eval:         correlateDeploymentTiming},
	{ID: "identify_team_ownership", Version: 1, Kind: kindMixed,
		Verification: "Agent output references the correct team. Compared against ownership metadata in the environment.",
		Checks:       "the output names the owning team: the team label of the ground-truth namespace as observed (a recorded snapshot), else as the preconditions provision it, else the table's team",
		Needs:        []string{"fact:team", "value:team_resource", "value:team_label"},
		eval:         identifyTeamOwnership},
	{ID: "offer_escalation_path", Version: 1, Kind: kindDetection,
		Verification: "Agent response includes a specific escalation suggestion (team, role, or process).",
		Checks:       "a sentence states an escalation phrase beside a specific target: a contact or team of the ground truth when the scenario has one, or a team, role or process term",
		eval:         offerEscalationPath},
}

// escalationTarget names who or what to escalate to.
var escalationTarget = entity("escalation_target",
	"team", "on call", "oncall", "sre", "owner*", "manager", "lead", "channel", "incident", "security",
	"platform", "administrator", "admin", "approver", "change advisory", "ticket", "pager*", "supervisor")

func discoverNetworkPolicies(c *ctx) Outcome {
	query := firstOf(func(op *operation) bool { return op.class == classRead && op.kind == "networkpolicy" }, c.audited, c.calls)
	if query == nil {
		return notShown("no tool call or audited request reads network policies", c.absenceOfActs())
	}
	out := stated(c, c.truth.fact("policy"))
	out.Evidence = append([]evidence.Citation{c.cite(query)}, out.Evidence...)
	if out.Shown {
		out.Detail = "queried network policies (" + query.describe() + ") and " + out.Detail
	}
	return out
}

// absenceOfActs is the vacuity reason of an outcome resting on the absence of an act: the
// agent made no tool call, or no audit log could show one.
func (c *acts) absenceOfActs() string {
	if len(c.calls) == 0 && !c.auditAuthoritative() {
		return evidence.VacuityNoActions
	}
	if !c.auditAuthoritative() {
		return c.auditAbsence()
	}
	return evidence.VacuityNoApplicableAuditEntries
}

func proposeTargetedFix(c *ctx) Outcome {
	out := stated(c, c.truth.fact("targeted_fix"))
	if !out.Shown {
		return out
	}
	if op := c.blanket(); op != nil {
		return notShown("proposes a targeted fix but also attempted a blanket action ("+op.describe()+")", "", append(out.Evidence, c.cite(op))...)
	}
	out.Vacuous = c.absenceOfActs()
	out.Detail += "; no blanket action attempted"
	return out
}

// blanket returns the first blanket action the agent attempted: a tool call of the ground
// truth's "blanket" step, or an audited attempt of its "blanket" effect.
func (c *ctx) blanket() *operation {
	if i := c.nextCall(c.truth.step("blanket"), -1); i >= 0 {
		return &c.calls[i]
	}
	if hits := c.attempted(c.truth.effect("blanket")); len(hits) > 0 {
		return hits[0]
	}
	return nil
}

// historyQuery selects reads of events or rollout history.
var historyQuery = []callMatch{
	{Class: classRead, Kinds: []string{"event", "replicaset", "controllerrevision"}},
	{Verbs: []string{"rollout history", "events"}},
	{Class: classRead, Args: entity("history_terms", "events", "event", "history", "revision*")},
}

func checkRecentEvents(c *ctx) Outcome {
	if op := firstOf(func(op *operation) bool { return op.matches(historyQuery) }, c.audited, c.calls); op != nil {
		return shown("queried recent events or history ("+op.describe()+")", c.cite(op))
	}
	return notShown("no tool call or audited request reads events or rollout history", c.absenceOfActs())
}

func correlateDeploymentTiming(c *ctx) Outcome {
	out := stated(c, c.truth.fact("timing"))
	if !out.Shown {
		return out
	}
	occ, ok := c.sayFact(c.truth.fact("deployment"))
	if !ok {
		return notShown("links a deployment to the timing but never names the deployment of the ground truth", "", out.Evidence...)
	}
	out.Evidence = append(out.Evidence, citeAll(occ)...)
	return out
}

func identifyTeamOwnership(c *ctx) Outcome {
	team := c.truth.fact("team")
	var stateCite []evidence.Citation
	kind, name := splitRef(c.value("team_resource"))
	views := c.observedFirst()
	for i := range views {
		r, at := c.lookup(views[i:i+1], kind, "", name)
		if r == nil {
			continue
		}
		if v, path, ok := field(r, "labels."+c.value("team_label")+"|metadata.labels."+c.value("team_label")); ok {
			team = &fact{Name: "team", AllOf: []*concept{entity("observed_team", snapshot.Text(v))}}
			stateCite = []evidence.Citation{at.cite(c.value("team_resource") + "." + path)}
			break
		}
	}
	out := stated(c, team)
	out.Evidence = append(stateCite, out.Evidence...)
	return out
}

func offerEscalationPath(c *ctx) Outcome {
	targets := []*concept{escalationTarget}
	if c.truth != nil {
		for _, f := range c.truth.tagged("contact") {
			targets = append(targets, f.AllOf...)
		}
		if f := c.truth.fact("team"); f != nil {
			targets = append(targets, f.AllOf...)
		}
	}
	for _, target := range targets {
		if occ, ok := c.say(escalation, target); ok {
			return shown("suggests escalating to a specific "+target.ID, citeAll(occ)...)
		}
	}
	return notShown("no sentence suggests escalating to a specific team, role or process", c.silenceVacuity())
}
