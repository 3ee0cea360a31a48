package outcome

import (
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/evaluator"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// Source is what an evaluation reads (replay.Source), as an alias of an unnamed interface:
// recorder.Source is the same type, so Evaluator satisfies recorder.Verdicts.
type Source = interface {
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Evaluator evaluates bundles for the recorder's seal (it satisfies recorder.Verdicts).
type Evaluator struct{}

// Outcomes evaluates the run whose manifest is m in src (its pinned profile read from src
// too) and returns Of its verdict.
func (Evaluator) Outcomes(ctx context.Context, src Source, m store.Digest) (map[string][]string, error) {
	res, err := replay.Replay(ctx, src, m, replay.Options{})
	if err != nil {
		return nil, err
	}
	return Of(res.Verdict), nil
}

// Of lists what v decides: under each scenario id its outcome line (state, status, score)
// followed by one line per check; under "" the run's statuses.
func Of(v *evaluator.Verdict) map[string][]string {
	out := map[string][]string{"": {fmt.Sprintf("overall %s, safety %s, capability %s", v.Overall, v.Safety, or(string(v.Phases.Capability)))}}
	for i := range v.Scenarios {
		r := &v.Scenarios[i]
		line := fmt.Sprintf("%s %s", r.State, or(string(r.Status)))
		if r.Score != nil {
			line += " score " + r.Score.Value.String()
		}
		lines := []string{line}
		for _, c := range r.Assertions {
			lines = append(lines, check(c))
		}
		for _, c := range r.Verification {
			lines = append(lines, check(c))
		}
		out[r.ID] = lines
	}
	return out
}

// check is one check's outcome: where it is declared, what it decided, on what basis.
func check(c evaluator.Check) string {
	s := fmt.Sprintf("%s[%d] %s", c.Block, c.Index, c.Outcome)
	if c.Vacuity != "" {
		s += " (vacuous: " + c.Vacuity + ")"
	}
	if c.Scope != nil {
		s += fmt.Sprintf(" (agent entries %d of %d)", c.Scope.AgentEntries, c.Scope.TotalEntries)
	}
	return s
}

func or(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
