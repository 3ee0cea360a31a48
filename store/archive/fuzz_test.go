package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// fuzzLimits keep every fuzz input cheap, so no input can make the reader allocate or run long.
var fuzzLimits = Limits{
	MaxObjectSize:    1 << 20,
	MaxBlobSize:      4 << 20,
	MaxTotalBytes:    8 << 20,
	MaxEntries:       256,
	MaxIndexSize:     64 << 10,
	MaxJSONDepth:     32,
	MaxDecoderWindow: 1 << 20,
	MaxDecoderMemory: 16 << 20,
}

// sentinels are every error an archive can cause.
var sentinels = []error{
	ErrCompression, ErrMalformed, ErrTruncated, ErrTrailingData, ErrLimit, ErrUnsafePath, ErrBadName,
	ErrEntryType, ErrUnsupportedDigest, ErrDuplicate, ErrMissingEntry, ErrLayout, ErrIndex, ErrUnreferenced,
	ErrMissingBlob, ErrDigestMismatch, ErrSizeMismatch, ErrConflict, ErrInvalidObject, ErrBadTag,
}

// fuzzEncoder compresses fuzz inputs cheaply: one shared encoder, fastest level, small window.
var fuzzEncoder = func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		panic(err)
	}
	return enc
}()

// fuzzArchive turns a fuzz input into an archive: the input itself, or, to reach past the zstd
// layer, the input as a tar stream compressed here.
func fuzzArchive(data []byte, plainTar bool) []byte {
	if plainTar {
		return fuzzEncoder.EncodeAll(data, nil)
	}
	return data
}

func checkClassified(t *testing.T, err error) {
	t.Helper()
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error wraps no archive sentinel: %v", err)
}

func FuzzVerify(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, plainTar bool) {
		report, err := Verify(context.Background(), bytes.NewReader(fuzzArchive(data, plainTar)), fuzzLimits)
		if err != nil {
			checkClassified(t, err)
			return
		}
		if report.Bundle.IsZero() || len(report.Entries) != report.Objects+report.Blobs || report.Entries[0].Kind == "" {
			t.Fatalf("verified archive with an inconsistent report: %+v", report)
		}
	})
}

// FuzzImport imports each input into an empty store. A failed import must leave no ref; a
// successful one must leave a sealed bundle that exports and verifies to the same content.
func FuzzImport(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, plainTar bool) {
		s := newTestStore()
		ctx := context.Background()
		sum, err := Import(ctx, s, bytes.NewReader(fuzzArchive(data, plainTar)), fuzzLimits, ImportOptions{ApplyTags: true})
		if err != nil {
			checkClassified(t, err)
			if refs, _ := s.ListRefs(ctx, ""); len(refs) > 0 {
				t.Fatalf("failed import (%v) left refs %v", err, refs)
			}
			return
		}
		var out bytes.Buffer
		again, err := Export(ctx, s, sum.Bundle, &out, ExportOptions{Tags: sum.Tags, Receipts: sum.Receipts})
		if err != nil {
			t.Fatalf("imported bundle does not export: %v", err)
		}
		report, err := Verify(ctx, &out, fuzzLimits)
		if err != nil {
			t.Fatalf("re-exported bundle does not verify: %v", err)
		}
		if report.Bundle != sum.Bundle || report.Objects != sum.Objects || report.Blobs != sum.Blobs ||
			report.ContentBytes != sum.ContentBytes || again.ContentBytes != sum.ContentBytes {
			t.Fatalf("import %+v, re-export %+v, verify %+v", sum, again, report.Summary)
		}
	})
}

// FuzzDecodeManifest feeds store.DecodeManifest, the decoder of the one object every archive
// starts from. It must never panic. A manifest it accepts from canonical JSON (the only form an
// archive lets through) must re-encode canonically, and that encoding must be a fixed point.
// (From other input DecodeManifest also accepts what Encode cannot write, such as an integer
// beyond ±(2^53-1); the archive refuses such input before decoding.)
func FuzzDecodeManifest(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := store.DecodeManifest(data)
		if err != nil {
			return
		}
		_ = m.References()
		if canonical, err := store.Canonicalize(data); err != nil || !bytes.Equal(canonical, data) {
			return
		}
		encoded, _, err := store.Encode(m)
		if err != nil {
			t.Fatalf("decoded manifest does not encode: %v", err)
		}
		again, err := store.DecodeManifest(encoded)
		if err != nil {
			t.Fatalf("encoded manifest does not decode: %v\n%s", err, encoded)
		}
		reencoded, _, err := store.Encode(again)
		if err != nil || !bytes.Equal(reencoded, encoded) {
			t.Fatalf("encoding is not a fixed point (%v):\n%s\n%s", err, encoded, reencoded)
		}
	})
}

