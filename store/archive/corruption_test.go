package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oasis-replay/oasis-replay/store"
)

// longRun reports whether the longer test variants are asked for (make test-long).
func longRun() bool { return os.Getenv("OASIS_REPLAY_LONG") == "1" }

// testSeed is the seed of a randomized test: OASIS_REPLAY_SEED if set, so that a failure can be
// replayed, otherwise a new one each run. It is logged either way.
func testSeed(t *testing.T) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("OASIS_REPLAY_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("OASIS_REPLAY_SEED: %v", err)
		}
	}
	t.Logf("seed %d (OASIS_REPLAY_SEED=%d repeats this run)", seed, seed)
	return seed
}

// TestCorruptionIsDetected flips one byte at a time of an exported archive. Every flip that
// changes the archive's content must make both Verify and Import fail, identically. Flips are
// drawn over the compressed file (caught by zstd's frame checksum or by digest verification) and
// over blob contents of the tar stream, recompressed (caught by digest verification, naming the
// blob).
func TestCorruptionIsDetected(t *testing.T) {
	flips := 40
	if longRun() {
		flips = 2000
	}
	seed := testSeed(t)
	for _, b := range []namedBuilder{synthetic, realRun("safe")} {
		t.Run(b.name, func(t *testing.T) {
			archive := export(t, b.build(t), ExportOptions{})
			rng := rand.New(rand.NewPCG(seed, 0))
			t.Run("compressed file", func(t *testing.T) { flipCompressed(t, rng, archive, flips) })
			t.Run("blob contents", func(t *testing.T) { flipBlobContents(t, rng, decompress(t, archive), flips) })
		})
	}
}

// flipCompressed flips bytes anywhere in the archive file. The zstd format has redundancy (a
// window size larger than needed, table descriptions of symbols that never occur), so a few flips
// leave the decompressed tar stream byte-identical: no evidence changed, and accepting the archive
// is right. What must never happen is accepting an archive whose content changed.
func flipCompressed(t *testing.T, rng *rand.Rand, archive []byte, flips int) {
	plain := decompress(t, archive)
	harmless := 0
	for range flips {
		pos := rng.IntN(len(archive))
		corrupt := bytes.Clone(archive)
		corrupt[pos] ^= byte(1 + rng.IntN(255))
		verr, ierr := verifyAndImport(corrupt)
		switch {
		case verr == nil && ierr == nil && decodesTo(corrupt, plain):
			harmless++
		case verr == nil || ierr == nil:
			t.Fatalf("flip at byte %d of %d changes the content: Verify = %v, Import = %v; want both to fail", pos, len(archive), verr, ierr)
		case verr.Error() != ierr.Error():
			t.Fatalf("flip at byte %d: Verify and Import disagree:\n%v\n%v", pos, verr, ierr)
		}
	}
	t.Logf("%d of %d flips left the tar stream unchanged and were accepted", harmless, flips)
}

// flipBlobContents flips bytes inside blob contents of the tar stream, then recompresses it: the
// error must be a digest mismatch naming that blob.
func flipBlobContents(t *testing.T, rng *rand.Rand, plain []byte, flips int) {
	spans := blobSpans(t, plain)
	for range flips {
		span := spans[rng.IntN(len(spans))]
		pos := span.offset + rng.Int64N(span.size)
		corrupt := bytes.Clone(plain)
		corrupt[pos] ^= byte(1 + rng.IntN(255))
		verr, ierr := verifyAndImport(zst(t, corrupt))
		for op, err := range map[string]error{"Verify": verr, "Import": ierr} {
			if !errors.Is(err, ErrDigestMismatch) || !strings.Contains(err.Error(), blobName(span.digest)) {
				t.Fatalf("flip at tar byte %d, inside %s: %s error = %v, want a digest mismatch naming the blob", pos, blobName(span.digest), op, err)
			}
		}
	}
}

// verifyAndImport runs an archive through Verify and through Import into an empty store, and
// checks that a failed Import left no ref behind.
func verifyAndImport(archive []byte) (verifyErr, importErr error) {
	_, verifyErr = Verify(context.Background(), bytes.NewReader(archive), Limits{})
	s := newTestStore()
	_, importErr = Import(context.Background(), s, bytes.NewReader(archive), Limits{}, ImportOptions{})
	if refs, _ := s.ListRefs(context.Background(), ""); importErr != nil && len(refs) > 0 {
		importErr = errors.New("a failed import left refs")
	}
	return verifyErr, importErr
}

func decodesTo(archive, plain []byte) bool {
	got, err := decodeAll(archive)
	return err == nil && bytes.Equal(got, plain)
}

// span is where one non-empty blob's content lies in a tar stream.
type span struct {
	digest       store.Digest
	offset, size int64
}

func blobSpans(t *testing.T, plain []byte) []span {
	t.Helper()
	cr := &countingOnly{r: bytes.NewReader(plain)}
	tr := tar.NewReader(cr)
	var spans []span
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return spans
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, d, err := parseEntryName(hdr.Name); err == nil && hdr.Size > 0 && !d.IsZero() {
			spans = append(spans, span{digest: d, offset: cr.n, size: hdr.Size})
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			t.Fatal(err)
		}
	}
}

// countingOnly counts what is read and hides io.Seeker, so archive/tar reads every byte in order.
type countingOnly struct {
	r io.Reader
	n int64
}

func (c *countingOnly) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
