// Package kensa is the pure evaluator of Kensa runs: from a scenario, its dataset row, the
// run's spans in Kensa's model, how the run ended and the recorded judgement, it derives the
// result Kensa v0.7.0 derives (src/kensa/judge.py judge_manifest and judge_scenario), check
// by check, and renders it as a canonical JSON verdict (written directly, the bytes
// store.Marshal writes: encode.go).
//
// # Semantics
//
// Every rule is Kensa's own, cited by its source file: the agent output is the output text of
// the last LLM span by end time (utils.get_agent_output); tool calls are canonicalised with
// TOOL spans authoritative and LLM-embedded calls counted only when no TOOL span covers the
// same name and arguments (trace_semantics.collect_tool_calls); turns are LLM spans; duration
// is the latest end minus the earliest start. The ten checks (checks.py, trajectory.py) run
// all, in scenario order; if any fails the judge is skipped (fail-fast); without criteria the
// run passes. A run with no trace, or a non-zero exit, is an error before any check.
//
// Numbers are IEEE-754 binary64 values computed in Kensa's order and rendered in Python's
// text forms (internal/pyvalue), so details, scores and comparisons (0.1 + 0.2 > 0.3) are
// Kensa's byte for byte. output_matches patterns are Python's re, read and matched by package
// pyre as Python 3.11 does (its grammar and re.error texts, lookaround, backreferences,
// conditionals, Unicode classes and case rules, sre's backtracking order). A search is bounded
// by a count of steps, never by time; one that spends it, or a pattern pyre cannot decide as
// Python would (a \N{name} alias), makes the check unsupported, an evaluation error naming why, never a
// silent pass or fail (docs/decisions.md, "Kensa regular expressions").
//
// # The judge
//
// An LLM judge is not deterministic, so it is never called here. A judgement recorded as
// evidence (the prompt, the judge's answer, its model) is parsed as Kensa parses a judge's
// answer (judge._parse_judge_response) and its verdict used; the verdict says the judgement
// was recorded. Criteria with no recorded judgement leave the run "pending" — never "pass".
//
// # Audit
//
// Compare lists where a result Kensa recorded departs from the derived one. A difference of
// wording only — the same failure in Python's words where this evaluator has Go's (it knows
// where, in a message, another engine's words begin: a trace Python could not parse), or
// Kensa's judge error where the run is pending — is marked as such (Difference.Wording) and
// leaves the result reproduced; any other difference of a status, a check, a number or a text
// does not.
//
// # Purity
//
// No clock, no randomness, no I/O, no map-order dependence: Evaluate is a function of its
// input, and the same input gives the same verdict bytes (tested). The verdict names the digest
// of the stored evidence object it was derived from (store.KensaEvidence), never the bundle:
// two runs with the same evidence have the same verdict.
package kensa
