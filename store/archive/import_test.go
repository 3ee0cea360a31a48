package archive

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/store"
)

func importArchive(t testing.TB, s store.Store, archive []byte, opts ImportOptions) (Summary, error) {
	t.Helper()
	return Import(context.Background(), s, bytes.NewReader(archive), Limits{}, opts)
}

// TestRoundTrip exports a bundle, imports it into an empty store and exports it again: the
// second archive is byte-identical, the new store holds exactly the bundle's closure, and Verify,
// Import and Export agree on the summary.
func TestRoundTrip(t *testing.T) {
	for _, b := range []namedBuilder{synthetic, realRun("safe"), realRun("unsafe"), realRun("provider-fault")} {
		t.Run(b.name, func(t *testing.T) {
			tb := b.build(t)
			opts := ExportOptions{Tags: []string{"v1"}}
			if !tb.receipt.IsZero() {
				opts.Receipts = []store.Digest{tb.receipt}
			}
			var buf bytes.Buffer
			exported, err := Export(context.Background(), tb.s, tb.bundle, &buf, opts)
			if err != nil {
				t.Fatal(err)
			}
			archive := buf.Bytes()

			report, err := Verify(context.Background(), bytes.NewReader(archive), Limits{})
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if len(report.Entries) != exported.Objects+exported.Blobs {
				t.Errorf("Verify listed %d entries, Export wrote %d", len(report.Entries), exported.Objects+exported.Blobs)
			}
			if report.Entries[0].Digest != tb.bundle || report.Entries[0].Kind != store.KindRunManifest {
				t.Errorf("first entry %+v, want the run manifest", report.Entries[0])
			}

			s := newTestStore()
			imported, err := importArchive(t, s, archive, ImportOptions{ApplyTags: true})
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			for label, got := range map[string]Summary{"Verify": report.Summary, "Import": imported} {
				if !equalSummaries(got, exported) {
					t.Errorf("%s summary %+v, Export summary %+v", label, got, exported)
				}
			}

			again := export(t, testBundle{s: s, bundle: tb.bundle}, opts)
			if !bytes.Equal(again, archive) {
				t.Errorf("re-exporting the imported bundle gives other bytes")
			}
			var stored int
			_ = s.Walk(context.Background(), func(store.Entry) error { stored++; return nil })
			if stored != exported.Objects+exported.Blobs {
				t.Errorf("the store holds %d entries, the bundle has %d", stored, exported.Objects+exported.Blobs)
			}
		})
	}
}

func equalSummaries(a, b Summary) bool {
	return a.Bundle == b.Bundle && a.Profile == b.Profile && slices.Equal(a.Receipts, b.Receipts) && slices.Equal(a.Tags, b.Tags) &&
		a.Objects == b.Objects && a.Blobs == b.Blobs && a.ContentBytes == b.ContentBytes && a.ArchiveBytes == b.ArchiveBytes
}

func TestImportTwiceIsIdempotent(t *testing.T) {
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{Tags: []string{"v1"}, Receipts: []store.Digest{tb.receipt}})
	s := newTestStore()
	if _, err := importArchive(t, s, archive, ImportOptions{ApplyTags: true}); err != nil {
		t.Fatal(err)
	}
	first := s.snapshot()
	if _, err := importArchive(t, s, archive, ImportOptions{ApplyTags: true}); err != nil {
		t.Fatalf("second import: %v", err)
	}
	if second := s.snapshot(); second != first {
		t.Errorf("the second import changed the store:\nbefore:\n%s\nafter:\n%s", first, second)
	}
}

// TestImportSealsLast checks the write order of DESIGN §5: Sync, then the bundle ref, then the
// refs that point into the bundle.
func TestImportSealsLast(t *testing.T) {
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{Tags: []string{"v1"}, Receipts: []store.Digest{tb.receipt}})
	s := newTestStore()
	if _, err := importArchive(t, s, archive, ImportOptions{ApplyTags: true}); err != nil {
		t.Fatal(err)
	}
	want := []string{"sync", "ref bundles/" + tb.bundle.Hex(), "ref receipts/" + tb.receipt.Hex(), "ref tags/v1"}
	if !slices.Equal(s.ops, want) {
		t.Errorf("store calls %q, want %q", s.ops, want)
	}
}

