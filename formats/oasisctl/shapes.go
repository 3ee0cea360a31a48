package oasisctl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// verdict reads the verdict object of OASIS Reporting §1 (the spec's field names), and the
// extensions oasis-replay's own verdicts add (evaluator/doc.go), so that a published
// oasis-replay verdict audits as cleanly as a spec-shaped one.
func (r *reader) verdict(o *obj) {
	c := r.claim
	c.Safety = o.str("safety")
	c.Overall = o.str("overall")
	phases := o.child("phases")
	c.PhaseSafety, c.PhaseCapability = phases.str("safety"), phases.str("capability")
	phases.finish()
	partial := o.child("partial")
	c.Partial = partial.strs("selected")
	partial.finish()
	r.safetyDetails(o.child("safety_details"))
	if capNode, path := o.value("capability"); capNode != nil {
		r.specCapability(r.object(capNode, path))
	}
	r.specMetadata(o.child("metadata"))
	if adv, path := o.value("adversarial_verification"); adv != nil {
		c.Adversarial = Claimed[bool]{Value: true, Present: true, Path: path, Line: line(adv)}
	}
	r.verdictScenarios(o)
	r.scenarioRecords(o)
	// kind and schema_version are the store header of an oasis-replay verdict; findings are
	// the recorder's, reported as recorded.
	o.known("kind", "schema_version", "findings")
	o.finish()
}

func (r *reader) safetyDetails(d *obj) {
	c := r.claim
	c.Counts = Counts{
		Total: d.integer("total_scenarios"), Applicable: d.integer("applicable"), NotApplicable: d.integer("not_applicable"),
		Passed: d.integer("passed"), Failed: d.integer("failed"), ProviderFailure: d.integer("provider_failure"),
		ToleranceAdjusted: d.integer("tolerance_adjusted"), NotRun: d.integer("not_run"),
	}
	c.Failures = r.idList(d, "failures", "id")
	c.ProviderFailures = r.idList(d, "provider_failures", "id")
	c.HumanReview = r.idList(d, "human_review", "scenario_id")
	cats, path := d.members("category_results")
	for _, m := range cats {
		g := r.object(m.Value, keyPath(path, m.Key))
		c.Categories = append(c.Categories, CategoryClaim{Name: m.Key, Status: g.str("status")})
		g.known("total", "applicable", "not_applicable", "passed", "failed", "provider_failure", "not_run")
		g.finish()
	}
	subs, path := d.members("subcategory_results")
	for _, cm := range subs {
		catPath := keyPath(path, cm.Key)
		for _, sm := range r.membersOf(cm.Value) {
			r.subcategory(cm.Key, sm.Key, sm.Value, keyPath(catPath, sm.Key))
		}
	}
	d.known("not_applicable_scenarios")
	d.finish()
}

func (r *reader) subcategory(category, name string, n *doc.Node, path string) {
	g := r.object(n, path)
	r.claim.Subcategories = append(r.claim.Subcategories, SubcategoryClaim{
		Category: category, Name: name, Path: path, Line: line(n),
		Total: g.integer("total"), Passed: g.integer("passed"), Failed: g.integer("failed"), ProviderFailure: g.integer("provider_failure"),
	})
	g.known("status", "applicable", "not_applicable", "not_run")
	g.finish()
}

// idList reads a list of objects and returns the string member key of each, e.g. the ids of
// safety_details.failures.
func (r *reader) idList(o *obj, key, idKey string) Claimed[[]string] {
	list, path := o.list(key)
	c := Claimed[[]string]{Path: path, Value: []string{}}
	if list == nil {
		return c
	}
	c.Present, c.Line = true, line(list)
	for i, item := range list.Items() {
		e := r.object(item, indexPath(path, i))
		id := e.str(idKey)
		if id.Present {
			c.Value = append(c.Value, id.Value)
		}
		e.known("description", "cause", "tolerance", "measured_deviation", "result")
		e.finish()
	}
	return c
}

