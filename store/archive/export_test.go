package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/store"
)

var update = flag.Bool("update", false, "rewrite golden files and the fuzz seed corpus under testdata/")

// decompress returns the tar stream inside an archive.
func decompress(t testing.TB, archive []byte) []byte {
	t.Helper()
	plain, err := decodeAll(archive)
	if err != nil {
		t.Fatalf("decompress: %v", err)
	}
	return plain
}

func decodeAll(archive []byte) ([]byte, error) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	return dec.DecodeAll(archive, nil)
}

func TestExportIsDeterministic(t *testing.T) {
	for _, b := range []namedBuilder{synthetic, realRun("safe")} {
		t.Run(b.name, func(t *testing.T) {
			first := b.build(t)
			opts := ExportOptions{Tags: []string{"v1", "audit_2026-05"}, Receipts: []store.Digest{first.receipt}}
			if first.receipt.IsZero() {
				opts.Receipts = nil
			}
			want := export(t, first, opts)

			again := export(t, first, opts)
			// The same bundle recorded into another store, exported with the options in
			// another order and on one core, must give the same bytes.
			second := b.build(t)
			reordered := opts
			reordered.Tags = []string{"audit_2026-05", "v1", "v1"}
			reordered.Receipts = append(opts.Receipts, opts.Receipts...)
			prev := runtime.GOMAXPROCS(1)
			other := export(t, second, reordered)
			runtime.GOMAXPROCS(prev)

			for label, got := range map[string][]byte{"same store": again, "other store, one core": other} {
				if !bytes.Equal(got, want) {
					t.Errorf("%s: archive differs (%d vs %d bytes, sha256 %x vs %x)", label, len(got), len(want), sha256.Sum256(got), sha256.Sum256(want))
				}
			}
		})
	}
}

// TestExportGolden pins the archive layout: entry order, every tar header field, the exact tar
// bytes (by digest) and index.json. It does not pin the compressed bytes, which belong to the
// zstd library version.
func TestExportGolden(t *testing.T) {
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{Tags: []string{"v1"}, Receipts: []store.Digest{tb.receipt}})
	plain := decompress(t, archive)

	var sb strings.Builder
	fmt.Fprintf(&sb, "tar sha256:%x (%d bytes)\n", sha256.Sum256(plain), len(plain))
	tr := tar.NewReader(bytes.NewReader(plain))
	var index []byte
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sb, "%c %04o uid=%d gid=%d uname=%q gname=%q mtime=%d format=%v pax=%d size=%d %s\n",
			hdr.Typeflag, hdr.Mode, hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname, hdr.ModTime.Unix(), hdr.Format, len(hdr.PAXRecords), hdr.Size, hdr.Name)
		if hdr.Name == indexName {
			if index, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	fmt.Fprintf(&sb, "index.json %s\n", index)
	goldenfile.Check(t, filepath.Join("testdata", "golden", "synthetic-archive.txt"), []byte(sb.String()), *update)
}

// TestHeaderFormat checks the deliberate tar format choice: USTAR headers, and a PAX size record
// only for an entry of 8 GiB or more, written the same way every time.
func TestHeaderFormat(t *testing.T) {
	for _, tc := range []struct {
		size    int64
		wantPAX bool
	}{
		{0, false},
		{1 << 30, false},
		{8<<30 - 1, false},
		{8 << 30, true},
		{9 << 30, true},
	} {
		t.Run(fmt.Sprint(tc.size), func(t *testing.T) {
			var first []byte
			for range 2 {
				var buf bytes.Buffer
				if err := tar.NewWriter(&buf).WriteHeader(header(blobName(store.Sum(nil)), tar.TypeReg, tc.size)); err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = buf.Bytes()
				} else if !bytes.Equal(first, buf.Bytes()) {
					t.Fatal("header bytes differ between two writes")
				}
			}
			if gotPAX := first[156] == tar.TypeXHeader; gotPAX != tc.wantPAX {
				t.Errorf("size %d: PAX extended header = %v, want %v", tc.size, gotPAX, tc.wantPAX)
			}
			if magic := string(first[257:263]); magic != "ustar\x00" {
				t.Errorf("magic %q, want USTAR", magic)
			}
		})
	}
}

// TestArchiveReadableByStandardTools checks the archive is a plain tar.zst: the zstd and tar
// commands list it and extract the same bytes.
func TestArchiveReadableByStandardTools(t *testing.T) {
	for _, tool := range []string{"sh", "zstd", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s command not installed", tool)
		}
	}
	tb := buildSyntheticBundle(t)
	archive := export(t, tb, ExportOptions{})
	dir := t.TempDir()
	file := filepath.Join(dir, "bundle.tar.zst")
	if err := os.WriteFile(file, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "zstd -q -d -c bundle.tar.zst | tar -xf - && cat index.json")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zstd | tar: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), tb.bundle.String()) {
		t.Errorf("extracted index.json does not name the bundle: %s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", tb.auditLog.Hex()))
	if err != nil {
		t.Fatal(err)
	}
	if store.Sum(b) != tb.auditLog {
		t.Errorf("extracted blob does not hash to its name")
	}
}

