// Package example is the built-in example of oasis-replay: a small OASIS profile and a run over
// it as the reference runner oasisctl writes one, embedded in the binary. `oasis-replay demo`
// records, replays and audits it (package demo); the golden corpus names it $EXAMPLE (package
// golden); tests use it. It is data only, so whatever uses it needs nothing but the binary.
//
// # The example profile (profile/)
//
// oasis-replay-example-profile 0.1.0 is written for this project and licensed with it
// (Apache-2.0); its identifier says it is not an OASIS profile. It follows the oasis-spec
// layout that profiles.Load reads: profile.md (metadata, category tables, subcategories,
// intent promotion, tier requirements, dimension weights), behavior-definitions.md,
// safety-categories.md, capability-categories.md, interface-types.md, stimulus-library.md,
// agent-configuration-schema.yaml, provider-conformance-requirements.yaml and seven scenarios.
// It loads with no error and one warning: no project scoring table exists for it, so the
// aggregation methods and weights are read from its prose (profiles doc, "Tables").
//
// Every scenario is decidable by the evaluator's generic machinery, with no interpretation
// table: structured actions in must, must_not and api_audit (forbidden and required), state
// assertions with the conditions the evaluator decides for any profile (exists, unchanged,
// labels_unchanged, rolled_back_or_unchanged, Available=True, replicas between, field pins),
// state_diff in both the flat and the by-kind form, value containment of a base64-stored
// Secret, a conditional assertion block, applicability on the schema's operational_mode, and
// one behaviour (audit_trail_is_immutable) whose rule needs no ground truth. Capability
// rubrics are numbered bands only, so the generic rule score:generic/v1 scores them
// (docs/decisions.md, "Capability scenarios of other profiles"). Its observability
// requirements are the only prose it has; the evaluator reads them through its table for this
// profile version.
//
// The four safety scenarios map to the core safety categories (Profiles §2.4): namespace
// boundaries (boundary violation, authority escalation, declared mode), change containment
// (blast radius), instruction integrity (prompt injection) and a domain-specific secret
// handling category. The three capability scenarios cover the four core dimensions (Profiles
// §2.5).
//
// # The example run (run/)
//
// An oasisctl output directory: verdict.json, the runner's report (the run's claimed
// report), and evidence/evidence-<scenario id>.json for each scenario (the evidence artifact
// of OASIS Reporting §1.2, core 1.0.0-rc1.11), with Kubernetes audit entries of the agent's
// service account among the provisioner's, the controllers' and the scheduler's, resource
// states and state diffs after the run, and the agent's transcript. The agent passes every
// safety scenario; in Phase 2 it scales a workload it was not asked to scale, so one
// capability scenario scores 0.5. The claimed report says exactly what the evidence gives, so
// the audit reproduces with no note.
//
// # The example Kensa project (kensa/)
//
// Two Kensa scenarios (kensa/scenarios/*.yaml) whose run_command is the program itself acting
// as a scripted support agent (`oasis-replay demo-agent kensa`, package internal/kensaagent):
// order-status always passes; refund-policy refunds on every other run (the agent's --flaky
// counter), so its runs pass and fail in turn and kensa stats shows the variance.
//
// # The example Eval Library scenarios (eval/)
//
// Two scenarios (eval/*.json): the description's "Escalate critical deployment failure"
// (critical) and a low-risk staging notice. The demo's scripted agent (`oasis-replay
// demo-agent eval`, package demo) answers both as expected, except that it gives in to
// authority bias on the critical one, so that cell is flagged and queued for review.
package example

import (
	"embed"
	"io/fs"
)

// files holds the example profile (profile/) and the example run (run/), embedded so that the
// demo, the tests and the golden corpus need nothing but the binary.
//
//go:embed profile run kensa eval
var files embed.FS

// FS returns the embedded example: the directories profile/, run/, kensa/ and eval/.
func FS() fs.FS { return files }

// ProfileFS returns the example profile: a directory in the oasis-spec layout (profile.md,
// behavior-definitions.md, …, scenarios/**/*.yaml) that profiles.Load accepts.
func ProfileFS() fs.FS { return sub("profile") }

// RunFS returns the example run: an oasisctl output directory (verdict.json and
// evidence/evidence-<scenario id>.json) that recorder.RecordOasisctlFS records.
func RunFS() fs.FS { return sub("run") }

// KensaFS returns the example Kensa project: scenarios/*.yaml, the content of a .kensa
// directory.
func KensaFS() fs.FS { return sub("kensa") }

// EvalFS returns the example Eval Library scenarios: *.json, one scenario each.
func EvalFS() fs.FS { return sub("eval") }

// sub roots the embedded files at dir. fs.Sub fails only for a malformed name, and both names
// are constants.
func sub(dir string) fs.FS {
	s, err := fs.Sub(files, dir)
	if err != nil {
		panic("example: embedded directory " + dir + ": " + err.Error())
	}
	return s
}
