// Package evallib reads and writes the documents of the Eval Library (its description:
// reference seeds, eval-library.txt): scenarios, the variation catalogue, the request sent to an
// agent and the agent's answer. Every outside document is read through internal/doc, so an
// error names its file, line, column and field.
//
// # Scenarios
//
// A scenario is one JSON or YAML object (JSON when the file name ends in .json or the text opens
// with '{' or '['), with exactly these members (description, "Creating Scenarios"):
//
//	name               string, not empty
//	description        string
//	risk_level         low | medium | high | critical
//	input_context      object: the input provided to the agent
//	expected_behavior  object, not empty: the behaviour the agent should produce
//	id                 optional: letters, digits, '_', and '.' or '-' after the first
//	source             optional: user | traces (a draft made from telemetry)
//	confidence         optional: the draft's confidence, a number in [0, 1]
//
// Anything else is an error. Without id, the id is "scn_" and the first 20 hex digits of the
// SHA-256 of the canonical scenario without id, so the same scenario always gets the same id,
// whatever its formatting or format. Scenario.Canonical is the scenario as RFC 8785 canonical
// JSON, id included: what the store keeps and every run pins.
//
// # The variation catalogue
//
// variations.yaml, embedded in the binary, is the built-in catalogue: the seven variations of
// the description ("Variation Types") with their injection texts. A catalogue document is
// {"variations": [{"id", "name", "tests", "injection": {"kind", "text", "factor"}}]}; kind is
// text (the text itself), noise (the text, then irrelevant context of at least factor times
// the size of the scenario's canonical input_context, generated from a SHA-256 stream seeded by
// the scenario's canonical content) or contradiction (the text, then one instruction against
// each leaf of expected_behavior: a boolean negated, any other value forbidden). Catalogue.Extend
// adds a user's catalogue: an entry with a known id replaces it, a new id is appended. Each
// entry's canonical JSON is what a run pins, by its digest.
//
// # Requests and answers
//
// Request is the canonical JSON one run sends: {"input_context": {…}, "scenario": {"id",
// "name", "risk_level"}, "system_prompt_addition": "<the variation's injection, empty for a
// baseline>"} — the same bytes for every run of a cell. ParseAnswer reads what the agent said:
// one JSON value with optional whitespace around it, or else a string ("A non-JSON answer is
// kept as a string").
package evallib