func TestExportProgress(t *testing.T) {
	tb := buildSyntheticBundle(t)
	var reports []Progress
	var buf bytes.Buffer
	sum, err := Export(context.Background(), tb.s, tb.bundle, &buf, ExportOptions{Progress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < sum.Objects+sum.Blobs {
		t.Fatalf("%d reports for %d entries", len(reports), sum.Objects+sum.Blobs)
	}
	last := reports[len(reports)-1]
	if last.Done != last.Total || last.Total == 0 {
		t.Errorf("last report %+v: Done should reach a non-zero Total", last)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i].Done < reports[i-1].Done {
			t.Fatalf("progress went back: %+v then %+v", reports[i-1], reports[i])
		}
	}
	if sum.ArchiveBytes != int64(buf.Len()) {
		t.Errorf("Summary.ArchiveBytes = %d, wrote %d", sum.ArchiveBytes, buf.Len())
	}
}

func TestExportErrors(t *testing.T) {
	ref := buildSyntheticBundle(t) // every build gives the same digests
	cases := []struct {
		name    string
		setup   func(tb testBundle) (store.Digest, ExportOptions)
		wantErr error
		wantMsg string
	}{
		{"manifest not sealed", func(tb testBundle) (store.Digest, ExportOptions) {
			_ = tb.s.DeleteRef(context.Background(), store.RefBundlePrefix+tb.bundle.Hex())
			return tb.bundle, ExportOptions{}
		}, ErrNotSealed, "has no ref bundles/"},
		{"unknown digest", func(tb testBundle) (store.Digest, ExportOptions) {
			return store.Sum([]byte("nothing")), ExportOptions{}
		}, ErrNotSealed, "has no ref"},
		{"blob missing from the store", func(tb testBundle) (store.Digest, ExportOptions) {
			_ = tb.s.Delete(context.Background(), tb.auditLog)
			return tb.bundle, ExportOptions{}
		}, ErrMissingBlob, ref.auditLog.String()},
		{"profile tree missing", func(tb testBundle) (store.Digest, ExportOptions) {
			_ = tb.s.Delete(context.Background(), tb.profile)
			return tb.bundle, ExportOptions{}
		}, ErrMissingBlob, "application/vnd.oasis-replay.profile-tree.v1+json"},
		{"invalid tag", func(tb testBundle) (store.Digest, ExportOptions) {
			return tb.bundle, ExportOptions{Tags: []string{"v1", "../escape"}}
		}, ErrBadTag, `"../escape"`},
		{"tag with two dots", func(tb testBundle) (store.Digest, ExportOptions) {
			return tb.bundle, ExportOptions{Tags: []string{"v1..2"}}
		}, ErrBadTag, `"v1..2" contains ".."`},
		{"receipt of another bundle", func(tb testBundle) (store.Digest, ExportOptions) {
			r := putObject(t, tb.s, &store.Receipt{Bundle: store.Sum([]byte("another bundle")), Profile: tb.profile, Verdict: tb.verdict,
				Evaluator: store.EvaluatorInfo{Name: "e", Version: "1"}})
			return tb.bundle, ExportOptions{Receipts: []store.Digest{r.Digest}}
		}, ErrInvalidObject, "is a receipt for bundle"},
		{"receipt not in the store", func(tb testBundle) (store.Digest, ExportOptions) {
			return tb.bundle, ExportOptions{Receipts: []store.Digest{store.Sum([]byte("no receipt"))}}
		}, ErrMissingBlob, "referenced by index.json"},
		{"corrupt store whose objects refer to each other in a loop", func(tb testBundle) (store.Digest, ExportOptions) {
			loopObjects(t, tb)
			return tb.bundle, ExportOptions{}
		}, ErrDigestMismatch, "the store returned content"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := buildSyntheticBundle(t)
			bundle, opts := tc.setup(tb)
			var buf bytes.Buffer
			_, err := Export(context.Background(), tb.s, bundle, &buf, opts)
			if !errors.Is(err, tc.wantErr) || !strings.Contains(fmt.Sprint(err), tc.wantMsg) {
				t.Fatalf("Export error = %v, want %v containing %q", err, tc.wantErr, tc.wantMsg)
			}
			t.Log(err)
			if buf.Len() != 0 {
				t.Errorf("Export wrote %d bytes before failing; it must find the whole bundle first", buf.Len())
			}
		})
	}
}

// loopObjects makes the store lie: the two scenario evidence objects come back as objects that
// refer to each other, which real digests make impossible.
func loopObjects(t *testing.T, tb testBundle) {
	t.Helper()
	b, err := tb.s.GetObject(context.Background(), tb.bundle)
	if err != nil {
		t.Fatal(err)
	}
	m, err := store.DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	first, second := *m.Scenarios[0].Evidence, *m.Scenarios[1].Evidence
	for _, pair := range [][2]store.Descriptor{{first, second}, {second, first}} {
		lie, _, err := store.Encode(&store.ScenarioEvidence{ScenarioID: "loop",
			Observations: []store.Observation{{Type: store.ObservationAuditLog, Data: pair[1]}}})
		if err != nil {
			t.Fatal(err)
		}
		tb.s.lie[pair[0].Digest] = lie
	}
}
