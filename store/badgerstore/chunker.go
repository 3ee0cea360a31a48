package badgerstore

import (
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
)

// Chunking selects how content larger than one chunk is cut. Chunk boundaries only affect
// deduplication and speed, never the format: a reader follows the chunk list whatever cut it.
type Chunking int

const (
	// ChunkingFixed cuts every ChunkSize bytes. It costs nothing beyond the copy and
	// deduplicates identical content and appended logs (the prefix keeps its boundaries), but
	// not content shifted by an insertion.
	ChunkingFixed Chunking = iota + 1
	// ChunkingCDC cuts where a rolling gear hash over the content matches a mask
	// (FastCDC-style, with normalized chunking), so boundaries move with the content and
	// shifted content still deduplicates. Chunks are between ChunkSize/2 and 2×ChunkSize,
	// ChunkSize on average.
	ChunkingCDC
)

// String names the chunking for benchmarks and errors.
func (c Chunking) String() string {
	switch c {
	case ChunkingFixed:
		return "fixed"
	case ChunkingCDC:
		return "cdc"
	}
	return "unknown"
}

// chunker finds chunk boundaries.
type chunker interface {
	// cut returns the length of the chunk at the start of data. data holds maxSize bytes, or
	// fewer only at the end of the input.
	cut(data []byte) int
	// maxSize is the largest chunk cut can return.
	maxSize() int
}

type fixedChunker struct{ size int }

func (c fixedChunker) cut(data []byte) int { return min(len(data), c.size) }
func (c fixedChunker) maxSize() int        { return c.size }

// gearTable maps each byte to a 64-bit value for the rolling hash. It is derived from SHA-256
// of a fixed label and the byte, so every build cuts the same boundaries; changing it would not
// break old stores, only stop new chunks from deduplicating against old ones.
var gearTable = func() (t [256]uint64) {
	for i := range t {
		sum := sha256.Sum256([]byte{'o', 'a', 's', 'i', 's', '-', 'g', 'e', 'a', 'r', byte(i)})
		t[i] = binary.BigEndian.Uint64(sum[:8])
	}
	return t
}()

// cdcChunker implements FastCDC's normalized chunking (Xia et al., "FastCDC", USENIX ATC
// 2016): no boundary before min; from min to avg a mask with two more bits than log2(avg)
// makes a cut less likely, after avg a mask with two fewer bits makes it more likely, so
// chunk sizes cluster around avg; max forces a cut. The gear hash shifts left one bit per
// byte, so only the high bits depend on a full 64-byte window: the masks test high bits.
type cdcChunker struct {
	min, avg, max int
	maskS, maskL  uint64
}

func newCDCChunker(avg int) cdcChunker {
	b := bits.Len(uint(avg)) - 1 // log2(avg), avg rounded down to a power of two
	return cdcChunker{
		min:   avg / 2,
		avg:   avg,
		max:   2 * avg,
		maskS: ^uint64(0) << (64 - (b + 2)),
		maskL: ^uint64(0) << (64 - (b - 2)),
	}
}

func (c cdcChunker) maxSize() int { return c.max }

func (c cdcChunker) cut(data []byte) int {
	if len(data) <= c.min {
		return len(data)
	}
	data = data[:min(len(data), c.max)]
	normal := min(len(data), c.avg)
	var h uint64
	i := c.min
	for ; i < normal; i++ {
		h = h<<1 + gearTable[data[i]]
		if h&c.maskS == 0 {
			return i + 1
		}
	}
	for ; i < len(data); i++ {
		h = h<<1 + gearTable[data[i]]
		if h&c.maskL == 0 {
			return i + 1
		}
	}
	return len(data)
}
