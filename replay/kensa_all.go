package replay

import (
	"context"
	"fmt"
	"slices"

	"github.com/oasis-replay/oasis-replay/store"
)

// KensaReplayed is one run re-derived by ReplayAllKensa.
type KensaReplayed struct {
	Bundle   store.Digest `json:"bundle"`
	Scenario string       `json:"scenario"`
	Case     int          `json:"case"`
	RunID    string       `json:"run_id"`
	Status   string       `json:"status"`
	Verdict  store.Digest `json:"verdict"`
	// Receipt is zero when receipts were not asked for.
	Receipt store.Digest `json:"receipt,omitempty"`

	canonical []byte
	receipt   Receipt
}

// ReplayAllKensa re-derives the verdict (and with receipts set, the receipt) of every Kensa run
// sealed in s (of the scenarios named, or all), in digest order, loading and evaluating runs
// concurrently (EachKensa).
func ReplayAllKensa(ctx context.Context, s store.Store, scenarios []string, receipts bool) ([]KensaReplayed, error) {
	return ReplayKensaWhere(ctx, s, nil, scenarios, receipts)
}

// ReplayKensaWhere is ReplayAllKensa over the runs whose bundle digest keep accepts (all when
// keep is nil): one shard of them (internal/shard).
func ReplayKensaWhere(ctx context.Context, s store.Store, keep func(store.Digest) bool, scenarios []string, receipts bool) ([]KensaReplayed, error) {
	var want func(*store.KensaRun) bool
	if len(scenarios) > 0 {
		want = func(m *store.KensaRun) bool { return slices.Contains(scenarios, m.Scenario) }
	}
	all, err := EachKensaWhere(ctx, s, keep, want, func(b *KensaBundle) (*KensaReplayed, error) {
		evaluate := b.Verdict
		if receipts {
			evaluate = b.Evaluate
		}
		res, err := evaluate()
		if err != nil {
			return nil, err
		}
		out := &KensaReplayed{Bundle: b.Digest, Scenario: b.Manifest.Scenario, Case: b.Manifest.Case, RunID: b.Manifest.RunID,
			Status: res.Result.Status, Verdict: res.Verdict, Receipt: res.Receipt.Digest}
		if receipts {
			out.canonical, out.receipt = res.Canonical, res.Receipt // to be stored (SaveAllKensa)
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]KensaReplayed, 0, len(all))
	for _, r := range all {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, nil
}

// SaveAllKensa stores the verdicts and receipts of runs (replayed with receipts) as SaveReceipt does, with one sync and
// one write of the refs (store.SetRefs) instead of one of each per run. A verdict or receipt
// the store holds as an object already (the runs were replayed before, or share evidence) is
// not put again: its digest names its bytes, and a put would check them only to find them there.
func SaveAllKensa(ctx context.Context, w store.Store, runs []KensaReplayed) error {
	for _, r := range runs {
		for _, obj := range []struct {
			b    []byte
			want store.Digest
		}{{r.canonical, r.Verdict}, {r.receipt.Canonical, r.Receipt}} {
			if e, err := w.Stat(ctx, obj.want); err == nil && e.Kind != "" {
				continue
			}
			desc, err := w.PutObject(ctx, obj.b)
			if err != nil {
				return fmt.Errorf("replay: store %s of bundle %s: %w", obj.want, r.Bundle, err)
			}
			if desc.Digest != obj.want {
				return fmt.Errorf("%w: the store names %s as %s", store.ErrCorrupt, obj.want, desc.Digest)
			}
		}
	}
	if err := w.Sync(ctx); err != nil {
		return fmt.Errorf("replay: sync: %w", err)
	}
	refs := make([]store.Ref, len(runs))
	for i, r := range runs {
		refs[i] = store.Ref{Name: store.ReceiptRefName(r.Receipt), Digest: r.Receipt}
	}
	if err := store.SetRefs(ctx, w, refs); err != nil {
		return fmt.Errorf("replay: receipt refs: %w", err)
	}
	return nil
}
