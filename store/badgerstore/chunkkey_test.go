package badgerstore

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oasis-replay/oasis-replay/internal/goldenfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// keysOf derives the chunk keys of content cut every size bytes, and its digest.
func keysOf(t *testing.T, content []byte, size int) ([]store.Digest, store.Digest) {
	t.Helper()
	chain := newPrefixChain()
	var keys []store.Digest
	for rest := content; len(rest) > 0; rest = rest[min(size, len(rest)):] {
		key, err := chain.next(rest[:min(size, len(rest))])
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	return keys, chain.digest()
}

// TestChunkKeyFormula derives keys as doc.go writes the formula, from the marshalled SHA-256
// state of each prefix hashed on its own, and checks the layout of that state: the tail after
// the last complete block, zero-padded, and the prefix length.
func TestChunkKeyFormula(t *testing.T) {
	content := generatedLog(t, 1, 20_000)
	for _, size := range []int{1, 63, 64, 65, 1000, 4096, len(content) - 1, len(content)} {
		keys, digest := keysOf(t, content, size)
		if digest != store.Sum(content) {
			t.Fatalf("chunk size %d: the chain's digest is not the SHA-256 of the content", size)
		}
		for i, key := range keys {
			end := min((i+1)*size, len(content))
			h := sha256.New()
			h.Write(content[:end])
			state, err := h.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			tail := make([]byte, 64)
			copy(tail, content[end-end%64:end])
			if len(state) != 108 || string(state[:4]) != "sha\x03" || !bytes.Equal(state[36:100], tail) ||
				binary.BigEndian.Uint64(state[100:]) != uint64(end) {
				t.Fatalf("SHA-256 state after %d bytes has an unexpected layout: %x", end, state)
			}
			input := append([]byte("oasis-replay chunk v2\x00"), state...)
			input = binary.BigEndian.AppendUint64(input, uint64(end-i*size))
			if want := store.Digest(sha256.Sum256(input)); key != want {
				t.Fatalf("chunk size %d, chunk %d: key %s, the formula gives %s", size, i, key, want)
			}
		}
	}
}

// TestChunkKeysGolden pins the keys of a generated log: they are part of the format, so a
// change of derivation (or of crypto/sha256's state layout) must fail here rather than leave
// stores unreadable. Rewrite with -update only for a new format version.
func TestChunkKeysGolden(t *testing.T) {
	// Content from a formula rather than a generator, so only the derivation can change keys.
	content := make([]byte, 100_000)
	for i := range content {
		content[i] = byte(i ^ i>>8 ^ i>>16)
	}
	var b strings.Builder
	for _, size := range []int{16 << 10, 24 << 10} {
		keys, digest := keysOf(t, content, size)
		fmt.Fprintf(&b, "content %s, %d bytes, chunks of %d\n", digest, len(content), size)
		for i, k := range keys {
			fmt.Fprintf(&b, "%d %s\n", i+1, k)
		}
	}
	if !goldenfile.Check(t, filepath.Join("testdata", "chunk-keys.golden"), []byte(b.String()), *update) {
		t.Log("chunk keys changed: stores written before cannot be read, so this needs a new format version")
	}
}

// TestChunkKeysBind checks what a key names: the same prefix and chunk give the same key
// whatever the earlier cuts; the same bytes after another prefix, or the same prefix end with
// another chunk length, give another.
func TestChunkKeysBind(t *testing.T) {
	log := generatedLog(t, 2, 64<<10)
	byFours, _ := keysOf(t, log, 4<<10)
	byEights, _ := keysOf(t, log, 8<<10)
	// At 8 KiB both cut a chunk, of 4 KiB and of 8 KiB: other bytes, other keys.
	if byFours[1] == byEights[0] {
		t.Fatal("chunks of different lengths ending at the same offset have the same key")
	}
	// Cutting 4 KiB then 4 KiB, or 2 KiB, 2 KiB then 4 KiB, gives the same last chunk.
	chain := newPrefixChain()
	for _, part := range [][]byte{log[:2<<10], log[2<<10 : 4<<10]} {
		if _, err := chain.next(part); err != nil {
			t.Fatal(err)
		}
	}
	if key, err := chain.next(log[4<<10 : 8<<10]); err != nil || key != byFours[1] {
		t.Fatalf("the same chunk after the same prefix, cut otherwise before: key %s, %v; want %s", key, err, byFours[1])
	}
	// The same chunks after one different byte.
	other := bytes.Clone(log)
	other[0] ^= 1
	changed, _ := keysOf(t, other, 4<<10)
	for i := range changed {
		if changed[i] == byFours[i] {
			t.Fatalf("chunk %d has the same key after a different prefix", i+1)
		}
	}
}

// TestChunkSizesShareAStore writes a log with one chunk size and the same log grown with
// others into one store: where chunks of different lengths end at the same offset they must
// not stand for each other, and every blob reads back.
func TestChunkSizesShareAStore(t *testing.T) {
	dir := t.TempDir()
	full := generatedLog(t, 3, 200<<10)
	var digests []store.Digest
	for i, size := range []int{8 << 10, 12 << 10, 16 << 10} {
		s, err := Open(dir, Options{ChunkSize: size})
		if err != nil {
			t.Fatal(err)
		}
		content := full[:len(full)*(i+2)/4]
		digests = append(digests, putBytes(t, s, content))
		for j, d := range digests {
			r, _, err := s.OpenBlob(t.Context(), d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, full[:len(full)*(j+2)/4]) {
				t.Fatalf("after writing with %d-byte chunks, blob %d reads back wrong: %v", size, j, err)
			}
		}
		report, err := store.Check(t.Context(), s, store.CheckOptions{})
		if err != nil || !report.OK() {
			t.Fatalf("Check: %v %v", err, report.Problems)
		}
		s.Close()
	}
}
