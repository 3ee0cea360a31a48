package evallib

import (
	"context"
	"errors"
	"fmt"
	"strings"

	evalmetric "github.com/oasis-replay/oasis-replay/evaluator/evallib"
	"github.com/oasis-replay/oasis-replay/store"
)

// ReviewItemID names the review item of a flagged cell: "rev_" and 16 hex digits of the digest
// of the cell's scenario, variation and run bundles. The same evidence flagged again (a matrix
// re-run that reused every run of the cell) is the same item; new runs make a new item.
func ReviewItemID(c *evalmetric.CellVerdict) string {
	var b strings.Builder
	b.WriteString(c.Scenario + "\n" + c.Variation)
	for _, d := range c.Bundles {
		b.WriteString("\n" + d.String())
	}
	return "rev_" + store.Sum([]byte(b.String())).Hex()[:16]
}

// openReviews opens a review item for every flagged cell of the verdict that has none yet, and
// returns their ids, in cell order.
func openReviews(ctx context.Context, st store.Store, matrix store.Digest, m *store.EvalMatrix, v *evalmetric.MatrixVerdict) ([]string, error) {
	var opened []string
	for i := range v.Cells {
		c := &v.Cells[i]
		if !c.Flagged {
			continue
		}
		id := ReviewItemID(c)
		if _, err := st.GetRef(ctx, store.EvalReviewRefName(id)); err == nil {
			continue
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		item := &store.EvalReview{Item: id, Matrix: store.Descriptor{MediaType: store.MediaTypeEvalMatrix, Digest: matrix},
			Scenario: c.Scenario, Variation: c.Variation, RiskLevel: c.RiskLevel, Shift: c.ShiftMagnitude.Value,
			Threshold: c.Threshold, State: store.EvalReviewOpen, Sequence: 1}
		if err := putReview(ctx, st, item); err != nil {
			return nil, err
		}
		opened = append(opened, id)
	}
	return opened, nil
}

func putReview(ctx context.Context, st store.Store, r *store.EvalReview) error {
	desc, err := store.Put(ctx, st, r)
	if err != nil {
		return fmt.Errorf("evallib: store review %s: %w", r.Item, err)
	}
	if err := st.Sync(ctx); err != nil {
		return err
	}
	return st.SetRef(ctx, store.EvalReviewRefName(r.Item), desc.Digest)
}

// ReviewItem is the latest state of a review item.
type ReviewItem struct {
	Object store.Digest
	*store.EvalReview
}

// Reviews returns the latest state of every review item, by id; state filters them when not
// empty.
func Reviews(ctx context.Context, r Reader, state string) ([]ReviewItem, error) {
	refs, err := r.ListRefs(ctx, store.RefEvalReviewPrefix)
	if err != nil {
		return nil, err
	}
	var out []ReviewItem
	for _, ref := range refs {
		item, err := loadReview(ctx, r, ref.Digest)
		if err != nil {
			return nil, err
		}
		if state == "" || item.State == state {
			out = append(out, ReviewItem{Object: ref.Digest, EvalReview: item})
		}
	}
	return out, nil
}

func loadReview(ctx context.Context, r Reader, d store.Digest) (*store.EvalReview, error) {
	b, err := r.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("review %s: %w", d.Short(), err)
	}
	var item store.EvalReview
	if err := store.Decode(b, &item); err != nil {
		return nil, fmt.Errorf("review %s: %w", d.Short(), err)
	}
	return &item, nil
}

// ReviewHistory returns every state of review item id, latest first.
func ReviewHistory(ctx context.Context, r Reader, id string) ([]ReviewItem, error) {
	d, err := r.GetRef(ctx, store.EvalReviewRefName(id))
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalidRef) {
		return nil, fmt.Errorf("%w: no review item %q", ErrUnknownReview, id)
	}
	if err != nil {
		return nil, err
	}
	var out []ReviewItem
	for {
		item, err := loadReview(ctx, r, d)
		if err != nil {
			return nil, err
		}
		out = append(out, ReviewItem{Object: d, EvalReview: item})
		if item.Previous == nil {
			return out, nil
		}
		d = item.Previous.Digest
	}
}

// Transition moves review item id to state (acknowledged or resolved) with a note and who made
// the change. An item goes open → acknowledged → resolved, or straight from open to resolved;
// a resolved item stays resolved.
func Transition(ctx context.Context, st store.Store, id, state, note, by string) (*ReviewItem, error) {
	history, err := ReviewHistory(ctx, st, id)
	if err != nil {
		return nil, err
	}
	cur := history[0]
	allowed := map[string][]string{
		store.EvalReviewOpen:         {store.EvalReviewAcknowledged, store.EvalReviewResolved},
		store.EvalReviewAcknowledged: {store.EvalReviewResolved},
	}[cur.State]
	ok := false
	for _, s := range allowed {
		ok = ok || s == state
	}
	if !ok {
		return nil, fmt.Errorf("%w: item %s is %s and cannot become %s", ErrReview, id, cur.State, state)
	}
	if strings.TrimSpace(by) == "" {
		return nil, fmt.Errorf("%w: say who makes the change (--by)", ErrReview)
	}
	next := *cur.EvalReview
	next.State, next.Note, next.By = state, note, by
	next.Sequence = cur.Sequence + 1
	next.Previous = &store.Descriptor{MediaType: store.MediaTypeEvalReview, Digest: cur.Object}
	if err := putReview(ctx, st, &next); err != nil {
		return nil, err
	}
	d, err := st.GetRef(ctx, store.EvalReviewRefName(id))
	if err != nil {
		return nil, err
	}
	return &ReviewItem{Object: d, EvalReview: &next}, nil
}
