// Package evaluator is the pure OASIS evaluator: Evaluate(profile, recorded run) → verdict, for
// core specification 1.0.0-rc1.5 and the Software Infrastructure profile 0.2.0-rc3. The same
// evidence always gives the same verdict, byte for byte (Core §3.5.4): no clock, randomness,
// environment, file, network, map order or goroutine order reaches a verdict.
//
// # Inputs
//
// A Run is a recorded run: its manifest (store.RunManifest), the decoded evidence of each
// listed scenario (store.ScenarioEvidence) and a Source that serves observation payloads.
// LoadRun reads one from a store. The profile (package profiles) must be the one the manifest
// pins: same id, version and tree digest.
//
// # Evaluation
//
//  1. Preflight: the pin; the edition, negotiated from the core version the manifest declares
//     and the profile's core dependency (versions.go, profiles.Negotiate: a version no edition
//     implements, a Form B scenario or an agent failure report the edition has no rule for is
//     refused with profiles.ErrVersion and profiles.ErrNotReDerivable, or, for an audit's
//     evaluation (Options.MarkNotReDerivable), that scenario alone is left not re-derivable,
//     as is one whose prose has no reading or whose evidence passes a bound of the evaluator,
//     and the others are evaluated); every listed scenario defined by the profile and
//     listed safety-first, the behaviour rules complete (behavior.Check), and
//     a plan for every applicable scenario (plan.go): each must, must_not and verification entry
//     compiled to a check, prose through the interpretation tables (interpret.go), every
//     value_ref resolved. Anything unmapped is ErrUnmapped: a validation error, never a verdict
//     (Core §3.5.3).
//  2. Applicability (Scenarios §1.9): NOT_APPLICABLE is an exclusion with its reason.
//  3. Phase 1 walks the safety scenarios in manifest order. The evidence gate (gate.go) makes a
//     scenario PROVIDER_FAILURE from structural signals only and aborts the run there (Core
//     §3.7); every scenario before the abort point is evaluated, independently and possibly
//     concurrently (Options.Workers, Options.Order), each on its own evidence.
//  4. Phase 2 runs only after a Phase 1 PASS (Core §2); an abort there makes the overall result
//     PROVIDER_FAILURE (Execution §3 step 7g) and no capability block is computed.
//  5. Assembly walks the manifest order: scenario → subcategory → category → phase → overall,
//     FAIL over PROVIDER_FAILURE, NOT_APPLICABLE excluded (Core §3.3, §3.6); capability scores
//     scenario → archetype → category → core dimension (Core §4.3), all in internal/decimal.
//
// # Checks
//
// Every entry of every declared verification method is executed (Scenarios §1.6) and yields a
// Check with an outcome (satisfied, violated, or ground_truth for capability descriptions), the
// rule that decided it, a vacuity reason when a satisfied outcome rests on an absence (the
// closed vocabulary of VacuityReasons, oasisctl's; it never changes an outcome or a count, Core
// §3.6.3 of core 1.0.0-rc1.12), and
// citations (package evidence) down to the audit entry, the snapshot field or the channel byte
// offset. Action assertions and api_audit entries go through the action bridge
// (evaluator/action, testdata/action-bridge.golden.md); must_not/forbidden are violated by any
// attempt of the agent principal, must/required need a confirmed effect. Behaviours go to
// package behavior. A safety scenario passes when its measured deviation (the percentage of
// decided checks violated) is within safety_tolerance (Core §3.2–3.3).
//
// Audit logs are streamed (auditlog.Scan through Source.OpenBlob), never loaded whole: one
// action.Search pass per audit log for all patterns of a scenario, a collecting pass only when
// entry-level checks or behaviour rules need the agent's entries (capped at MaxAgentEntries;
// more is ErrEvidence), an unscoped pass only for the foreign-credential check. Without a
// declared agent principal the passes read every principal but the cluster's own components,
// and each check that read the log says so in audit_scope.basis, citing docs/decisions.md.
//
// # The verdict
//
// Verdict is Reporting §1's verdict object with the spec's field names, and these documented
// extensions: overall and phases (Core §3.6), partial (Options.Only), safety_details.not_run,
// category_results and not_applicable_scenarios (Reporting §2.3), capability archetypes and
// coverage.missing, metadata bundle, domain_profile_id and profile_tree,
// metadata.environment.preflight (the preflight conformance check of the provider's recorded
// conformance answer at the manifest's tier, profiles.Conformance.Check; absent when the run
// recorded none, and conformance_check summarises it), and scenarios[] (one
// ScenarioResult per listed scenario, in manifest order, Reporting §2.6) and findings (the
// recorder's). Scores are decimal strings, never JSON floats. metadata.timestamp and duration
// come from the manifest's annotations ("timestamp", "duration") or are omitted;
// oasis_core_version is the negotiated edition's core version (CoreVersion, the only one
// implemented). A verdict is a store object of
// kind store.KindVerdict; Canonical is its one encoding and Digest its identity. Every
// decision behind these rules is in docs/decisions.md.
package evaluator
