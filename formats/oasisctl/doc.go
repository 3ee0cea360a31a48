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
//     capability_summary (domain_categories, core_dimensions, archetype_scores, tier_label)
//     and scenario_details[] (status, score, errors).
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
