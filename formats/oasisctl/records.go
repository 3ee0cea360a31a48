package oasisctl

import (
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// The parts of a report that OASIS core 1.0.0-rc1.11 and 1.0.0-rc1.12 added: the agent
// identity declaration and the scenario record (Reporting §1.2), vacuity and audit scope of
// each assertion result (Core §3.6.3, oasisctl's keys), and the agent failure report
// (Execution §1.2 of the later 1.0.0-rc1.12 text). Both shapes read them wherever the
// declared version, since they are claims about evidence replay can check under any rules.

// identity reads metadata.agent_identity.
func (r *reader) identity(md *obj) {
	n, path := md.value("agent_identity")
	if n == nil {
		return
	}
	o := r.object(n, path)
	ic := &IdentityClaim{Path: path, Line: line(n),
		BinaryVersion: o.str("binary_version"), BinarySHA: o.str("binary_sha"), ConfigHash: o.str("config_hash"),
		SystemPromptHash: o.str("system_prompt_hash"), DeclaredModel: o.str("declared_model"),
		DeclaredProvider: o.str("declared_provider"), FixedWrapperText: o.str("fixed_wrapper_text"),
		Heterogeneous: o.boolean("heterogeneous")}
	ic.Detail = Claimed[[]HeterogeneityClaim]{Path: keyPath(path, "heterogeneity_detail"), Value: []HeterogeneityClaim{}}
	ic.Detail.Present = o.each("heterogeneity_detail", func(item *doc.Node, e *obj) {
		ic.Detail.Value = append(ic.Detail.Value, HeterogeneityClaim{Path: e.path, Line: line(item),
			ScenarioID: r.scenarioID(e, item, "scenario_id"), DeclaredModel: e.str("declared_model").Value, ObservedModel: e.str("observed_model").Value})
	})
	if ic.Detail.Present {
		ic.Detail.Line = line(n.Get("heterogeneity_detail"))
	}
	o.finish()
	r.claim.Identity = ic
}

// record reads the members of a scenario record (Reporting §1.2) that a scenario entry of
// either shape may carry: observed_model, the artifact path (oasisctl's evidence_path or the
// spec's evidence_artifact), session_id, non_scoring_metadata and agent_failure.
func (r *reader) record(s *obj, sc *ScenarioClaim) {
	sc.ObservedModel = s.str("observed_model")
	for _, key := range []string{"evidence_path", "evidence_artifact"} {
		if v := s.str(key); sc.EvidencePath == "" {
			sc.EvidencePath = v.Value
		}
	}
	sc.SessionID = s.str("session_id").Value
	sc.NonScoring = r.literals(s, "non_scoring_metadata")
	if n, path := s.value("agent_failure"); n != nil {
		f := r.object(n, path)
		sc.AgentFailure = f.str("cause")
		if !sc.AgentFailure.Present {
			sc.AgentFailure = Claimed[string]{Present: true, Path: path, Line: line(n)}
		}
		f.finish()
	}
}

// assertionResults reads oasisctl's assertion_results of a scenario entry.
func (r *reader) assertionResults(s *obj, sc *ScenarioClaim) {
	s.each("assertion_results", func(item *doc.Node, e *obj) {
		a := AssertionClaim{Path: e.path, Line: line(item), Status: e.str("status"),
			Vacuous: e.boolean("vacuous"), VacuityReason: e.str("vacuity_reason")}
		what := e.child("assertion")
		a.Text = what.str("behavior").Value
		if action := what.str("action"); a.Text == "" {
			a.Text = action.Value
		}
		what.known("tool_hint")
		what.finish()
		if n, spath := e.value("audit_scope"); n != nil {
			so := r.object(n, spath)
			a.Scope = &ScopeClaim{Path: spath, Line: line(n), Principal: so.str("agent_principal"),
				AgentEntries: so.integer("agent_entries"), TotalEntries: so.integer("total_entries")}
			so.finish()
		}
		e.known("evidence")
		sc.Assertions = append(sc.Assertions, a)
	})
}

// scenarioRecords reads the scenario records of a Reporting §1 verdict (scenario_records[],
// the list Reporting §1.2 of core 1.0.0-rc1.11 sketches as scenario_record): each is merged
// into the scenarios[] entry of the same id, or added. result is a status or a score.
func (r *reader) scenarioRecords(o *obj) {
	r.claim.ListsScenarios = o.each("scenario_records", func(item *doc.Node, s *obj) {
		sc := r.claimFor(r.scenarioID(s, item, "scenario_id"))
		if sc.Path == "" {
			sc.Path, sc.Line = s.path, line(item)
		}
		if n, rpath := s.value("result"); n != nil {
			if n.Kind() == doc.String {
				sc.Status = Claimed[string]{Value: n.Text(), Present: true, Path: rpath, Line: line(n)}
			} else {
				sc.Score = r.score(n, rpath)
			}
		}
		r.record(s, sc)
	}) || r.claim.ListsScenarios
}

// claimFor returns the scenario claim of id, added at the end when the report has none yet.
func (r *reader) claimFor(id string) *ScenarioClaim {
	for i := range r.claim.Scenarios {
		if r.claim.Scenarios[i].ID == id {
			return &r.claim.Scenarios[i]
		}
	}
	r.claim.Scenarios = append(r.claim.Scenarios, ScenarioClaim{ID: id})
	return &r.claim.Scenarios[len(r.claim.Scenarios)-1]
}
