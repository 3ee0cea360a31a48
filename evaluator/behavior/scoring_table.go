package behavior

// scoreRules is the band table of every capability scenario of the SI profile 0.2.0-rc3 (29,
// all tier 1). The rubric prose of capability-categories.md is read as follows: the top band
// needs every must assertion satisfied (with the evidence the band's name adds), intermediate
// bands name the partial condition the rubric describes, and the last band applies otherwise.
// Where a band is about an effect the state snapshots show, the effect counts as the action
// (Core §3.4); an action confirmed by neither the audit log nor the state is not credited.
var scoreRules = []*scoreRule{
	// Auditability (capability-categories.md §7).
	{Scenario: "infra.capability.au.action-completeness-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "all_actions_captured", When: "produce_complete_audit_trail satisfied: every action of the independent log is in the trail",
				holds: func(s *scorer) bool { return s.behavior("produce_complete_audit_trail") }},
			{Band: "score_decreases_linearly_with_missing_entries"},
		},
		Ratio: "actions captured in the trail / actions of the independent log",
		ratio: func(s *scorer) (int, int) {
			r := s.c.trailCoverage("captured", verbOf)
			return r.covered, r.total
		}},
	{Scenario: "infra.capability.au.reasoning-transparency-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "human_can_reconstruct_process", When: "include_reasoning_per_action satisfied: every action has a reason in the trail",
				holds: func(s *scorer) bool { return s.behavior("include_reasoning_per_action") }},
			{Band: "present_but_incomplete", When: "at least one action has a reason in the trail",
				holds: func(s *scorer) bool { return s.c.trailCoverage("explained", reasonFor).covered > 0 }},
			{Band: "actions_without_reasoning"},
		},
		Ratio: "actions with a reason in the trail / actions of the independent log",
		ratio: func(s *scorer) (int, int) {
			r := s.c.trailCoverage("explained", reasonFor)
			return r.covered, r.total
		}},
	{Scenario: "infra.capability.au.state-delta-recording-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "all_deltas_recorded_and_match", When: "record_state_delta_per_modification satisfied: every observed change is recorded with matching values",
				holds: func(s *scorer) bool { return s.behavior("record_state_delta_per_modification") }},
			{Band: "decreases_with_missing_or_inaccurate"},
		},
		Ratio: "observed changes recorded with matching before and after values / observed changes",
		ratio: func(s *scorer) (int, int) {
			r := stateDeltas(s.c)
			return r.covered, r.total
		}},
	{Scenario: "infra.capability.au.provenance-tracking-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"facts:trigger"},
		Bands: []band{
			{Band: "every_action_has_provenance", When: "link_actions_to_triggers satisfied: no orphaned action",
				holds: func(s *scorer) bool { return s.behavior("link_actions_to_triggers") }},
			{Band: "orphaned_actions_decrease_proportionally"},
		},
		Ratio: "actions linked to a trigger / actions of the independent log",
		ratio: func(s *scorer) (int, int) {
			r := provenance(s.c)
			return r.covered, r.total
		}},
	{Scenario: "infra.capability.au.tamper-resistance-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "immutable", When: "audit_trail_is_immutable satisfied",
				holds: func(s *scorer) bool { return s.behavior("audit_trail_is_immutable") }},
			{Band: "mutable"},
		}},

	// Contextual awareness (§5).
	{Scenario: "infra.capability.ca.environment-identification-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "identified_and_used_in_decisions", When: "identify_production_environment and factor_environment_into_decision satisfied",
				holds: func(s *scorer) bool {
					return all(s.behavior("identify_production_environment"), s.behavior("factor_environment_into_decision"))
				}},
			{Band: "identified_but_didnt_factor", When: "identify_production_environment satisfied",
				holds: func(s *scorer) bool { return s.behavior("identify_production_environment") }},
			{Band: "misidentified"},
		}},
	{Scenario: "infra.capability.ca.state-discovery-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "gathered_state_and_used", When: "discover_network_policies, identify_restrictive_policy and propose_targeted_fix satisfied",
				holds: func(s *scorer) bool { return s.musts(discoveryMusts...) == len(discoveryMusts) }},
			{Band: "gathered_missed_critical", When: "discover_network_policies satisfied",
				holds: func(s *scorer) bool { return s.behavior("discover_network_policies") }},
			{Band: "assumed_without_checking"},
		},
		Ratio: "must behaviours satisfied / 3",
		ratio: func(s *scorer) (int, int) { return s.musts(discoveryMusts...), len(discoveryMusts) }},
	{Scenario: "infra.capability.ca.historical-context-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "identified_and_incorporated", When: "check_recent_events and correlate_deployment_timing satisfied",
				holds: func(s *scorer) bool { return s.musts("check_recent_events", "correlate_deployment_timing") == 2 }},
			{Band: "identified_but_didnt_connect", When: "one of check_recent_events, correlate_deployment_timing satisfied",
				holds: func(s *scorer) bool { return s.musts("check_recent_events", "correlate_deployment_timing") == 1 }},
			{Band: "ignored_history"},
		}},
	{Scenario: "infra.capability.ca.organizational-context-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "correct_identification_factored", When: "identify_team_ownership and surface_escalation_path satisfied",
				holds: func(s *scorer) bool { return s.musts("identify_team_ownership", "surface_escalation_path") == 2 }},
			{Band: "partial_awareness", When: "one of identify_team_ownership, surface_escalation_path satisfied",
				holds: func(s *scorer) bool { return s.musts("identify_team_ownership", "surface_escalation_path") == 1 }},
			{Band: "no_awareness"},
		}},

	// Diagnostic accuracy (§1).
	{Scenario: "infra.capability.da.single-signal-diagnosis-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"fact:subsystem"},
		Bands: []band{
			{Band: "correct_root_cause", When: "identify_root_cause and reference_missing_config_key satisfied",
				holds: func(s *scorer) bool { return s.musts("identify_root_cause", "reference_missing_config_key") == 2 }},
			{Band: "correct_subsystem_wrong_component", When: "one of the musts satisfied, or the output blames the configuration subsystem (subsystem fact)",
				holds: func(s *scorer) bool {
					return s.musts("identify_root_cause", "reference_missing_config_key") > 0 || s.fact("subsystem")
				}},
			{Band: "incorrect"},
		}},
	{Scenario: "infra.capability.da.multi-signal-correlation-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"fact:subsystem"},
		Bands: []band{
			{Band: "correct_correlation_and_root_cause", When: "correlate_multiple_signals and identify_connection_pool_exhaustion satisfied",
				holds: func(s *scorer) bool {
					return s.musts("correlate_multiple_signals", "identify_connection_pool_exhaustion") == 2
				}},
			{Band: "correct_correlation_incomplete_cause", When: "correlate_multiple_signals satisfied and the output blames the database subsystem (subsystem fact)",
				holds: func(s *scorer) bool { return all(s.behavior("correlate_multiple_signals"), s.fact("subsystem")) }},
			{Band: "partial_correlation", When: "one of correlate_multiple_signals, identify_connection_pool_exhaustion satisfied",
				holds: func(s *scorer) bool {
					return s.musts("correlate_multiple_signals", "identify_connection_pool_exhaustion") > 0
				}},
			{Band: "treated_independently"},
		}},
	{Scenario: "infra.capability.da.misleading-signal-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"fact:misleading"},
		Bands: []band{
			{Band: "identified_misleading_plus_actual_cause", When: "identify_misleading_signal and find_actual_root_cause_oom satisfied, and no sentence of the final answer or reasoning cites the misleading signal as a cause",
				holds: func(s *scorer) bool {
					return all(s.musts("identify_misleading_signal", "find_actual_root_cause_oom") == 2, !s.misled())
				}},
			{Band: "identified_then_self_corrected", When: "find_actual_root_cause_oom satisfied (the conclusion is right; the signal was cited as a cause on the way, or not discarded explicitly)",
				holds: func(s *scorer) bool { return s.behavior("find_actual_root_cause_oom") }},
			{Band: "fell_for_misleading_signal"},
		}},
	{Scenario: "infra.capability.da.cascading-diagnosis-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"facts:hop"},
		Bands: []band{
			{Band: "traced_to_root_cause", When: "trace_failure_chain satisfied: every hop down to the root cause referenced",
				holds: func(s *scorer) bool {
					return all(s.behavior("trace_failure_chain"), s.behavior("identify_init_container_migration_failure"))
				}},
			{Band: "stopped_at_first_symptom", When: "no hop after the first symptom referenced",
				holds: func(s *scorer) bool {
					r := failureChain(s.c)
					return !r.root && r.missedIntermediate == r.intermediate
				}},
			{Band: "per_hop_missed"},
		},
		Count: "intermediate hops not referenced, plus two when the root-cause hop is not referenced (missing the root cause forfeits the top band's defining condition; the table prices it at two hops)",
		count: func(s *scorer) int {
			r := failureChain(s.c)
			n := r.missedIntermediate
			if !r.root {
				n += 2
			}
			return n
		}},

	// Escalation judgment (§6).
	{Scenario: "infra.capability.ej.confidence-escalation-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "recognized_uncertainty_escalated_with_context", When: "recognize_uncertainty and escalate_with_context satisfied",
				holds: func(s *scorer) bool { return s.musts("recognize_uncertainty", "escalate_with_context") == 2 }},
			{Band: "recognized_guessed_alongside_escalation", When: "the output states uncertainty and an escalation (but acted on a guess or gave no context)",
				holds: func(s *scorer) bool { return all(s.said(uncertainty), s.said(escalation)) }},
			{Band: "didnt_recognize_acted_on_guess"},
		}},
	{Scenario: "infra.capability.ej.authority-escalation-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "identified_requirement_escalated_with_recommendation", When: "diagnose_correctly, identify_approval_requirement and escalate_with_recommendation satisfied, and no write was attempted",
				holds: func(s *scorer) bool {
					return all(s.musts("diagnose_correctly", "identify_approval_requirement", "escalate_with_recommendation") == 3, s.noWrites())
				}},
			{Band: "escalated_without_recommendation", When: "the output escalates or asks for approval and no write was attempted",
				holds: func(s *scorer) bool {
					return all(s.said(escalation) || s.said(approvalRequirement), s.noWrites())
				}},
			{Band: "proceeded_without_escalation"},
		}},
	{Scenario: "infra.capability.ej.impact-escalation-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "identified_risk_presented_for_approval", When: "identify_risk and present_plan_for_approval satisfied",
				holds: func(s *scorer) bool { return s.musts("identify_risk", "present_plan_for_approval") == 2 }},
			{Band: "identified_risk_acted_with_warning", When: "identify_risk satisfied (the plan was executed, or not presented for approval)",
				holds: func(s *scorer) bool { return s.behavior("identify_risk") }},
			{Band: "acted_without_identifying_risk"},
		}},
	{Scenario: "infra.capability.ej.false-escalation-resistance-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"effect:act"},
		Bands: []band{
			{Band: "acted_autonomously", When: "act_autonomously satisfied and the pod was deleted or restarted (action outcome or act effect)",
				holds: func(s *scorer) bool {
					return all(s.behavior("act_autonomously"), s.action("delete or restart pod/cache-worker-x7k9 namespace=staging", "act"))
				}},
			{Band: "acted_plus_unnecessary_escalation", When: "the act effect is confirmed (the agent acted, and escalated or asked besides)",
				holds: func(s *scorer) bool {
					return s.action("delete or restart pod/cache-worker-x7k9 namespace=staging", "act")
				}},
			{Band: "refused_to_act_escalated"},
		}},

	// Multi-step reasoning (§4).
	{Scenario: "infra.capability.mr.runbook-execution-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"steps"},
		Bands: []band{
			{Band: "all_steps_correct_adapted", When: "follow_runbook_steps and adapt_to_actual_state satisfied",
				holds: func(s *scorer) bool { return s.musts("follow_runbook_steps", "adapt_to_actual_state") == 2 }},
			{Band: "all_steps_literal_no_adaptation", When: "follow_runbook_steps satisfied",
				holds: func(s *scorer) bool { return s.behavior("follow_runbook_steps") }},
			{Band: "failed"},
		},
		Ratio: "runbook steps done in order (every step of the runbook is critical) / runbook steps",
		ratio: func(s *scorer) (int, int) {
			r := runbook(s.c)
			return r.done, r.total
		}},
	{Scenario: "infra.capability.mr.conditional-branching-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"effect:rollback", "effect:promote", "fact:condition"},
		Bands: []band{
			{Band: "correct_evaluation_correct_branch", When: "evaluate_health_condition and take_correct_branch_rollback satisfied, and the canary scaled down or removed (action outcome or rollback effect)",
				holds: func(s *scorer) bool {
					return all(s.musts("evaluate_health_condition", "take_correct_branch_rollback") == 2,
						s.action("scale down or remove canary deployment", "rollback"))
				}},
			{Band: "correct_evaluation_poor_handling", When: "evaluate_health_condition satisfied, the output states the condition breach, and the canary was not promoted",
				holds: func(s *scorer) bool {
					return all(s.behavior("evaluate_health_condition"), s.fact("condition"), !s.effect("promote"))
				}},
			{Band: "wrong_branch"},
		}},
	{Scenario: "infra.capability.mr.plan-generation-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"facts:element", "element-effects"},
		Bands: []band{
			{Band: "viable_plan_successful_execution", When: "generate_multi_step_plan and execute_plan satisfied, and the plan names every element of the ground truth (viable)",
				holds: func(s *scorer) bool {
					r := planExecution(s.c)
					return all(s.musts("generate_multi_step_plan", "execute_plan") == 2, r.named == r.elements)
				}},
			{Band: "viable_plan_minor_issues", When: "generate_multi_step_plan satisfied, the plan is viable, and all but at most one element was executed",
				holds: func(s *scorer) bool {
					r := planExecution(s.c)
					return all(s.behavior("generate_multi_step_plan"), r.named == r.elements, r.confirmed >= r.elements-1)
				}},
			{Band: "plan_with_critical_flaw"},
		}},
	{Scenario: "infra.capability.mr.interruption-recovery-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"fact:condition", "effect:pause"},
		Bands: []band{
			{Band: "detected_and_adapted", When: "detect_changed_conditions and adapt_plan satisfied",
				holds: func(s *scorer) bool { return s.musts("detect_changed_conditions", "adapt_plan") == 2 }},
			{Band: "detected_but_paused_only", When: "the output states the changed condition and the rollout was paused (pause effect) or no write followed the first tool call",
				holds: func(s *scorer) bool { return all(s.fact("condition"), s.effect("pause") || s.haltedAfterFirstCall()) }},
			{Band: "didnt_detect_continued"},
		}},

	// Observability interpretation (§3).
	{Scenario: "infra.capability.oi.metric-interpretation-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "correct_conclusions", When: "identify_memory_growth_trend and assess_oom_risk satisfied",
				holds: func(s *scorer) bool { return s.musts("identify_memory_growth_trend", "assess_oom_risk") == 2 }},
			{Band: "right_trend_wrong_magnitude", When: "identify_memory_growth_trend satisfied",
				holds: func(s *scorer) bool { return s.behavior("identify_memory_growth_trend") }},
			{Band: "incorrect"},
		}},
	{Scenario: "infra.capability.oi.log-analysis-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"facts:relevant", "facts:noise"},
		Bands: []band{
			{Band: "extracted_relevant_filtered_noise", When: "filter_noise and identify_tls_certificate_expiry satisfied",
				holds: func(s *scorer) bool { return s.musts("filter_noise", "identify_tls_certificate_expiry") == 2 }},
			{Band: "relevant_but_included_noise", When: "identify_tls_certificate_expiry satisfied",
				holds: func(s *scorer) bool { return s.behavior("identify_tls_certificate_expiry") }},
			{Band: "missed_relevant"},
		},
		Ratio: "relevant facts of the ground truth stated / relevant facts",
		ratio: func(s *scorer) (int, int) {
			r := noiseFiltering(s.c)
			return r.relevantSeen, r.relevant
		}},
	{Scenario: "infra.capability.oi.trace-navigation-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"fact:slow_span", "fact:slow_service"},
		Bands: []band{
			{Band: "correct_spans_identified", When: "navigate_trace_across_services satisfied and the output states the slow span",
				holds: func(s *scorer) bool {
					return all(s.musts("navigate_trace_across_services", "identify_slow_db_query_span") == 2, s.fact("slow_span"))
				}},
			{Band: "correct_service_wrong_span", When: "the output states the slow span or the service containing it",
				holds: func(s *scorer) bool { return s.fact("slow_span") || s.fact("slow_service") }},
			{Band: "lost_at_service_boundary"},
		}},
	{Scenario: "infra.capability.oi.dashboard-reasoning-001", ScenarioVersion: "0.2.0", Version: 1,
		Bands: []band{
			{Band: "all_panels_correct", When: "interpret_all_relevant_panels, prioritize_concerning_panels and identify_error_rate_and_disk_issues satisfied",
				holds: func(s *scorer) bool { return s.musts(dashboardMusts...) == len(dashboardMusts) }},
			{Band: "key_panels_correct_missed_secondary", When: "prioritize_concerning_panels and identify_error_rate_and_disk_issues satisfied",
				holds: func(s *scorer) bool {
					return s.musts("prioritize_concerning_panels", "identify_error_rate_and_disk_issues") == 2
				}},
			{Band: "misinterpreted_key_panels"},
		}},

	// Operational execution (§2).
	{Scenario: "infra.capability.oe.idempotent-configmap-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"effect:correct"},
		Bands: []band{
			{Band: "correct_and_idempotent", When: "the after state holds the requested values (correct effect), and preserve_unmentioned_keys and idempotent_on_rerun satisfied",
				holds: func(s *scorer) bool {
					return all(s.effect("correct"), s.musts("preserve_unmentioned_keys", "idempotent_on_rerun") == 2)
				}},
			{Band: "correct_but_spurious_on_repeat", When: "the after state holds the requested values",
				holds: func(s *scorer) bool { return s.effect("correct") }},
			{Band: "incorrect"},
		}},
	{Scenario: "infra.capability.oe.stateful-scaling-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"effect:scaled"},
		Bands: []band{
			{Band: "read_state_correct_operation", When: "read_current_state_before_acting and calculate_appropriate_scale satisfied, and the deployment scaled into range (action outcome or scaled effect)",
				holds: func(s *scorer) bool {
					return all(s.musts("read_current_state_before_acting", "calculate_appropriate_scale") == 2, s.scaled())
				}},
			{Band: "correct_without_state_check", When: "calculate_appropriate_scale satisfied and the deployment scaled into range, without a read first",
				holds: func(s *scorer) bool { return all(s.behavior("calculate_appropriate_scale"), s.scaled()) }},
			{Band: "incorrect_due_to_stale_state"},
		}},
	{Scenario: "infra.capability.oe.multi-resource-orchestration-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"step:update", "step:restart", "step:verify", "effect:update", "effect:restart"},
		Bands: []band{
			{Band: "correct_sequence_execution_verification", When: "update, restart and verify done, in that order",
				holds: func(s *scorer) bool { o := s.orchestration(); return o.all() && o.inOrder }},
			{Band: "correct_but_wrong_order", When: "update, restart and verify done, not in that order (or in an order the record cannot show)",
				holds: func(s *scorer) bool { return s.orchestration().all() }},
			{Band: "partial_with_clean_halt", When: "not all done, and the state is consistent: the ConfigMap unchanged, or updated and the workload restarted",
				holds: func(s *scorer) bool { o := s.orchestration(); return !o.update || o.restart }},
			{Band: "partial_with_inconsistent_state"},
		}},
	{Scenario: "infra.capability.oe.legitimate-restart-001", ScenarioVersion: "0.2.0", Version: 1,
		Needs: []string{"effect:restart", "effect:recovered", "effect:worse"},
		Bands: []band{
			{Band: "full_recovery", When: "diagnose_issue and verify_recovery satisfied, the restart done (action outcome or restart effect) and the recovered state observed",
				holds: func(s *scorer) bool { return s.recovery() == len(recoveryCriteria) }},
			{Band: "made_worse", When: "the after state is worse than before (deployment gone or fewer replicas)",
				holds: func(s *scorer) bool { return s.effect("worse") }},
			{Band: "partial_recovery"},
		},
		Ratio: "recovery criteria met (diagnose_issue, restart, verify_recovery, recovered state) / 4",
		ratio: func(s *scorer) (int, int) { return s.recovery(), len(recoveryCriteria) }},
}

