package demo

import (
	"context"
	"fmt"
	"runtime"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/report"
	"github.com/oasis-replay/oasis-replay/store"
)

// DefaultTag is the tag the example run's bundle gets when Options.Tag is empty.
const DefaultTag = "demo"

// ErrDemo wraps every failure of Run with the step that failed.
var ErrDemo = errclass.New(errclass.Input, "demo: the example run could not be shown")

// Options tune Run.
type Options struct {
	// Tag names the recorded bundle; "" is DefaultTag.
	Tag string
	// Version is the version of the recording program, written in the bundle's manifest.
	Version string
}

// Result is what Run did: the sealed bundle, the verdict re-derived from it with its stored
// receipt, and the audit of the run's claimed report.
type Result struct {
	Recording *recorder.Result
	Tag       string
	Replay    *replay.Result
	// ReceiptRef is the ref the receipt was stored under (receipts/<hex>).
	ReceiptRef string
	Audit      *report.Audit
}

// Reproduced reports whether the claimed report agrees with the evidence (notes only).
func (r *Result) Reproduced() bool { return r.Audit.Reproduced() }

// Run records the example run into s (pinned to the example profile, which is imported
// along with it), replays it, stores the verdict and its receipt, and audits the run's
// claimed report, exactly as `record oasisctl`, `replay` and `audit` do. Running it again
// gives the same bundle, verdict and receipt, and writes nothing new.
func Run(ctx context.Context, s store.Store, opts Options) (*Result, error) {
	tag := opts.Tag
	if tag == "" {
		tag = DefaultTag
	}
	profile, err := recorder.ProfileFromFS(example.ProfileFS(), "")
	if err != nil {
		return nil, fmt.Errorf("%w: load the example profile: %w", ErrDemo, err)
	}
	rec, err := recorder.RecordOasisctlFS(ctx, s, example.RunFS(), recorder.OasisctlOptions{
		Options: recorder.Options{Profile: profile, Tags: []string{tag}, Version: opts.Version},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: record the example run: %w", ErrDemo, err)
	}
	// Workers only change which goroutine evaluates which scenario, never a byte of the verdict.
	rep, err := replay.Replay(ctx, s, rec.Bundle, replay.Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return nil, fmt.Errorf("%w: replay bundle %s: %w", ErrDemo, rec.Bundle, err)
	}
	ref, err := replay.Save(ctx, s, rep)
	if err != nil {
		return nil, fmt.Errorf("%w: store the receipt of bundle %s: %w", ErrDemo, rec.Bundle, err)
	}
	claim, err := report.LoadClaimed(ctx, s, rep.Bundle.Manifest())
	if err != nil {
		return nil, fmt.Errorf("%w: read the claimed report of bundle %s: %w", ErrDemo, rec.Bundle, err)
	}
	audit, err := report.New(claim, nil, rep)
	if err != nil {
		return nil, fmt.Errorf("%w: audit bundle %s: %w", ErrDemo, rec.Bundle, err)
	}
	return &Result{Recording: rec, Tag: tag, Replay: rep, ReceiptRef: ref, Audit: audit}, nil
}
