// Package kensa reads the files of a Kensa .kensa directory (github.com/satyaborg/kensa,
// v0.7.0, the legacy line) and validates them: scenarios (scenarios/*.yaml), judge specs
// (judges/*.yaml), JSONL datasets, traces in Kensa's converted span model (traces/*.jsonl), run
// manifests (runs/<run_id>.json) and results (results/<run_id>.json). It also holds Kensa's
// price table logic (pricing.py), used to cost spans that state no cost.
//
// # Fidelity
//
// Every file is parsed by the project's document model (internal/doc), and read with the
// types Kensa's Python gets (a trace, when it is well formed, by a fast path that builds the
// same spans without a tree: ReadTrace, tracescan.go): YAML plain scalars are resolved by PyYAML's YAML 1.1 rules on the
// text as written (doc.Node.YAMLScalar: yes/no/on/off are booleans, 010 is octal 8, 1e3 is a
// string, 1.0e+3 a float); JSON numbers with a fraction or exponent are floats, others integers
// (internal/pyvalue.FromNode). doc is stricter than Python where it leaves room (a key given
// twice, NaN in JSON): docs/decisions.md, "Kensa files through the document model". Validation is pydantic's where Kensa's models have a rule (required
// fields, types without coercion of numbers to strings, dataset and input_field together,
// criteria xor judge, at most one trajectory check, list params as non-empty lists of
// strings, trajectory params), and stricter where Kensa is silent: unknown fields, check
// params of the wrong type or missing, and placeholders without a dataset are errors. Every
// error is a *doc.Error naming the file, line, column and field path
// ("scenarios/x.yaml:12:5: checks[2].params.tools: …"); validation errors wrap ErrInvalid.
//
// Kensa v0.7.0 requires run_command to be a list of argv strings and appends the input as the
// last argument. The scenario format's own description shows a string with an {{input}}
// placeholder; both are read (docs/decisions.md, "Kensa run_command").
//
// Later Kensa lines (0.9.0 and up, kensa-sh/kensa: pytest cases, kensa.result.v1) are a
// different format altogether; this package reads v0.7.0 only (docs/decisions.md, "Kensa
// versions read").
package kensa
