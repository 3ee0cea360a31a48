package replay

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/internal/sharedtest"
	rkensa "github.com/oasis-replay/oasis-replay/recorder/kensa"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/badgerstore"
	"github.com/oasis-replay/oasis-replay/store/memstore"
)

// kensaStores are the stores Kensa runs are replayed from: Badger's (the program's) and the
// in-memory one.
var kensaStores = map[string]func(t testing.TB) store.Store{
	"badger": func(t testing.TB) store.Store {
		s, err := badgerstore.OpenInMemory(badgerstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	},
	"memstore": func(testing.TB) store.Store { return memstore.New() },
}

// sealKensa seals records into s.
func sealKensa(t testing.TB, s store.Store, records []*rkensa.Record) {
	t.Helper()
	if _, err := rkensa.SealAll(context.Background(), s, records, "test", nil); err != nil {
		t.Fatal(err)
	}
}

// importKensa reads the .kensa directory dir into records.
func importKensa(t testing.TB, dir string) []*rkensa.Record {
	t.Helper()
	records, err := rkensa.PlanImport(dir)
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// The verdict and receipt of every Kensa run — real Kensa's runs of the scripted agent, the
// shared fixture and generated runs — are those in testdata/kensa-verdicts, digest for digest,
// whether replayed all at once (ReplayAllKensa) or one by one (LoadKensa), from either store:
// how runs are read and verdicts encoded may change, their bytes may not (go test -update
// rewrites the files, for a change of the evaluator's version).
func TestKensaVerdictDigests(t *testing.T) {
	corpora := map[string]func(t *testing.T) []*rkensa.Record{
		"twoways":   func(t *testing.T) []*rkensa.Record { return importKensa(t, "../recorder/kensa/testdata/twoways") },
		"fixture":   func(t *testing.T) []*rkensa.Record { return importKensa(t, sharedtest.Path(t, "fixtures", "kensa")) },
		"generated": func(t *testing.T) []*rkensa.Record { return generateKensaRecords(t, 280) },
	}
	for name, records := range corpora {
		t.Run(name, func(t *testing.T) {
			recs := records(t)
			var golden []byte
			for storeName, open := range kensaStores {
				s := open(t)
				sealKensa(t, s, recs)
				got := replayedDigests(t, s)
				if golden == nil {
					golden = got
					goldenfile.Check(t, filepath.Join("testdata", "kensa-verdicts", name+".txt"), got, *update)
				} else if !bytes.Equal(got, golden) {
					t.Errorf("%s: the digests differ from the other store's:\n%s", storeName, goldenfile.Diff(golden, got))
				}
			}
		})
	}
}

// replayedDigests replays every Kensa run of s in both ways and lists, a line a run, its
// bundle, scenario, case, status, verdict and receipt.
func replayedDigests(t *testing.T, s store.Store) []byte {
	t.Helper()
	ctx := context.Background()
	all, err := ReplayAllKensa(ctx, s, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, r := range all {
		fmt.Fprintf(&out, "%s %s %d %s %s %s\n", r.Bundle.Short(), r.Scenario, r.Case, r.Status, r.Verdict, r.Receipt)
		b, err := LoadKensa(ctx, s, r.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		one, err := b.Evaluate()
		if err != nil {
			t.Fatal(err)
		}
		if one.Verdict != r.Verdict || one.Receipt.Digest != r.Receipt || !bytes.Equal(one.Canonical, r.canonical) {
			t.Errorf("bundle %s: replayed alone, verdict %s receipt %s; with the others, %s and %s", r.Bundle.Short(), one.Verdict, one.Receipt.Digest, r.Verdict, r.Receipt)
		}
	}
	return out.Bytes()
}

// BenchmarkReplayAllKensa re-derives 2,000 generated runs from Badger's in-memory store, as
// kensa replay --no-store does; scripts/bench-kensa.sh measures the whole program.
func BenchmarkReplayAllKensa(b *testing.B) {
	s := kensaStores["badger"](b)
	sealKensa(b, s, generateKensaRecords(b, 2000))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReplayAllKensa(context.Background(), s, nil, false); err != nil {
			b.Fatal(err)
		}
	}
}

// onlyStore hides every method but store.Store's: a store that reads objects one at a time.
type onlyStore struct{ store.Store }

// failingBatches is a store whose batched reads always fail.
type failingBatches struct{ store.Store }

func (failingBatches) GetObjects(context.Context, []store.Digest) ([][]byte, error) {
	return nil, store.ErrCorrupt
}

// Runs replayed all at once give the same verdicts, and the same error for a damaged run,
// whatever the store reads at once; the error is the first damaged run's in digest order, as
// replaying it alone words it.
func TestReplayAllKensaReads(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	sealKensa(t, s, generateKensaRecords(t, 3*kensaBatch+5))
	want, err := ReplayAllKensa(ctx, s, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]store.Store{"one at a time": onlyStore{s}, "failing batches": failingBatches{s}}
	for name, st := range stores {
		got, err := ReplayAllKensa(ctx, st, nil, false)
		if err != nil || !slices.EqualFunc(got, want, func(a, b KensaReplayed) bool { return a.Verdict == b.Verdict && a.Bundle == b.Bundle }) {
			t.Errorf("%s: %d runs, %v; want %d", name, len(got), err, len(want))
		}
	}
	damaged := []KensaReplayed{want[len(want)-3], want[7]}
	for _, r := range damaged {
		b, err := LoadKensa(ctx, s, r.Bundle)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, b.Evidence.Digest); err != nil {
			t.Fatal(err)
		}
	}
	_, wantErr := LoadKensa(ctx, s, damaged[1].Bundle)
	stores["memstore"] = s
	for name, st := range stores {
		if _, err := ReplayAllKensa(ctx, st, nil, false); err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: %v, want %v", name, err, wantErr)
		}
	}
}

// Saving the verdicts and receipts of runs again stores nothing new and keeps every receipt
// named by its ref.
func TestSaveAllKensaAgain(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	sealKensa(t, s, generateKensaRecords(t, 20))
	count := func() (n int) {
		if err := s.Walk(ctx, func(store.Entry) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	var counts []int
	for range 2 {
		runs, err := ReplayAllKensa(ctx, s, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := SaveAllKensa(ctx, s, runs); err != nil {
			t.Fatal(err)
		}
		counts = append(counts, count())
		for _, r := range runs {
			if d, err := s.GetRef(ctx, store.ReceiptRefName(r.Receipt)); err != nil || d != r.Receipt {
				t.Fatalf("receipt ref of %s: %s, %v", r.Bundle.Short(), d, err)
			}
		}
	}
	if counts[0] <= before || counts[1] != counts[0] {
		t.Errorf("entries: %d before, %d after saving, %d after saving again", before, counts[0], counts[1])
	}
}