func (r *reader) specCapability(o *obj) {
	cc := &CapabilityClaim{Path: o.path, Tier: o.integer("tier")}
	if o.n != nil {
		cc.Line = line(o.n)
	}
	cov := o.child("coverage")
	cc.Required, cc.Evaluated, cc.Complete = cov.integer("required_archetypes"), cov.integer("evaluated_archetypes"), cov.boolean("complete")
	cov.known("missing")
	cov.finish()
	cc.Categories = r.scores(o, "domain_categories")
	cc.Dimensions = r.scores(o, "core_dimensions")
	cc.Archetypes = r.scores(o, "archetypes")
	o.known("statement")
	o.finish()
	r.claim.Capability = cc
}

func (r *reader) specMetadata(o *obj) {
	c := r.claim
	c.Agent, c.AgentVersion = o.str("agent"), o.str("agent_version")
	r.configuration(o, "agent_configuration")
	c.ProfileName, c.ProfileID, c.ProfileVersion = o.str("domain_profile"), o.str("domain_profile_id"), o.str("domain_profile_version")
	c.CoreVersion, c.Timestamp = o.str("oasis_core_version"), o.str("timestamp")
	env := o.child("environment")
	c.Tier = env.integer("tier")
	env.known("provider", "provider_version", "tier_evidence", "conformance_check")
	env.finish()
	cov := o.child("configuration_coverage")
	c.ConfigurationCoverage = CoverageCounts{Total: cov.integer("total_scenarios"), Applicable: cov.integer("applicable"), NotApplicable: cov.integer("not_applicable"),
		Warnings: cov.strs("warnings")}
	cov.known("not_applicable_by_category", "warnings")
	cov.finish()
	c.Aborted, c.AbortReason = o.boolean("aborted"), o.str("abort_reason")
	r.identity(o)
	c.AgentFailures = o.integer("agent_failure_count")
	o.known("evaluator", "scenario_count", "duration", "profile_tree", "bundle")
	o.finish()
}

// verdictScenarios reads the scenarios[] extension of an oasis-replay verdict: a scenario
// without a status claims its state (not_run, not_applicable, not_selected).
func (r *reader) verdictScenarios(o *obj) {
	r.claim.ListsScenarios = o.each("scenarios", func(item *doc.Node, s *obj) {
		sc := ScenarioClaim{ID: r.scenarioID(s, item, "id"), Path: s.path, Line: line(item), Status: s.str("status")}
		if state := s.str("state"); !sc.Status.Present && state.Present && state.Value != "evaluated" {
			sc.Status = state
		}
		sc.Score = s.child("score").score("value")
		sc.Reason = s.str("reason").Value
		s.known("classification", "category", "subcategory", "archetype", "provider_failure_evidence", "tolerance",
			"measured_deviation", "assertions", "verification", "observations", "findings")
		r.claim.Scenarios = append(r.claim.Scenarios, sc)
	}) || r.claim.ListsScenarios
}

// oasisctl reads the report of the reference runner oasisctl: metadata, environment,
// agent_configuration, configuration_coverage, safety_summary (category results as booleans,
// subcategory results keyed by subcategory only), capability_summary and scenario_details.
func (r *reader) oasisctl(o *obj) {
	c := r.claim
	md := o.child("metadata")
	c.Agent, c.AgentVersion = md.str("agent_name"), md.str("agent_version")
	c.Timestamp, c.CoreVersion = md.str("date"), md.str("oasis_core_spec")
	c.ProfileName, c.ProfileVersion = md.str("profile_name"), md.str("profile_version")
	mode := md.child("evaluation_mode")
	c.Complete = mode.boolean("complete")
	mode.known("safety_only", "categories", "subcategories")
	mode.finish()
	c.Aborted, c.AbortReason = md.boolean("aborted"), md.str("abort_reason")
	c.Evaluator, c.ProviderInfo = md.str("evaluator"), md.str("provider_info")
	r.identity(md)
	c.AgentFailures = md.integer("agent_failure_count")
	md.known("evaluation_note", "duration")
	md.finish()

	env := o.child("environment")
	c.Tier = env.integer("tier_claimed")
	c.TierEvidence = env.str("evidence")
	env.finish()
	r.configuration(o, "agent_configuration")
	cov := o.child("configuration_coverage")
	c.ConfigurationCoverage = CoverageCounts{Total: cov.integer("total_scenarios"), Applicable: cov.integer("applicable"), NotApplicable: cov.integer("not_applicable"),
		Warnings: cov.strs("warnings")}
	cov.known("not_applicable_by_category", "warnings")
	cov.finish()

	r.safetySummary(o.child("safety_summary"))
	if capNode, path := o.value("capability_summary"); capNode != nil {
		r.capabilitySummary(r.object(capNode, path))
	}
	r.scenarioDetails(o)
	o.known("coverage_matrix", "adversarial_verification")
	o.finish()
}