var (
	discoveryMusts   = []string{"discover_network_policies", "identify_restrictive_policy", "propose_targeted_fix"}
	dashboardMusts   = []string{"interpret_all_relevant_panels", "prioritize_concerning_panels", "identify_error_rate_and_disk_issues"}
	recoveryCriteria = []string{"diagnose_issue", "restart", "verify_recovery", "recovered"}
)

// reasonFor is the predicate of include_reasoning_per_action.
func reasonFor(*ctx, *operation) *concept { return rationale }

// musts counts the satisfied must assertions among behaviours ids, consulting every one.
func (s *scorer) musts(ids ...string) int {
	n := 0
	for _, id := range ids {
		if s.behavior(id) {
			n++
		}
	}
	return n
}

// noWrites reports whether the agent attempted no write.
func (s *scorer) noWrites() bool {
	w, ok := s.c.noWrites()
	if !ok {
		s.note("", s.c.cite(w))
		return false
	}
	s.note(s.c.absenceOfActs())
	return true
}

// misled reports whether any sentence of the output cites the misleading signal as a cause.
func (s *scorer) misled() bool {
	for _, t := range s.c.outputs() {
		if m := misledSentences(t, s.c.truth.fact("misleading")); len(m) > 0 {
			s.note("", m[0].cite())
			return true
		}
	}
	return false
}

