// Package evallib is the Eval Library kept in a store: scenarios and their versions, plans that
// say which runs a matrix needs and which it reuses, matrices sealed as bundles with their
// verdicts, the review queue, and the report people read (terminal heatmap, HTML, CSV, JSON).
//
// # State in refs
//
// Everything is immutable content; what changes is a ref under store.RefEvalPrefix pointing at
// an object that names its predecessor, so history is kept and garbage collection sees what is
// live:
//
//	eval/scenarios/<id>         the latest version of a scenario (each names the previous one)
//	eval/cells/<key>            the runs recorded for a cell key (agent and its files + request digest)
//	eval/matrices/<set>         the latest matrix over a set of scenarios
//	eval/latest-matrix          the latest matrix of all
//	eval/verdicts/<bundle>      the receipt of a bundle's verdict (stored when a run or matrix is sealed)
//	eval/review/<item>          the latest state of a review item (each names the previous one)
//
// # Matrices
//
// NewPlan resolves scenarios and variations and builds each cell's request and key (CellKey:
// the agent as reached, its version label, the digests of its files as they are when the plan is
// made (evalrun.FilesOf) and the request digest); runs already recorded under
// a key are reused unless Rerun, when the plan's limits would have given them the same outcome
// (evalrun.Limits.Reusable). RunMatrix executes the plan (recorder/evalrun), every run sealed
// with its verdict and receipt, and SealMatrix seals the matrix: a store.EvalMatrix bundle
// naming every cell's run bundles, pinning every
// scenario and variation entry, carrying the flag thresholds, and naming the previous matrix of
// the same scenarios; its verdict and receipt are stored, and every flagged cell without a
// review item gets an open one. A matrix that equals its predecessor (every run reused) is that
// matrix again, not a new one.
//
// # Drafts
//
// DraftScenarios drafts scenarios from skill.invoke spans (Invocations): recurring patterns,
// decision points and edge cases, with a confidence; DraftFromStore does so from the span
// sources of the Kensa runs in the store (StoreSpans). The same spans give the same drafts.
//
// # Review queue
//
// A review item (ReviewItemID: the cell's scenario, variation and run bundles) goes open →
// acknowledged → resolved, or open → resolved; each state is a store.EvalReview with a note and
// who made it. The same evidence flagged again is the same item and is not reopened.
//
// # Reports
//
// NewReport compares a matrix with its predecessor (changes, regressions: newly flagged, a worse
// band, a lower match rate). WriteText draws the heatmap (green up to 0.2, amber up to 0.5, red
// above; colour or a G/A/R marker; "✗" after a cell whose match rate is below the report's
// minimum, SetMinMatch, DefaultMinMatch 0.5), WriteHTML a self-contained page (inline SVG, a
// match-rate bar under each cell, no external asset), WriteCSV one row per cell, WriteJSON the
// issue's {"cells": [...]} with numbers rounded to three places.
package evallib
