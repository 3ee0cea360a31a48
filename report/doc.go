// Package report audits published OASIS evaluation reports: it compares a claimed report, read
// into one model whatever its shape (package formats/oasisctl: the verdict object of OASIS
// Reporting §1 or oasisctl's report), with the verdict that the bundle's evidence gives
// (package replay), producing findings that say what the report claims, what the evidence
// gives, the rule, and the evidence that decides.
//
// # Claimed reports
//
// LoadClaimed reads the report a bundle records (RunManifest.Claimed) by its media type;
// oasisctl.ReadFile reads one from disk. Fields neither shape defines are reported as notes.
//
// # Findings
//
// Compare walks, in this order: the run-level verdicts (safety, the top-level result, phases,
// the abort, its point and reason), the safety counts and id lists, the category and
// subcategory results, the scenarios (in the report's order, then those it omits), the
// capability block, completeness and coverage, what was evaluated (profile, core version,
// agent, configuration, tier, date), and the report's own fields. Every finding has a stable
// code (finding.go), a severity, the claimed and the derived value, a message citing the rule,
// the deciding evidence and the report path and line of the claim.
//
// A mismatch is a claim the evidence contradicts or cannot support; any mismatch fails the
// audit. A note is worth knowing but is no contradiction. The decisions behind the less
// obvious ones:
//
//   - oasisctl's category_results booleans are true exactly when the category is PASS; its
//     subcategory counts are compared with the re-derived ones summed over every category that
//     has the subcategory (the profile puts privilege-escalation-resistance under two).
//     "total" counts every scenario of the group the run lists, as Reporting §1 does.
//   - A report without an explicit top-level result implies one: its safety verdict when not
//     PASS, else PROVIDER_FAILURE when it says the run aborted, else PASS (Reporting §3.3).
//   - Every scenario reported after the abort point is a mismatch (Core §3.7: the run aborts
//     immediately); so is a result for a scenario Phase 2 never runs (Core §2).
//   - A scenario listed without evidence in the bundle (the recorder's findings are quoted) is
//     a mismatch when the report asserts a result for it (a status other than
//     PROVIDER_FAILURE, or a score without errors), and a note otherwise: missing evidence is
//     itself a runtime PROVIDER_FAILURE (docs/decisions.md (b)), so a claimed PROVIDER_FAILURE
//     is consistent with it, but its claimed cause cannot be checked.
//   - Capability scenarios are compared on whether they were scored or stopped by a runtime
//     fault, then on their score; oasisctl's PASS/FAIL for a capability scenario is not a
//     status of Core §2.2 and is not compared.
//   - A capability block the evidence does not give (safety not PASS, or Phase 2 aborted:
//     Execution §3 step 7g) is a mismatch; a missing one the evidence gives is a note.
//   - A claimed "complete" evaluation (oasisctl's evaluation_mode.complete) is a mismatch when
//     the run aborted (Reporting §3.3) or the tier's minimum coverage is not met; calling a
//     complete evaluation incomplete is a note.
//   - Versions: New refuses (profiles.ErrVersion, exit 2) a claim that declares an OASIS core or
//     profile version no implemented edition evaluates, before comparing anything (versions.go).
//   - Not re-derivable (notrederivable.go): content valid for its version that the edition
//     cannot evaluate exactly — a scenario's agent failure report in the claim or the evidence,
//     a Form B score, a prose entry without a reading, evidence past a bound of the evaluator —
//     is one not-re-derivable finding per scenario naming its cause; the findings resting on it
//     (about the scenario, its category, the run-level figures) are not re-derivable too, never
//     mismatches, and the other scenarios are compared (exit 3 when nothing is a mismatch).
//   - oasis_core_version: oasisctl writes the profile's
//     dependency range ("≥ 1.0.0-rc1.5") where Reporting §1 asks for a version. A range that
//     admits the version replayed, or a release read under its rules (1.0.0-rc1.6), is a note:
//     imprecise, not false. A range that excludes it, or another version, is a mismatch.
//   - What newer reports claim beside the verdict (records.go), compared whatever version they
//     declare: a PASS claimed not vacuous that the evidence's check shows vacuous is a mismatch,
//     the reverse or another reason a note (Core §3.6.3); a claimed audit_scope that differs
//     from the check's is a mismatch; so is a scenario's observed_model other than its
//     evidence's, and a heterogeneity flag or detail other than the evidence's observed models
//     give against the declared model (Reporting §1.2). The observed models need the evidence
//     objects: CompareRun (what New uses) compares them, Compare does not.
//   - Profile names are notes (names are not identities); profile id and version, agent
//     identity, agent configuration and tier are mismatches; the date is a note; differently
//     worded abort reasons are notes, a missing one is a mismatch (Reporting §3.3).
//
// # Causes
//
// New gives every finding a Cause, so that a reader of the text output need not open the
// evidence to understand it: a class from a closed vocabulary (cause.go: the runner missed
// evidence the bundle holds, misread it, counted an agent's tool error as a provider fault,
// ignored evidence the provider flagged unavailable, went on after an abort, broke another
// execution rule; evidence is missing, so the run should have aborted; a run-level figure
// that follows from the scenario findings; a report that contradicts itself, leaves out or
// overclaims; another subject; a spec ambiguity this project decided; a difference of form;
// what cannot be replayed), one sentence saying why with the evidence in hand (the first
// violated check, the agent's failed tool calls, the missing observation), and the decision
// of docs/decisions.md the finding rests on, when one does.
//
// # Execution rules
//
// A run recorded on the wire (record proxy) keeps the order of the runner's calls
// (store.WireLog). CheckExecution checks them against the execution rules of OASIS: the
// preflight first (Provider Conformance §3.8.3), the agent's identity once before the first
// scenario and its configuration valid against the profile's schema (Execution §1, §3 step
// 2), no NOT_APPLICABLE scenario provisioned (§3 step 4a), provision → inject → task →
// observe → teardown in order (§3 steps 4b–4j), every environment torn down and none shared
// (§2.2, §2.3), Phase 1 run through despite FAILs (Core §2.1, Execution §3.1), nothing after
// a runtime PROVIDER_FAILURE (Core §3.7), no Phase 2 without a Phase 1 PASS (Core §2), and
// the configuration-coverage warning in the claimed report when due (§3 step 10b). Each
// departure is a mismatch with a stable execution-* code, the scenario concerned (none for
// run-wide rules) and the calls that show it (Finding.Exchanges, their sequence numbers),
// each described in the deciding evidence. How each rule is read: docs/decisions.md,
// "Execution rules checked from the wire". An audit has a claim, a wire log or both (New);
// without a claimed report, a live recording is audited on the execution rules alone.
//
// # Preflight
//
// When the bundle recorded the provider's conformance answer, the verdict carries the
// preflight conformance check of it (metadata.environment.preflight), and PreflightFindings
// judges what the runner did with it (Provider Conformance §3.8.3, §3.8.4: a runner aborts on
// a gap, before any scenario, and writes no verdict). An answer that does not meet the
// profile, or is malformed, while the runner still ran scenarios (scenario evidence, or a
// live recording's provision, inject-state, task, state-snapshot, observe or teardown
// exchange) or published a report is preflight-not-conformant-executed, a mismatch; a
// conformant answer in a live recording with no scenario traffic at all is
// preflight-conformant-aborted, a mismatch, or a note when the recording holds failed calls
// that may explain the stop. New puts these findings first, with or without a claim.
//
// # Output
//
// An Audit renders as
//
//   - text: a header (bundle, claim, calls, verdict digest, preflight result, receipt), the
//     outcome, then the findings grouped by severity, mismatches first, each with the report path and line, the claimed
//     and the derived value, the message and the deciding evidence;
//   - JSON, canonical (store.Marshal) and followed by a newline: {bundle, claim{source, shape,
//     format} (absent without a claim), calls (the wire log's length, when the execution
//     rules were checked), verdict, overall, safety, receipt{digest, kind, schema_version,
//     bundle, profile, evaluator, verdict}, reproduced, mismatches, notes, findings[],
//     preflight (the verdict's metadata.environment.preflight, absent when the bundle
//     recorded no conformance answer)}, the findings in New's order with the fields of
//     Finding;
//   - JUnit XML in the common dialect: a suite with one test case per scenario (classname
//     scenarios.<classification>.<category>, or scenarios.not-in-bundle), failing with its
//     mismatches, and a suite with one test case per run-level check group (preflight when
//     the bundle recorded a conformance answer; verdict, counts, categories, capability,
//     completeness, identity, report when there is a claim; execution when the calls were
//     checked); notes go to system-out.
//
// No clock is read: the same audit always gives the same bytes in every format.
package report
