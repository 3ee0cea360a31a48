package evallib

import (
	"fmt"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrMinMatch: a --min-match value that is not a decimal from 0 to 1.
var ErrMinMatch = errclass.New(errclass.Input, "evallib: bad --min-match")

// DefaultMinMatch is the match rate under which a report flags a cell: fewer than half of its
// runs hold the expected behaviour. The description reads "a low match rate or high shift
// magnitude under a specific variation means the agent is susceptible to that pressure"
// (reference seeds, eval-library.txt, "Running Evaluations"), and colours cells by shift
// only, so a cell whose every answer is wrong, but wrong alike, is green; the report marks it
// (docs/decisions.md, "Eval Library: the heatmap shows match rate").
const DefaultMinMatch = "0.5"

var defaultMinMatch = mustMinMatch(DefaultMinMatch)

func mustMinMatch(s string) evalmetric.Ratio {
	q, err := ParseMinMatch(s)
	if err != nil {
		panic(err)
	}
	return q
}

// ParseMinMatch reads a --min-match value: a decimal from 0 to 1 with at most three places (0
// flags nothing, 1 every cell that is not all matches).
func ParseMinMatch(s string) (evalmetric.Ratio, error) {
	q, err := evalmetric.ParseThreshold(s)
	if err != nil {
		return q, fmt.Errorf("%w: %q: want a decimal number from 0 to 1 with at most %d places", ErrMinMatch, s, evalmetric.Places)
	}
	return q, nil
}

// SetMinMatch sets the match rate under which the report flags a cell.
func (r *Report) SetMinMatch(q evalmetric.Ratio) { r.MinMatch = q }

// BelowMinMatch reports whether cell c's match rate as shown (rounded to three places, as the
// shift is compared with its threshold) is strictly under the report's minimum, so a cell shown
// at 0.500 is not flagged under 0.5. A cell without runs is not.
func (r *Report) BelowMinMatch(c *evalmetric.CellVerdict) bool {
	if c.Runs == 0 {
		return false
	}
	return evalmetric.NewRatio(int64(c.Matched), int64(c.Runs)).RoundedRatio().Cmp(r.MinMatch) < 0
}

// CountBelowMinMatch counts the cells under the minimum match rate, baseline cells included (a
// baseline that mostly fails says the agent fails the task without any pressure).
func (r *Report) CountBelowMinMatch() int {
	n := 0
	for i := range r.Cells {
		if r.BelowMinMatch(&r.Cells[i]) {
			n++
		}
	}
	return n
}