func (r *reader) safetySummary(s *obj) {
	c := r.claim
	c.Safety, c.SafetyPassed = s.str("safety"), s.boolean("passed")
	c.Counts = Counts{Applicable: s.integer("applicable"), NotApplicable: s.integer("not_applicable"),
		Passed: s.integer("passed_count"), Failed: s.integer("failed"), ProviderFailure: s.integer("provider_failures")}
	// oasisctl omits empty lists: an absent list claims none.
	c.Failures, c.ProviderFailures = s.strs("failure_ids"), s.strs("provider_failure_ids")
	c.Failures.Present, c.ProviderFailures.Present = true, true
	c.HumanReviewNeeded = s.boolean("human_review_needed")
	cats, path := s.members("category_results")
	for _, m := range cats {
		c.Categories = append(c.Categories, CategoryClaim{Name: m.Key, Passed: r.boolOf(m.Value, keyPath(path, m.Key))})
	}
	subs, path := s.members("subcategory_results")
	for _, m := range subs {
		r.subcategory("", m.Key, m.Value, keyPath(path, m.Key))
	}
	c.Uncategorized = s.strs("uncategorized_scenario_ids")
	s.known("tolerance_flags")
	s.finish()
}

func (r *reader) boolOf(n *doc.Node, path string) Claimed[bool] {
	c := Claimed[bool]{Path: path, Line: line(n)}
	switch n.Kind() {
	case doc.Null:
	case doc.Bool:
		c.Value, c.Present = n.Text() == "true", true
	default:
		r.fail(n, "a boolean")
	}
	return c
}

func (r *reader) capabilitySummary(o *obj) {
	cc := &CapabilityClaim{Path: o.path}
	if o.n != nil {
		cc.Line = line(o.n)
	}
	// Earlier oasisctl versions wrote category_scores and dimension_scores.
	cc.Categories = append(r.scores(o, "domain_categories"), r.scores(o, "category_scores")...)
	cc.Dimensions = append(r.scores(o, "core_dimensions"), r.scores(o, "dimension_scores")...)
	cc.Archetypes = r.scores(o, "archetype_scores")
	label := o.str("tier_label")
	if n, err := strconv.Atoi(strings.TrimPrefix(label.Value, "Tier ")); label.Present && err == nil {
		cc.Tier = Claimed[int]{Value: n, Present: true, Path: label.Path, Line: label.Line}
	}
	o.known("disclaimer")
	o.finish()
	r.claim.Capability = cc
}

func (r *reader) scenarioDetails(o *obj) {
	r.claim.ListsScenarios = o.each("scenario_details", func(item *doc.Node, s *obj) {
		sc := ScenarioClaim{ID: r.scenarioID(s, item, "scenario_id"), Path: s.path, Line: line(item), Status: s.str("status"), Score: s.score("score")}
		sc.Errors, sc.Evidence = s.strs("errors").Value, s.strs("evidence").Value
		sc.Band = s.str("band").Value
		r.record(s, &sc)
		r.assertionResults(s, &sc)
		s.known("category", "subcategory", "archetype", "passed", "tolerance_flag", "result", "unassessable")
		r.claim.Scenarios = append(r.claim.Scenarios, sc)
	}) || r.claim.ListsScenarios
}

// scenarioID reads the id of a scenario entry, which every entry must have: a result that
// names no scenario cannot be compared with anything.
func (r *reader) scenarioID(s *obj, item *doc.Node, key string) string {
	id := s.str(key)
	if (!id.Present || id.Value == "") && r.err == nil {
		r.err = fmt.Errorf("%w: %w", ErrMalformed, item.Errorf("the scenario entry has no %s", key))
	}
	return id.Value
}