// fuzzSeed is one committed seed corpus entry.
type fuzzSeed struct {
	target, name string
	values       []any // []byte, bool
}

// TestFuzzSeedCorpus writes the seed corpora under testdata/fuzz with -update. Without it, it
// checks that the committed valid archive still verifies, so the corpus keeps reaching past the
// first checks as the format evolves.
func TestFuzzSeedCorpus(t *testing.T) {
	if *update {
		for _, seed := range fuzzSeeds(t) {
			writeSeed(t, seed)
		}
	}
	path := filepath.Join("testdata", "fuzz", "FuzzVerify", "valid-archive")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create the seed corpus)", err)
	}
	lines := strings.Split(string(b), "\n")
	archive, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if _, err := Verify(context.Background(), strings.NewReader(archive), fuzzLimits); err != nil {
		t.Errorf("%s no longer verifies (run go test -update): %v", path, err)
	}
}

func fuzzSeeds(t *testing.T) []fuzzSeed {
	c := newCrafted(t)
	tb := buildSyntheticBundle(t)
	valid := export(t, tb, ExportOptions{Tags: []string{"v1"}, Receipts: []store.Digest{tb.receipt}})
	plain := decompress(t, valid)
	seeds := []fuzzSeed{
		{name: "valid-archive", values: []any{valid, false}},
		{name: "valid-tar", values: []any{plain, true}},
		{name: "empty", values: []any{[]byte{}, false}},
	}
	// One hostile archive per kind of defence, compressed (the tar streams are mostly zero
	// padding and would bloat the corpus); the fuzzer reaches the tar layer from valid-tar.
	for _, tc := range hostileCases() {
		if !seedCases[tc.name] {
			continue
		}
		words := strings.FieldsFunc(strings.ToLower(tc.name), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		})
		name := strings.Join(words, "-")
		seeds = append(seeds, fuzzSeed{name: "hostile-" + name, values: []any{tc.archive(t, c), false}})
	}
	var all []fuzzSeed
	for _, target := range []string{"FuzzVerify", "FuzzImport"} {
		for _, s := range seeds {
			s.target = target
			all = append(all, s)
		}
	}
	manifest := c.s.bytesOf(c.base.bundle)
	for name, b := range map[string][]byte{
		"valid":          manifest,
		"pretty":         []byte(strings.ReplaceAll(string(manifest), ",", ",\n  ")),
		"unknown-field":  []byte(`{"kind":"run-manifest","schema_version":1,"surprise":true}`),
		"wrong-kind":     []byte(`{"kind":"receipt","schema_version":1}`),
		"future-version": []byte(`{"kind":"run-manifest","schema_version":2}`),
		"no-profile":     []byte(`{"kind":"run-manifest","schema_version":1,"profile":{"id":"p","version":"1"},"scenarios":[]}`),
		"deep":           []byte(`{"kind":"run-manifest","schema_version":1,"annotations":` + strings.Repeat("[", 200) + `}`),
	} {
		all = append(all, fuzzSeed{target: "FuzzDecodeManifest", name: name, values: []any{b}})
	}
	return all
}

// seedCases are the hostile cases that seed the fuzz corpora.
var seedCases = map[string]bool{
	"traversal through blobs/sha256/../../x":             true,
	"non-UTF-8 name":                                     true,
	"sha512 blob":                                        true,
	"symlink":                                            true,
	"sparse file":                                        true,
	"global PAX header":                                  true,
	"zstd frame asks for a 2 TiB window":                 true,
	"deeply nested index.json":                           true,
	"tar size differs from the descriptor":               true,
	"two descriptors disagree on a size":                 true,
	"content does not match its name":                    true,
	"one digest both object and raw blob":                true,
	"tar without its end-of-archive marker":              true,
	"duplicate blob":                                     true,
	"wrong oci-layout version":                           true,
	"index.json after the blobs":                         true,
	"sha512 digest in index.json":                        true,
	"blob before the object that refers to it":           true,
	"manifest refers to a missing object":                true,
	"receipt for another bundle":                         true,
	"second run manifest reached through an observation": true,
}

func writeSeed(t *testing.T, seed fuzzSeed) {
	var sb strings.Builder
	sb.WriteString("go test fuzz v1\n")
	for _, v := range seed.values {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(&sb, "[]byte(%s)\n", strconv.Quote(string(v)))
		case bool:
			fmt.Fprintf(&sb, "bool(%t)\n", v)
		}
	}
	dir := filepath.Join("testdata", "fuzz", seed.target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, seed.name), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