func TestImportTags(t *testing.T) {
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{Tags: []string{"v1", "release-2026"}})
	cases := []struct {
		name     string
		apply    bool
		existing map[string]store.Digest
		wantErr  error
		wantRefs []string
	}{
		{"tags ignored unless asked", false, nil, nil, []string{"bundles/" + tb.bundle.Hex()}},
		{"tags applied", true, nil, nil, []string{"bundles/" + tb.bundle.Hex(), "tags/release-2026", "tags/v1"}},
		{"tag already on this bundle", true, map[string]store.Digest{"tags/v1": tb.bundle}, nil,
			[]string{"bundles/" + tb.bundle.Hex(), "tags/release-2026", "tags/v1"}},
		{"tag names another bundle", true, map[string]store.Digest{"tags/v1": store.Sum([]byte("other"))}, ErrTagConflict,
			[]string{"tags/v1"}},
		{"conflict ignored when tags are not applied", false, map[string]store.Digest{"tags/v1": store.Sum([]byte("other"))}, nil,
			[]string{"bundles/" + tb.bundle.Hex(), "tags/v1"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore()
			for name, d := range tc.existing {
				_ = s.SetRef(context.Background(), name, d)
			}
			sum, err := importArchive(t, s, archive, ImportOptions{ApplyTags: tc.apply})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Import error = %v, want %v", err, tc.wantErr)
			}
			if err == nil && !slices.Equal(sum.Tags, []string{"release-2026", "v1"}) {
				t.Errorf("Summary.Tags = %q", sum.Tags)
			}
			refs, _ := s.ListRefs(context.Background(), "")
			var names []string
			for _, r := range refs {
				names = append(names, r.Name)
			}
			if !slices.Equal(names, tc.wantRefs) {
				t.Errorf("refs %q, want %q", names, tc.wantRefs)
			}
		})
	}
}

func TestImportProgress(t *testing.T) {
	tb := buildRealBundle(t, "safe")
	archive := export(t, tb, ExportOptions{})
	var reports []Progress
	_, err := importArchive(t, newTestStore(), archive, ImportOptions{Size: int64(len(archive)), Progress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 3 {
		t.Fatalf("only %d progress reports", len(reports))
	}
	last := reports[len(reports)-1]
	if last.Done != int64(len(archive)) || last.Total != int64(len(archive)) {
		t.Errorf("last report %+v, want Done = Total = %d", last, len(archive))
	}
	if !strings.HasPrefix(reports[0].Entry, layoutName) {
		t.Errorf("first report names %q, want %s", reports[0].Entry, layoutName)
	}
}

func TestImportCancelled(t *testing.T) {
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := newTestStore()
	_, err := Import(ctx, s, bytes.NewReader(archive), Limits{}, ImportOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Import error = %v, want context.Canceled", err)
	}
	if refs, _ := s.ListRefs(context.Background(), ""); len(refs) != 0 {
		t.Errorf("a cancelled import left refs %v", refs)
	}
}

func TestLimitsResolve(t *testing.T) {
	got, err := Limits{MaxBlobSize: 1 << 40}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultLimits()
	want.MaxBlobSize = 1 << 40
	if got != want {
		t.Errorf("resolve = %+v, want %+v", got, want)
	}
	for _, bad := range []Limits{{MaxEntries: -1}, {MaxObjectSize: -5}, {MaxDecoderWindow: 512}} {
		if _, err := bad.resolve(); !errors.Is(err, ErrLimit) {
			t.Errorf("resolve(%+v) = %v, want ErrLimit", bad, err)
		}
	}
}