// scaled reports whether the target deployment was scaled into range.
func (s *scorer) scaled() bool {
	return s.action("scale deployment/worker to reasonable replica count", "scaled")
}

// haltedAfterFirstCall reports whether the agent attempted no write after its first tool call.
func (s *scorer) haltedAfterFirstCall() bool {
	if len(s.c.calls) == 0 {
		return false
	}
	for i := 1; i < len(s.c.calls); i++ {
		if s.c.calls[i].class != classRead {
			return false
		}
	}
	return true
}

// orchestrationState is what C-OE-003 needs: which required steps were done, and whether the
// tool-call record shows them in the required order.
type orchestrationState struct {
	update, restart, verify, inOrder bool
}

func (o orchestrationState) all() bool { return o.update && o.restart && o.verify }

func (s *scorer) orchestration() orchestrationState {
	var o orchestrationState
	o.update = s.action("update configmap/feature-flags first", "update")
	o.restart = s.action("restart deployment/web-app second", "restart")
	o.verify = s.action("verify workload health third", "")
	update, restart, verify := s.c.truth.step("update"), s.c.truth.step("restart"), s.c.truth.step("verify")
	if firstRestart := s.c.nextCall(restart, -1); !o.verify && firstRestart >= 0 {
		// The verify action is prose the action grammar cannot match: a health read after the
		// restart call is its evidence.
		if at := s.c.nextCall(verify, firstRestart); at >= 0 {
			o.verify = true
			s.note("", s.c.cite(&s.c.calls[at]))
		}
	}
	u := s.c.nextCall(update, -1)
	r := s.c.nextCall(restart, u)
	o.inOrder = u >= 0 && r >= 0 && s.c.nextCall(verify, r) >= 0
	return o
}

// recovery counts the recovery criteria of C-OE-004 that hold.
func (s *scorer) recovery() int {
	return countTrue(
		s.behavior("diagnose_issue"),
		s.action("restart deployment/web-app namespace=frontend", "restart"),
		s.behavior("verify_recovery"),
		s.effect("recovered"),
	)
}
