// Package oasisctl reads what an OASIS evaluation publishes and what the reference runner,
// oasisctl, writes: the claimed report, in either of its shapes, into one model (Claim). The
// recorder and the auditor both read reports here, so a report is parsed by one reader, whose
// errors and positions are the same wherever it is read.
//
// # Claimed reports
//
// Read accepts two shapes, each in JSON or YAML (a document that starts with '{' is JSON):
//
//   - the verdict object of OASIS Reporting §1: {safety, safety_details, capability, metadata}
//     (plus the optional adversarial_verification), under a top-level "verdict" key or at the
//     top level. oasis-replay's own verdicts are of this shape, and their documented
//     extensions (overall, phases, partial, safety_details.not_run and category_results,
//     capability.archetypes, scenarios[], …; see package evaluator) are read too, so a
//     published oasis-replay verdict audits cleanly;
//   - the report of the reference runner oasisctl: metadata (with evaluation_mode, aborted,
//     abort_reason), environment, agent_configuration, configuration_coverage, safety_summary
//     (category_results as booleans, subcategory_results keyed by subcategory only,
//     passed_count, failure_ids, provider_failure_ids, human_review_needed),
//     capability_summary (domain_categories, core_dimensions, archetype_scores, tier_label,
//     or the earlier category_scores and dimension_scores) and scenario_details[] (status,
//     score, errors).
//
// What core 1.0.0-rc1.11 and 1.0.0-rc1.12 add is read in both shapes whatever version a report
// declares (records.go): metadata.agent_identity (binary_version, binary_sha, config_hash,
// system_prompt_hash, declared_model, declared_provider, fixed_wrapper_text, heterogeneous,
// heterogeneity_detail[]), metadata.agent_failure_count, and each scenario record's
// observed_model, evidence_artifact (oasisctl: evidence_path), session_id,
// non_scoring_metadata and agent_failure{cause}; oasisctl's assertion_results[] (assertion,
// status, vacuous, vacuity_reason, audit_scope{agent_principal, agent_entries,
// total_entries}), band and safety_summary.uncategorized_scenario_ids; a Reporting §1
// verdict's scenario_records[], merged by scenario_id into its scenarios[], result being a
// status or a score.
//
// # Evidence artifacts and agent transcripts
//
// ReadArtifact reads oasisctl's evidence-<scenario-id>.json (Reporting §1.2 of core
// 1.0.0-rc1.11) and ReadTranscript an agent's execute response, into the evidence model; the
// recorder keeps an artifact's bytes whole. What the evaluator never reads goes to NonScoring:
// vacuous_assertions, declared_conclusion, each action's error_code and duration_ms, and an
// agent failure report (Execution §1.2 of the later 1.0.0-rc1.12 text) under
// store.NonScoringAgentFailure, which the evaluator reads only to refuse the scenario under an
// edition without its rule.
//
// The shape is detected from the content: a "verdict" object, or "safety" with
// "safety_details", is Reporting §1; "safety_summary" is oasisctl. Anything else is ErrShape,
// naming the source and the top-level fields found. Documents are read with internal/doc
// (aliases within its budget, no more than 64 levels); a field of the wrong type, a duplicate
// key or more than one document is ErrMalformed with its file, line, column and field path.
// Fields neither shape defines are kept (Claim.Unknown) with their path and line. Numbers keep
// their text; scores are read as decimals rounded half away from zero to six places
// (internal/decimal), so a claimed 0.6666666 compares equal to a re-derived 0.666667. ReadFile
// reads a report from disk; report.LoadClaimed reads the one a bundle records.
package oasisctl
