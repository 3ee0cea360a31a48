package main

import (
	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/store"
)

// evaluationCommands are how replay and audit treat the bundles of one kind of evaluation. OASIS
// runs are handled by replay.go and audit.go themselves; every other kind of evaluation
// registers its handlers under its manifest kind, from a file of its own.
type evaluationCommands struct {
	// replay re-derives the verdict of bundle d, whose manifest is m, as `replay` does.
	replay func(c *cli.Context, s store.Store, d store.Digest, m store.Manifest) error
	// audit compares the recorded result of bundle d with what its evidence gives, as `audit`
	// does; nil when the kind records no claimed result.
	audit func(c *cli.Context, s store.Store, d store.Digest, m store.Manifest) error
	// expect re-derives the receipt of bundle d and returns what a signed receipt must name to
	// vouch for it, and the evaluator that derived it (receipt verify --bundle). A kind that
	// sets it makes and checks signed receipts in its replay and audit (--sign,
	// --require-signature); other kinds refuse those flags.
	expect func(c *cli.Context, s store.Store, d store.Digest) (attest.Expect, store.EvaluatorInfo, error)
}

// evaluations maps a bundle manifest kind to its commands.
var evaluations = map[store.Kind]evaluationCommands{}

// registerEvaluation adds the commands of one kind of evaluation; it is called from package-level
// variable initialisers.
func registerEvaluation(k store.Kind, cmds evaluationCommands) bool {
	if _, dup := evaluations[k]; dup {
		panic("evaluation commands registered twice for " + string(k))
	}
	evaluations[k] = cmds
	return true
}

// otherEvaluation returns the commands for bundle d and its manifest when d is not an OASIS run,
// and nil for an OASIS run, which the caller handles itself.
func otherEvaluation(c *cli.Context, s store.Store, d store.Digest) (*evaluationCommands, store.Manifest, error) {
	m, err := store.LoadBundleManifest(c.Context, s, d)
	if err != nil {
		return nil, nil, err
	}
	if _, isRun := m.(*store.RunManifest); isRun {
		return nil, m, nil
	}
	cmds, ok := evaluations[m.ObjectKind()]
	if !ok {
		return nil, nil, argsError(c, "bundle %s is a %s bundle, which this build cannot evaluate", d.Short(), m.ObjectKind())
	}
	return &cmds, m, nil
}
