// Package golden is the determinism corpus of oasis-replay and its runner: a directory of
// bundles, each with the verdict, receipt and bundle digest it must give, byte for byte. It
// answers the question an evaluation provider asks in CI — "did this build of the recorder or
// the evaluator change anything on the recorded evidence?" — and proves OASIS Core §3.5.4 on
// every case: the same recorded evidence through the same evaluator gives the same verdict.
//
// # Corpus directory
//
// A corpus is one directory; a case is a set of files sharing a name (lowercase letters,
// digits, '.', '_', '-'):
//
//	<name>.recipe.yaml       input: how to record the bundle (below), or
//	<name>.bundle.tar.zst    input: an archive written by `oasis-replay bundle export`
//	<name>.bundle            golden: the bundle digest, "sha256:<64 hex>\n"
//	<name>.verdict.json      golden: the canonical verdict bytes (no trailing newline)
//	<name>.receipt.json      golden: the canonical receipt bytes (no trailing newline)
//	<name>.receipt.dsse.json optional: the receipt signed (package attest), see "Signatures"
//
// Exactly one input per case. The verdict and receipt files hold exactly the bytes whose
// SHA-256 the receipt names, so `sha256sum <name>.verdict.json` is the receipt's verdict digest,
// and the verdict is what `oasis-replay replay --json` prints for the bundle. A golden output
// without an input is an error; sub-directories are not read as cases (recipes may keep their
// inputs there, as testdata/corpus/inputs does), and other files (a README) are ignored.
//
// An archive pins a bundle as it was recorded once: its digest never changes, whatever later
// recorders would make of the same input, so it proves that old bundles still replay to the
// same verdict. Archives of data the project owns may be committed; keep them small. A recipe
// re-records its bundle on every run, so it also catches a change in recording: the bundle
// digest is compared too.
//
// # Recipes
//
// A recipe is one YAML document; unknown fields are errors.
//
//	description: what the case covers (for people)
//	profile: $SHARED/oasis-spec/profiles/software-infrastructure   # a profile directory
//	profile_commit: b02891f73c61f9d7429426b360b330e5d995605a        # optional, in the pin
//	# then exactly one source:
//	oasisctl: $SHARED/fixtures/oasisctl/unsafe     # as `record oasisctl DIR`
//	files: {scenario: ID, audit_log: …, before: …, after: …, transcript: …,
//	        agent_principal: …, agent: {name, version}, configuration: {dim: value},
//	        tier: N, timestamp: RFC 3339}          # as `record files`
//	synthetic: {…}                                 # a run written out in the recipe
//
// Paths are locations: relative to the corpus directory, absolute, or below a variable. The
// shared test data is never copied into a corpus; recipes name it through a variable:
//
//   - $SHARED (or ${SHARED}) is the shared test data directory (Options.Shared; the CLI's
//     --shared flag or $OASIS_REPLAY_SHARED). A case that needs it where it is not available,
//     or needs a path it lacks, is skipped with a message naming the path.
//   - $EXAMPLE is the built-in example (package internal/example): $EXAMPLE/profile is the example profile,
//     $EXAMPLE/run the example run. Cases over it need nothing outside the binary.
//
// The profile is imported into the case's store first; every source pins the run to it. The
// recorder version written in recorded manifests is RecorderVersion, not the program's, so a
// release does not change the corpus.
//
// A synthetic run states exactly the evidence a verdict path needs:
//
//	synthetic:
//	  agent: {name: example-agent, version: 2.3.0}
//	  configuration: {operational_mode: read_write}   # the effective agent configuration
//	  tier: 1                                         # default 1
//	  timestamp: "2026-06-03T09:00:00Z"               # the timestamp annotation
//	  core_spec_version: 1.0.0-rc1.5                  # default: the evaluator's
//	  findings: [{code, severity, scenario, message}] # what a recorder noticed
//	  scenarios:                                      # run order
//	    - id: example.safety.nb.out-of-scope-restart-001
//	      from: $EXAMPLE/run         # this scenario's evidence in that oasisctl run, as is
//	    - id: …
//	      no_evidence: true          # listed without evidence (a failed provision)
//	    - id: …
//	      final_answer: …            # or the evidence written out
//	      reasoning: …
//	      actions: [{id, tool, arguments: <YAML value or JSON text>, result, error}]
//	      observations:
//	        - type: audit_log        # resource_state, state_diff, response_content
//	          source: {type: kube_apiserver_audit_log, status: unreachable}  # absent: no block
//	          environment_id: …
//	          timestamp: …
//	          phase: before          # resource_state snapshots
//	          agent_principal: …
//	          media_type: …          # default: the observation type's
//	          data: {entries: […]}   # a YAML value, stored as JSON text; or
//	          raw: "…"               # the payload byte for byte
//
// YAML values become JSON deterministically: mappings in document order (a repeated key is an
// error), !!int and !!float as numbers (a float must be a valid JSON number), !!bool, !!null,
// everything else as strings. A `from` run is recorded into the case's store with the recipe's
// profile, so the synthetic manifest refers to exactly the evidence objects that recording
// made; the synthetic manifest's recorder source is SourceSynthetic.
//
// # Check
//
// Corpus.Check runs the cases one after the other, each in a fresh scratch store (in memory, opened by
// Options.NewStore), never the user's store: it records or imports the bundle, evaluates it DefaultRuns times with
// replay.Bundle.Repeat (GOMAXPROCS 1, 2, 4 and 8, one worker and GOMAXPROCS workers, permuted
// scenario orders) and requires one verdict digest, then compares the bundle digest, the
// canonical verdict and the canonical receipt with the golden files byte for byte. Each
// mismatch is reported with the differences as stable JSON Pointer paths (doc.Diff),
// a note when only the receipt's rules digest moved (the evaluator's tables changed, not the
// verdict), and, for verdicts, go-cmp's rendering of the decoded documents for people. go-cmp
// randomises its layout between processes on purpose and may panic; its text is recovered
// from, printed and never stored or compared.
//
// Corpus.Update does the same and rewrites each golden file that differs, atomically (a
// temporary file in the same directory, synced, then renamed), and reports what it created or
// changed. A case whose evaluations diverge is not written. Archives are inputs and are never
// rewritten.
//
// A case ends ok, updated, MISMATCH (a golden file differs, or the evaluations diverged),
// skipped (shared data unavailable) or ERROR (the case cannot be built or evaluated: a broken
// recipe, a missing input, an evaluator validation error). `golden check` exits 0 when every
// case is ok (or skipped, with --allow-skip), 1 on a mismatch or a skipped case, 2 on an error.
// FindShared finds the shared test data where the project's tests do (../shared beside the
// repository), so a check from a clone runs the cases the tests run.
//
// # Signatures
//
// With Options.Signer, Update also writes each case's signed receipt, <name>.receipt.dsse.json:
// a DSSE envelope around an in-toto statement naming the case's bundle, profile tree,
// evaluator, verdict and receipt (package attest). Ed25519 signatures and canonical JSON are
// deterministic, so the file changes only when what it states, or the key, changes. With
// Options.Trusted, Check requires every case to carry one that verifies with that key and
// names exactly what the case gives; a missing or invalid one makes the case MISMATCH. Without
// either, signature files are left alone (`golden check --key KEY.pub`, `golden update --sign
// KEY`).
//
// # Records
//
// A case's outcome also has a form that is the same on every machine, Record (no go-cmp
// rendering, no timing): what `golden check --json` prints and what a shard pushes to a remote
// under RecordName, so that the records of N shards, read back, are those of one check.
// WriteRecords renders them as Report.WriteText renders the check: one renderer serves both.
//
// # Adding a case
//
// Write <name>.recipe.yaml (or export an archive next to it), run `oasis-replay golden update
// DIR` (or `go test ./golden -update` for the committed corpus), read the verdict it wrote and
// commit all four files. The committed corpus, testdata/corpus, covers every verification
// block and every verdict path of the evaluator; its cases over the example profile run
// everywhere, those over the SI profile where the shared test data is present.
package golden
