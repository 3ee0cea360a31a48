// Package profiles loads, validates and pins an OASIS domain profile: the Software
// Infrastructure (SI) profile 0.2.0-rc3 of core spec 1.0.0-rc1.5, or any profile directory in
// the same layout. The evaluator reads scenarios, behaviours, categories and the scoring model
// from a *Profile; the recorder and replay get the exact profile a run used from its Pin.
//
// # Concepts
//
// A profile directory holds Markdown documents and YAML files (Profiles §2). Load reads them
// from an fs.FS rooted at that directory, so the same code reads a checkout on disk (through
// package profiles/profiledir, which opens it with os.Root) and a profile tree in the store
// (LoadTree, through TreeFS). This package itself never opens a file: the evaluator imports
// it and must stay pure.
//
// A Scenario is one document of a multi-document file under scenarios/ (Scenarios §1), with
// every field typed and located (file and line) down to each assertion and verification entry.
// The parts whose shape the profile, not the core spec, defines — precondition state entries,
// state assertion pins, state_diff sides, agent scope, rubric values — are kept as nodes of the
// project's one document model (*doc.Node, package internal/doc): YAML in document order,
// scalars typed by the YAML 1.2 core schema and keeping the text they are written with
// (Flow renders them, Value gives the values the evaluator's state model holds). Aliases and
// merge keys are expanded within the model's limits; custom tags are errors. Nothing in the
// model is a Go map, so nothing read from it depends on map iteration order.
//
// A Behavior is an entry of behavior-definitions.md: "### `identifier`", a prose definition and
// a **Verification:** paragraph (Profiles §2.3). "Equivalent to `x`" declares an equivalence;
// Profile.Behavior follows it, so the evaluator keys its heuristics on canonical ids only.
//
// Categories, archetypes and subcategories come from safety-categories.md,
// capability-categories.md and the subcategory table of profile.md §5.1. A category's id is its
// name in kebab case ("Boundary Enforcement" → "boundary-enforcement"), which is how scenarios
// name it; its code comes from its archetype ids (S-BE-001 → "BE").
//
// A Pin is the profile's id, version, source commit and the digest of its store.ProfileTree:
// every regular file of the directory as a blob (media type application/octet-stream), sorted
// bytewise by slash path, plus the identity fields. Symlinks and other non-regular files are
// refused, each file is capped at MaxFileSize and the directory at MaxFiles and MaxTotalSize.
// Import writes the blobs, the tree object and the ref store.RefProfilePrefix+<hex>; LoadTree
// reads them back and rebuilds the tree, which must have the digest asked for. A profile loaded
// from disk and the same profile loaded from its tree are deeply equal and have the same Pin.
//
// # Load order
//
//  1. Walk the directory and read every regular file (files.go).
//  2. profile.md: header lines (**Version:**, **OASIS Core Dependency:**), §1 metadata, the
//     category tables of §5 and §6, subcategories (§5.1), intent promotion (§5.2), complexity
//     tiers (§8), dimension weights (§9.2), an agent_configuration_schema block if any.
//  3. provider-conformance-requirements.yaml; it must agree with profile.md on id, version and
//     core dependency, which makes those two the authoritative identity. Every other document's
//     header is compared with them ("version-drift").
//  4. behavior-definitions.md, safety-categories.md, capability-categories.md, then
//     interface-types.md, stimulus-library.md and agent-configuration-schema.yaml when present.
//  5. Tiers and the scoring model, checked against the prose (see Tables below).
//  6. scenarios/**/*.yaml and *.yml in path order; each document is parsed on its own, then all
//     scenarios are validated against the profile and each other (validate.go).
//
// # Ordering guarantees
//
// Profile.Scenarios is in suite order: all safety scenarios, then all capability scenarios
// (Core §2: Phase 1 before Phase 2), each group in file path order (bytewise) and, within a
// file, document order; Safety and Capability return the two halves. Behaviors, categories,
// archetypes, subcategories, conformance requirements and interface terms are in document
// order; dimension weights follow Core §4.1 (task_completion, reliability, reasoning,
// auditability). Diagnostics are sorted by file, line, scenario, field, code and message.
//
// # Tables: profile-derived and project-kept
//
// Everything is read from the profile except what the profile states only in prose that a
// program cannot read reliably. For those, the project keeps one registry of editions
// (editions.go): one entry per (OASIS core version, profile id, profile version), identified by
// TablesVersion ("profiles-tables/1") and InterpretationVersion, so that a second profile
// version, or the same profile under another core release candidate, is one new entry
// (edition_si.go, edition_example.go). EditionFor returns the entry of a key or an
// ErrNoEdition error naming what is not implemented; Load uses the entry of the profile's id and
// version with the newest core version the profile's core dependency admits (Profile.Edition).
//
// # Core releases, features and version negotiation
//
// versions.go lists the OASIS core releases the project has read (1.0.0-rc1.5 to 1.0.0-rc1.12),
// each with the features it introduces (Feature: scenario_version_optional, form_b, injection,
// evidence_artifact, agent_identity, vacuity_report, agent_failure_unevaluable) and the release
// whose rules it is read under (rc1.6 under rc1.5's, rc1.8–rc1.10 under rc1.7's). An edition
// lists the features it implements (Edition.Features); Edition.Require refuses content that
// needs another. Negotiate resolves the core versions a run's sources declare — an exact
// version, or a constraint such as oasisctl's "≥ 1.0.0-rc1.5" — to the edition whose rules
// apply, or refuses with ErrVersion (nothing implemented, a newer iteration of a known line
// included) or ErrVersionConflict (sources that exclude each other), naming the declaration,
// its source and every implemented edition. A second version is one release entry and one
// edition entry. An edition entry holds:
//
//   - the capability scoring model of SI 0.2.0-rc3: aggregation method and per-archetype
//     multipliers per category, and category weights per core dimension, each citing the line
//     of capability-categories.md or profile.md it comes from. At load time the prose is parsed
//     and compared with the table; any difference is a warning ("scoring-prose"). Where the
//     category document and profile.md disagree (Diagnostic Accuracy: profile.md §6 names only
//     multi-signal at 1.5x, capability-categories.md §1 multi-signal and cascading), the table
//     follows the category document. The Observability Interpretation → reasoning mapping has no
//     weight in §9.2; it is recorded in ScoringModel.Unweighted (weight 0) and warned about.
//     For a profile version without a table, the model is parsed from the prose
//     (Origin OriginProfileText) with a warning.
//   - interpretations of coverage rules written as prose (SI §8 tier 2: "Multi-signal and
//     multi-step archetypes required" → at least one of C-DA-002 and one of C-MR-001…004).
//     Rules of the forms "All N <class> categories: ≥K archetypes per category", "…: all
//     archetypes" and "Adversarial variants required…" are read from the text.
//   - waivers: known inconsistencies of an exact profile version that are kept as warnings
//     instead of errors (SI 0.2.0-rc3: infra.safety.be.zone-config-integrity-001 files a
//     Boundary Enforcement scenario under privilege-escalation-resistance).
//   - the readings of prose checks (negative_verification lines, prose api_audit entries and
//     actions, prose state conditions) as structured checks, and of observability
//     requirements as the observations they demand, which the evaluator decides
//     (Interpretations, Observability; docs/decisions.md explains each row);
//   - whether the capability scenarios are scored by dedicated rules (evaluator/behavior,
//     whose ground truth and scoring bands are keyed by scenario id and version) rather than
//     by the generic rule.
//
// Smaller fixed lists cite their spec section where they are declared: core dimensions (Core
// §4.1), core safety categories (Core §3.1), output channels (Scenarios §1.6), output-shaped
// action verbs (Core §3.5.6), agent modes (Scenarios §1.3) and the mode ↔ operational_mode
// relation (Profiles §2.16.3).
//
// # Warnings policy
//
// Every finding is a Diagnostic with a severity, a code, and the file, line, scenario and field
// it concerns, rendered "file:line: scenario: field: message". Errors are violations of a rule
// of the spec (Scenarios §1–§3, Profiles §2) by a scenario or a registry, malformed files, and
// identity conflicts; Load reports all of them at once in a *ValidationError and returns no
// profile. Warnings are inconsistencies, staleness or gaps in the profile's documents that leave
// every rule the evaluator needs well defined, and SHOULD-level rules; the profile loads and
// keeps them in Profile.Diagnostics. For SI 0.2.0-rc3 the warnings are exactly: the stale
// version headers of eight documents ("version-drift"), "seven" vs eight conformance keys
// ("conformance-key-count"), complexity_tier_supported vs the core example's
// complexity_tiers_supported ("conformance-key"), the Observability Interpretation weight gap
// ("dimension-gap"), the Diagnostic Accuracy multiplier difference ("scoring-prose"), the
// missing agent configuration schema ("agent-schema-missing"), the waived subcategory parent
// ("subcategory-parent"), and one "intent-recommended" per capability scenario, because
// Scenarios §1.1 requires tooling to warn when a recommended intent is absent.
//
// Diagnostic codes: missing-file, metadata, identity, semver, yaml-syntax, yaml-limit, type,
// enum, required, unknown-field, misplaced-field, duplicate-id, category-unknown,
// archetype-unknown, archetype-category, subcategory-unknown, subcategory-parent,
// behavior-undefined, assertion-empty, conditional-empty, conditional-overlap, no-assertion,
// no-verification, scoring-type, scoring-field, deviation-measure, pass-condition, range,
// rubric-value, dimension-unknown, dimension-weights, intent-length, intent-duplicate,
// intent-required, intent-recommended, stimulus-value, stimulus-description, stimulus-library,
// tool-unknown, environment-type, companion-unknown, output-shaped-action, vc-channel, vc-scope,
// state-assertion-empty, api-audit-empty, applicability-dimension, applicability-value,
// applicability-mode, agent-mode, scenario-dimension, archetype-coverage, and for the profile
// documents behavior-*, archetype-*, category-*, subcategory-*, schema-dimension,
// agent-schema-missing, version-drift, conformance-key, conformance-key-count, scoring-prose,
// scoring-table, scoring-table-missing, dimension-gap, core-coverage, tier-rule, tiers-missing,
// vocabulary-duplicate, no-scenarios.
//
// # Provider conformance
//
// Conformance is provider-conformance-requirements.yaml: the profile's id, version and core
// dependency, and each requirement key with its type, whether it is required, and its
// expected value, read at load time into a scalar, a list that must all be present, a
// Comparison ({comparison_operator: gte, value: requested}) or a version Constraint.
// Conformance.Check is the preflight conformance check of Provider Conformance §3.8.3 applied
// to one GET /v1/conformance answer, a pure function: the answer's shape (§3.8.2; anything
// else is ErrMalformedAnswer, with line, column and member), a core version the dependency
// admits, the profile and its version, the requirements map against the contract, then
// supported and unmet_requirements. The PreflightResult lists every unmet requirement with
// its key, what is expected, what the answer gave, an actionable reason and the provider's own
// reason; it is what a verdict carries as metadata.environment.preflight and what `conformance
// check` prints. docs/decisions.md ("Preflight conformance") records each reading.
//
// # Agent configuration
//
// AgentConfigSchema is the schema of Profiles §2.16. The SI profile declares none, so its
// schema is empty (Declared false): Profile.Applies then excludes a scenario whose applicability
// names a dimension the agent does not report (Scenarios §1.9). Configuration values are JSON or
// YAML literal text ("true", "api"); booleans compare in canonical spelling. MatchConditional
// returns the one conditional block that matches, and an error if several do (Scenarios
// §1.10); validation already rejects blocks that can match the same configuration.
package profiles
