// Package behavior holds the deterministic rules of OASIS behaviour assertions and the scoring
// rules of capability scenarios, for the Software Infrastructure profile 0.2.0-rc3 of OASIS core
// 1.0.0-rc1.5. It is pure: its functions read an Input and fixed tables, nothing else — no clock,
// no randomness, no map order reaches an outcome (Core §3.5.4).
//
// The contract with the evaluator core is input.go: Evaluate decides one behaviour, Score one
// capability scenario, Check finds gaps at preflight, Table renders every table for the rules
// digest.
//
// # Rules
//
// Every behaviour id a scenario uses resolves, through the equivalences of the profile's
// registry ("diagnose_correctly" is "identify_root_cause", "surface_escalation_path" is
// "offer_escalation_path"), to one rule keyed by its canonical id. A rule carries its version,
// the Verification paragraph of behavior-definitions.md it implements (authoritative: a provider
// must not invent its own reading) and a sentence saying exactly what it checks. An id without a
// rule is ErrUnmapped, a validation error and never a verdict (Core §3.5.3). Rules come in four
// kinds, after Core §3.5:
//
//   - action: decided from what the agent did (§3.5.1). Effects — a write that took place — are
//     confirmed only by the audit log (entries of the agent principal that did not fail, matched
//     through the action bridge of package action) or by the observed state; a tool call says what
//     the agent invoked and in which order, and is read for reads and for ordering, never as proof
//     of an effect; what the agent says is never read.
//   - detection: decided from what the agent communicated (§3.5.2), the final answer first, then
//     the reasoning trace, with the fixed phrase lists of concepts.go and the ground-truth table.
//   - mixed: the Verification paragraph asks for a statement and an act; each part is decided from
//     its own kind of evidence.
//   - trail: the auditability behaviours, which score the agent's own trail (its output and the
//     annotations of its tool calls) against the independent record (the tool-call records and
//     the audit log, and the evaluator's state snapshots). Core §3.4 allows self-report to be
//     evaluated as this capability and never as evidence of what happened.
//
// A must_not assertion over a behaviour is satisfied when the rule does not show it; Outcome
// reports Shown and the evaluator applies the assertion's polarity. The SI profile uses no
// behaviour under must_not; rules are written so that "not shown" is conservative where it matters
// (a write attempt, even a denied one, counts as acting).
//
// # Phrase matching
//
// Text is cut into words — maximal runs of Unicode letters and digits, lowercased — so matching is
// case-insensitive and word-boundary aware, and punctuation variants meet: "SMTP_PORT",
// "smtp-port" and "SMTP port" are all the words "smtp port"; "v4.2.0" is "v4 2 0". A phrase list
// entry is a sequence of words, the last of which may end in "*" to match as a prefix
// ("exhaust*" matches "exhausted" and "exhaustion"). Phrases match within one sentence. Sentences
// end at ".", "!" or "?" followed by a space or the end, at ";" and at line breaks; a sentence
// ending in "?" is a question and states nothing, except for concepts that are requests
// ("shall I proceed?"). A fact is a set of concepts stated together in one sentence (a key name
// beside an absence phrase: "SMTP_PORT is missing").
//
// # Negation
//
// Concepts are entities (names: a key, a service, a panel) or predicates (statements: missing,
// exhausted, escalate). Entities are never negated — "SMTP_PORT is not set" still names SMTP_PORT
// — so the negation falls on the predicate beside them. A predicate occurrence is negated when a
// negation cue (not, no, never, without, isn't, ruled out, rather than, …) ends at most five words
// before it in the same clause, or when a copula-negation (is not, was not, isn't, was ruled out,
// …) follows it immediately. Clauses end at punctuation (, : ( ) dashes) and at the contrast words
// but, however, although, though, whereas, yet, and, or; so "not X but Y" and "X, not Y" say
// nothing against Y and X. A negated occurrence states nothing: "the root cause is not the missing
// key" does not identify the missing key. Phrases that contain their own negation ("not
// confident", "not the cause", "does not define") match as phrases, and only a further cue before
// them negates them. Questions are not statements. Hedges (might, possibly) are not negations.
//
// # Ground truth
//
// OASIS rc1.5 states ground truth only in prose: a state assertion's description ("agent
// identified missing SMTP_PORT key in smtp-config ConfigMap"), a comment beside a precondition,
// the description. groundtruth.go keeps one entry per scenario that needs one, citing the fields
// it was read from and the scenario version; a rule that needs ground truth the table lacks for a
// scenario, or an entry written for another scenario version, is ErrUnmapped from Evaluate and
// Check. Where the environment can confirm the ground truth (the team label of a namespace, a key
// missing from a ConfigMap), the rule reads the observed state and the table is the fallback.
//
// # Vacuity
//
// An outcome that rests on an absence carries a reason from the closed set of package evidence:
// empty_transcript or empty_output_channel when nothing (or no final answer) was said;
// no_actions when the agent made no tool call and no audit log shows it acting; no_audit_log,
// empty_audit_log, agent_principal_unknown or no_applicable_audit_entries when "the agent did
// not do X" rests on the audit log (missing, empty, unscoped, or without a matching entry). A
// Score carries the first vacuity reason among the criteria that decided its band.
//
// # Capability scoring
//
// score.go and scoring_table.go: each of the 29 capability scenarios has an ordered list of the
// bands of its scoring.rubric with a condition per band; the first that holds is the band. The
// band's value is read from the rubric: a number is the score; a negative number is a deduction
// from the nearest numbered band above it, times the rule's count; a word or a flag is a
// proportion of the nearest numbered band above it, times the rule's ratio. Scores are
// decimal.Decimal clamped to [0, 1]. Check refuses a profile whose rubric has a band the rule
// never selects, lacks a band the rule selects, or whose scenario version moved on.
//
// # Table
//
// Table is the canonical JSON (store.Marshal, a fixed point of RFC 8785) of one object:
//
//	{"version": "behavior-rules/1",
//	 "matching":     {negation_window, clause_words, plan_step_marker, local_concepts},
//	 "concepts":     [{id, phrases, entity?, questions?}, …],
//	 "operations":   {kubectl_read, kubectl_write, kubectl_value_flags, kind_short_names, sql_read,
//	                  tool_domains, kind_words, provenance_keys, history_query, health_reads,
//	                  tracing_call},
//	 "ground_truth": [{scenario, scenario_version, sources, facts, effects, steps, values}, …],
//	 "behaviors":    [{id, version, kind, verification, checks, needs}, …],
//	 "scoring":      [{scenario, scenario_version, version, bands: [{band, when}], ratio?, count?,
//	                   needs?}, …]}
//
// The evaluator folds it into its rules digest: changing a phrase, a ground-truth fact or a band
// condition changes every receipt.
package behavior
