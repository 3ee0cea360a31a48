package archive

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestEncoderIsDeterministic compresses more than two of the encoder's concurrent sections
// (8 MiB each) on one core and on four: the bytes must not depend on how the sections were
// scheduled. Small archives, one section, are covered by TestExportIsDeterministic.
func TestEncoderIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([][]byte, 512)
	for i := range words {
		words[i] = []byte{byte('a' + rng.IntN(26)), byte('a' + rng.IntN(26)), byte('a' + rng.IntN(26)), ' '}
	}
	content := make([]byte, 0, 20<<20)
	for len(content) < cap(content)-8 {
		content = append(content, words[rng.IntN(len(words))]...)
	}
	compress := func(procs int) [32]byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var out bytes.Buffer
		zw, err := zstd.NewWriter(&out, encoderOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		for rest := content; len(rest) > 0; rest = rest[min(len(rest), copyBufferSize):] {
			if _, err := zw.Write(rest[:min(len(rest), copyBufferSize)]); err != nil {
				t.Fatal(err)
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(out.Bytes())
	}
	if one, four := compress(1), compress(4); one != four {
		t.Fatalf("one core gives sha256 %x, four %x", one, four)
	}
}
