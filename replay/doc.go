// Package replay re-derives the verdict of a recorded bundle and states it as a receipt: the
// one place where "evaluate this bundle" is defined, for the replay and audit commands and
// for anything else (a golden corpus runner) that must evaluate a bundle exactly as they do.
//
// # Replay
//
// Load reads a sealed bundle from a store: its run manifest, every scenario evidence object
// (evaluator.LoadRun) and the profile the manifest pins, loaded from the store's copy of the
// profile tree (profiles.LoadTree), never from a directory on disk: the pin's tree digest
// covers every byte of the profile, so the profile replayed is the profile recorded. A bundle
// whose profile tree is not in the store is ErrProfile.
//
// Bundle.Evaluate runs the pure evaluator (evaluator.Evaluate) and returns the verdict, its
// canonical bytes and the receipt. Options.Only selects scenarios; the verdict then says it is
// partial. Options.Workers only changes which goroutine evaluates which scenario.
//
// # Receipt
//
// A receipt (store.Receipt) is the compact statement "this evidence gives this verdict under
// this evaluator": the digests of the bundle, of the profile tree, of the verdict, and the
// evaluator's identity with the digest of its rule tables (evaluator.Info). The same bundle
// under the same evaluator build always gives the same receipt bytes. Save stores the verdict
// and the receipt as objects, syncs, and only then points the ref receipts/<receipt hex> at
// the receipt, so a crash never leaves a ref to a receipt whose verdict is missing (DESIGN §5
// write order). A partial verdict is stored too: the verdict object itself says it is partial.
//
// Result.Predicate is the receipt in its signable form (package attest: the run manifest, the
// pinned profile tree with its id and version, the evaluator, the verdict and receipt
// digests), and Result.Expect what a signed receipt must name to vouch for the result.
//
// # Repeat
//
// Bundle.Repeat is the determinism proof of Core §3.5.4 ("the same recorded evidence through
// the same evaluator must give the same verdict"): it evaluates the bundle N times under
// varying settings and requires byte-identical canonical verdicts. Run k (1-based) uses
// GOMAXPROCS 1, 2, 4, 8 in turn (k-1 mod 4), one worker on the first four runs of every eight
// and GOMAXPROCS workers on the next four, and, from run 2 on, a pseudo-random permutation of
// the scenario evaluation order (evaluator Options.Order) drawn from a PCG generator seeded
// with (Seed, k), so any run's settings can be reproduced from its number. The randomness only
// shuffles the order of independent work; it never reaches a verdict. The first run whose
// verdict differs from run 1's is reported as a Divergence: both settings, both digests, the
// differences (doc.Diff) and the first one mapped to a scenario and field. Repeat
// changes GOMAXPROCS of the whole process while it runs and restores it when it returns.
//
// # Kensa runs
//
// LoadKensa reads a Kensa run: its manifest, its evidence object, the definition tree with its
// scenario (and judge spec), and the run's input, dataset row, output, trace and judgement.
// EachKensa and ReplayAllKensa re-derive every Kensa run of a store in one process: runs are
// loaded in the order the store reads them at least cost (a ReadOrderer: Badger's store puts
// the records it packed together together), in batches whose manifests, then evidence objects,
// are read in one call each (an ObjectsGetter), on a few workers per processor, with one
// KensaReader that parses each definition once; results and the first error come in digest
// order whatever the order of loading. Nothing read is kept from one run to the next but what
// runs share (definitions, inputs, rows, outputs), and nothing derived: every verdict is
// evaluated anew.
//
// # Summary
//
// WriteSummary renders a verdict for people: overall and phase verdicts, the abort point, the
// preflight conformance check of the run's conformance answer with every unmet requirement
// (when the run recorded an answer), the categories and subcategories, the capability scores, every scenario with its status or score
// and the evidence that decided it (Evidence: the violated checks, DescribeCheck, and their
// citations, Cite: audit entry line, byte offset and auditID, snapshot field, channel and
// offset, …). WriteReceipt renders a receipt, WriteRepeat the proof or divergence of Repeat.
package replay
