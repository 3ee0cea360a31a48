package badgerstore

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"

	"github.com/oasis-replay/oasis-replay/store"
)

// chunkKeyLabel opens the input of every chunk key, so that a chunk key is never the SHA-256 of
// some content (a blob's digest) nor a key derived by another version of the format.
const chunkKeyLabel = "oasis-replay chunk v2\x00"

// The SHA-256 state crypto/sha256 marshals: a magic, the eight chaining words, the 64-byte
// block buffer (the prefix's bytes after its last complete block, zero-padded) and the prefix
// length in bytes, integers big-endian. Chunk keys hash it verbatim, so its layout is part of
// the store format; prefixChain checks it on every chunk and a golden test pins the keys.
const (
	sha256StateMagic = "sha\x03"
	sha256StateSize  = len(sha256StateMagic) + 8*4 + 64 + 8
)

// errStateLayout: the toolchain's crypto/sha256 marshals its state in a layout this build does
// not derive chunk keys from. It is a fault of the build, not of the stored content, so it does
// not wrap store.ErrCorrupt.
var errStateLayout = errors.New("badgerstore: crypto/sha256 state layout is not the one chunk keys are derived from")

// prefixChain hashes the content of a chunked blob once, in order, and derives the key of each
// chunk from the SHA-256 state after it (see "Chunk keys" in doc.go). Writer and reader use the
// same chain, so each byte is hashed once on either side.
type prefixChain struct {
	h     hash.Hash
	state encoding.BinaryAppender // h's state; nil if the toolchain cannot marshal it
	n     uint64                  // bytes hashed so far
	input []byte                  // scratch for the key's input
}

func newPrefixChain() *prefixChain {
	h := sha256.New()
	state, _ := h.(encoding.BinaryAppender)
	return &prefixChain{h: h, state: state, input: make([]byte, 0, len(chunkKeyLabel)+sha256StateSize+8)}
}

// next hashes the next chunk of the content and returns its key:
//
//	SHA-256("oasis-replay chunk v2\x00" || state after the chunk || uint64be(chunk size))
func (c *prefixChain) next(chunk []byte) (store.Digest, error) {
	c.h.Write(chunk)
	c.n += uint64(len(chunk))
	if c.state == nil {
		return store.Digest{}, fmt.Errorf("%w: the hash cannot marshal its state", errStateLayout)
	}
	in, err := c.state.AppendBinary(append(c.input[:0], chunkKeyLabel...))
	if err != nil {
		return store.Digest{}, fmt.Errorf("%w: %v", errStateLayout, err)
	}
	state := in[len(chunkKeyLabel):]
	// The length check also catches a state that does not end with the prefix length.
	if len(state) != sha256StateSize || string(state[:len(sha256StateMagic)]) != sha256StateMagic ||
		binary.BigEndian.Uint64(state[sha256StateSize-8:]) != c.n {
		return store.Digest{}, fmt.Errorf("%w: a %d-byte state beginning %.8x", errStateLayout, len(state), state)
	}
	c.input = binary.BigEndian.AppendUint64(in, uint64(len(chunk)))
	return store.Sum(c.input), nil
}

// digest returns the SHA-256 of everything hashed so far: at the end, the blob's digest.
func (c *prefixChain) digest() store.Digest {
	var d store.Digest
	c.h.Sum(d[:0])
	return d
}
