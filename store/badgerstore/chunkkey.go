package badgerstore

import (
	"bytes"
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

// chainState is the SHA-256 state after a prefix of a chunked blob, as a chunk list of format
// version 4 keeps it after every chunk: the chaining value H0..H7 over the prefix's complete
// 64-byte blocks and the tail, the prefix's last (length mod 64) bytes. With the prefix's
// length it is the whole state crypto/sha256 marshals (see "Chunk keys" in doc.go), so that
// hashing can resume from it: each chunk of a blob can be verified on its own, in parallel,
// from the state the list gives before it.
type chainState struct {
	h    [32]byte
	tail []byte
}

func (a chainState) equal(b chainState) bool { return a.h == b.h && bytes.Equal(a.tail, b.tail) }

// checkpoint returns the state after the chunks hashed so far. It is only valid after next.
func (c *prefixChain) checkpoint() chainState {
	state := c.input[len(chunkKeyLabel):]
	var st chainState
	copy(st.h[:], state[len(sha256StateMagic):])
	blockAt := len(sha256StateMagic) + len(st.h)
	if tail := int(c.n % 64); tail > 0 {
		st.tail = bytes.Clone(state[blockAt : blockAt+tail])
	}
	return st
}

// resumeChain returns a chain that continues after a prefix of n bytes whose state is st. A
// tail whose length does not fit n is damage of the chunk list that gave it.
func resumeChain(st chainState, n uint64) (*prefixChain, error) {
	c := newPrefixChain()
	if uint64(len(st.tail)) != n%64 {
		return nil, fmt.Errorf("%w: a hash state with a tail of %d bytes after %d bytes", store.ErrCorrupt, len(st.tail), n)
	}
	state := make([]byte, 0, sha256StateSize)
	state = append(append(state, sha256StateMagic...), st.h[:]...)
	state = append(state, st.tail...)
	state = append(state, make([]byte, 64-len(st.tail))...)
	state = binary.BigEndian.AppendUint64(state, n)
	u, ok := c.h.(encoding.BinaryUnmarshaler)
	if !ok {
		return nil, fmt.Errorf("%w: the hash cannot unmarshal its state", errStateLayout)
	}
	if err := u.UnmarshalBinary(state); err != nil {
		return nil, fmt.Errorf("%w: %v", errStateLayout, err)
	}
	c.n = n
	return c, nil
}

// digest returns the SHA-256 of everything hashed so far: at the end, the blob's digest.
func (c *prefixChain) digest() store.Digest {
	var d store.Digest
	c.h.Sum(d[:0])
	return d
}
