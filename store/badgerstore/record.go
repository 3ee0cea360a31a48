package badgerstore

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/oasis-replay/oasis-replay/store"
)

// formatVersion is the first byte of every content value this build writes. A value of another
// format is refused, not misread, except versions 2 and 3, which version 4 extends: version 4
// keeps the hash state after every chunk in chunk lists (so chunks verify in parallel) and
// adds packs; version 3 added the dictionary codec (codecDict); version 2 derives chunk keys
// from the blob's prefix (doc.go); version 1 named chunks by the SHA-256 of their own bytes.
const formatVersion = 4

// readableVersion reports whether this build reads values of format version v.
func readableVersion(v byte) bool { return v >= 2 && v <= formatVersion }

// maxChunkLimit bounds the content of one inline record or chunk, whatever the options were when
// it was written. A header claiming more is corrupt; this keeps a damaged size field from
// causing a huge allocation.
const maxChunkLimit = 16 << 20

// digestSize is the length of a binary digest or chunk key in keys and chunk lists.
const digestSize = len(store.Digest{})

// maxRecordHeader is the largest header of an inline record or chunk: version, type, kind,
// codec and a uvarint size.
const maxRecordHeader = 4 + binary.MaxVarintLen64

// recordType says what a value holds.
type recordType byte

const (
	// recInline: the whole content of a blob or object, in one piece.
	recInline recordType = 'i'
	// recChunkList: the ordered chunk list of a large blob or object.
	recChunkList recordType = 'l'
	// recChunk: one chunk of a large blob or object.
	recChunk recordType = 'c'
	// recPack: a pack, the content of several small blobs and objects compressed together
	// (format version 4, see pack.go).
	recPack recordType = 'P'
	// recPacked: a blob or object whose content is a span of a pack (format version 4).
	recPacked recordType = 'p'
)

// codec says how a payload is stored.
type codec byte

const (
	codecRaw  codec = 0 // stored as is: compression would not have made it smaller
	codecZstd codec = 1 // one zstd frame
	// codecDict: the 32-byte digest of a dictionary (dict.go), then one zstd frame compressed
	// with that dictionary's content as history. Format version 3 and later, inline records
	// only.
	codecDict codec = 2
	// codecS2: one S2 block (github.com/klauspost/compress/s2): the uvarint content size, then
	// the compressed content. Format version 4, chunks only.
	codecS2 codec = 3
)

// kindCode is the kind byte of a record: zero for a raw blob, else the kind's code in the
// store's registry (store.KindCode), which is part of the on-disk format.
func kindCode(k store.Kind) (byte, error) {
	if k == "" {
		return 0, nil
	}
	if code, ok := store.KindCode(k); ok {
		return code, nil
	}
	return 0, fmt.Errorf("%w: %q has no kind code", store.ErrUnknownKind, k)
}

// chunkRef is one entry of a chunk list: the chunk's key (not the digest of its bytes: see
// "Chunk keys" in doc.go), the length of its content and, in lists of format version 4, the
// hash state after it.
type chunkRef struct {
	key   store.Digest
	size  int64
	after chainState
}

// record is a decoded value. payload aliases the value it was decoded from.
type record struct {
	typ     recordType
	kind    store.Kind   // recInline and recChunkList
	codec   codec        // recInline and recChunk
	dict    store.Digest // codecDict: the dictionary
	size    int64        // length of the exact, uncompressed content
	payload []byte       // recInline and recChunk: the stored bytes
	chunks  []chunkRef   // recChunkList
	// states: the chunk list keeps the hash state after each chunk (format version 4).
	states bool
	sum    store.Digest // recPack: the digest of the pack's content
	base   uint64       // recPack with codecDict: the pack whose content is the history
	pack   uint64       // recPacked: the pack holding the content
	offset int64        // recPacked: where in the pack's content the content begins
}

// appendInline appends an inline record: version, 'i', kind, codec, uvarint size, then for
// codecDict the dictionary's digest, then the payload.
func appendInline(dst []byte, kind byte, c codec, dict store.Digest, size int64, payload []byte) []byte {
	dst = append(dst, formatVersion, byte(recInline), kind, byte(c))
	dst = binary.AppendUvarint(dst, uint64(size))
	if c == codecDict {
		dst = append(dst, dict[:]...)
	}
	return append(dst, payload...)
}

// appendChunk appends a chunk record: version, 'c', codec, uvarint size, payload.
func appendChunk(dst []byte, c codec, size int64, payload []byte) []byte {
	dst = append(dst, formatVersion, byte(recChunk), byte(c))
	dst = binary.AppendUvarint(dst, uint64(size))
	return append(dst, payload...)
}

// appendChunkList appends a chunk list record: version, 'l', kind, uvarint total size, uvarint
// count, then per chunk its 32-byte key, uvarint size and the hash state after it: the 32-byte
// chaining value and the tail, as many bytes as the prefix up to the chunk's end has beyond a
// multiple of 64.
func appendChunkList(dst []byte, kind byte, size int64, chunks []chunkRef) []byte {
	dst = append(dst, formatVersion, byte(recChunkList), kind)
	dst = binary.AppendUvarint(dst, uint64(size))
	dst = binary.AppendUvarint(dst, uint64(len(chunks)))
	for _, c := range chunks {
		dst = append(dst, c.key[:]...)
		dst = binary.AppendUvarint(dst, uint64(c.size))
		dst = append(dst, c.after.h[:]...)
		dst = append(dst, c.after.tail...)
	}
	return dst
}

// appendPack appends a pack record: version, 'P', codec, uvarint size, the digest of the content,
// for codecDict the uvarint number of the base pack, then the payload.
func appendPack(dst []byte, c codec, size int64, sum store.Digest, base uint64, payload []byte) []byte {
	dst = append(dst, formatVersion, byte(recPack), byte(c))
	dst = binary.AppendUvarint(dst, uint64(size))
	dst = append(dst, sum[:]...)
	if c == codecDict {
		dst = binary.AppendUvarint(dst, base)
	}
	return append(dst, payload...)
}

// appendPacked appends a packed record: version, 'p', kind, uvarint size, uvarint pack number,
// uvarint offset.
func appendPacked(dst []byte, kind byte, size int64, pack uint64, offset int64) []byte {
	dst = append(dst, formatVersion, byte(recPacked), kind)
	dst = binary.AppendUvarint(dst, uint64(size))
	dst = binary.AppendUvarint(dst, pack)
	return binary.AppendUvarint(dst, uint64(offset))
}

// decodeRecord parses a stored value. It never panics and never trusts a length: every error
// wraps store.ErrCorrupt (or store.ErrUnsupportedVersion for a later format) and the caller
// adds the key it read.
func decodeRecord(v []byte) (record, error) {
	var r record
	if len(v) < 2 {
		return r, fmt.Errorf("%w: value of %d bytes is too short for a header", store.ErrCorrupt, len(v))
	}
	if !readableVersion(v[0]) {
		return r, fmt.Errorf("%w: record format version %d (this build reads 2 and %d)", store.ErrUnsupportedVersion, v[0], formatVersion)
	}
	r.typ = recordType(v[1])
	rest := v[2:]
	var err error
	switch r.typ {
	case recInline:
		if r.kind, rest, err = decodeKind(rest); err != nil {
			return r, err
		}
		err = r.decodePayload(rest, v[0])
	case recChunk:
		err = r.decodePayload(rest, v[0])
	case recChunkList:
		if r.kind, rest, err = decodeKind(rest); err != nil {
			return r, err
		}
		r.states = v[0] >= 4
		err = r.decodeChunks(rest)
	case recPack:
		if v[0] < 4 {
			return r, fmt.Errorf("%w: a pack in a value of format version %d", store.ErrCorrupt, v[0])
		}
		err = r.decodePack(rest)
	case recPacked:
		if v[0] < 4 {
			return r, fmt.Errorf("%w: a packed record in a value of format version %d", store.ErrCorrupt, v[0])
		}
		if r.kind, rest, err = decodeKind(rest); err != nil {
			return r, err
		}
		err = r.decodePacked(rest)
	default:
		err = fmt.Errorf("%w: unknown record type %#x", store.ErrCorrupt, v[1])
	}
	return r, err
}

func decodeKind(b []byte) (store.Kind, []byte, error) {
	if len(b) == 0 {
		return "", nil, fmt.Errorf("%w: truncated header: no kind byte", store.ErrCorrupt)
	}
	if b[0] == 0 {
		return "", b[1:], nil
	}
	k, ok := store.KindOfCode(b[0])
	if !ok {
		return "", nil, fmt.Errorf("%w: unknown kind code %d", store.ErrCorrupt, b[0])
	}
	return k, b[1:], nil
}

// decodePayload parses codec, size, dictionary and payload of an inline record or chunk of
// format version.
func (r *record) decodePayload(b []byte, version byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: truncated header: no codec byte", store.ErrCorrupt)
	}
	r.codec = codec(b[0])
	dictionaries := version >= 3 && r.typ == recInline
	s2Chunk := version >= 4 && r.typ == recChunk
	if r.codec != codecRaw && r.codec != codecZstd && (r.codec != codecDict || !dictionaries) && (r.codec != codecS2 || !s2Chunk) {
		return fmt.Errorf("%w: unknown codec %d", store.ErrCorrupt, b[0])
	}
	size, n := binary.Uvarint(b[1:])
	if n <= 0 {
		return fmt.Errorf("%w: truncated or overlong size", store.ErrCorrupt)
	}
	if size > maxChunkLimit {
		return fmt.Errorf("%w: content size %d exceeds the record limit %d", store.ErrCorrupt, size, maxChunkLimit)
	}
	r.size = int64(size)
	r.payload = b[1+n:]
	if r.codec == codecDict {
		if len(r.payload) <= digestSize {
			return fmt.Errorf("%w: truncated dictionary reference", store.ErrCorrupt)
		}
		copy(r.dict[:], r.payload)
		r.payload = r.payload[digestSize:]
	}
	if r.codec == codecRaw && int64(len(r.payload)) != r.size {
		return fmt.Errorf("%w: raw payload of %d bytes, header says %d", store.ErrCorrupt, len(r.payload), r.size)
	}
	if r.codec != codecRaw && len(r.payload) == 0 {
		return fmt.Errorf("%w: empty compressed payload", store.ErrCorrupt)
	}
	return nil
}

// decodeChunks parses the total size and the entries of a chunk list.
func (r *record) decodeChunks(b []byte) error {
	size, n := binary.Uvarint(b)
	if n <= 0 || size > 1<<62 {
		return fmt.Errorf("%w: chunk list: bad total size", store.ErrCorrupt)
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 {
		return fmt.Errorf("%w: chunk list: bad chunk count", store.ErrCorrupt)
	}
	b = b[n:]
	// Each entry takes at least 33 bytes (65 with its state), which bounds the count before
	// anything is allocated.
	least := digestSize + 1
	if r.states {
		least += digestSize
	}
	if count == 0 || count > uint64(len(b)/least) {
		return fmt.Errorf("%w: chunk list: count %d does not fit %d bytes", store.ErrCorrupt, count, len(b))
	}
	r.chunks = make([]chunkRef, count)
	var total uint64
	for i := range r.chunks {
		if len(b) < digestSize+1 {
			return fmt.Errorf("%w: chunk list: truncated at entry %d", store.ErrCorrupt, i)
		}
		copy(r.chunks[i].key[:], b)
		csize, n := binary.Uvarint(b[digestSize:])
		if n <= 0 || csize == 0 || csize > maxChunkLimit {
			return fmt.Errorf("%w: chunk list: entry %d: bad chunk size", store.ErrCorrupt, i)
		}
		r.chunks[i].size = int64(csize)
		total += csize
		b = b[digestSize+n:]
		if !r.states {
			continue
		}
		tail := int(total % 64)
		if len(b) < digestSize+tail {
			return fmt.Errorf("%w: chunk list: truncated at the hash state of entry %d", store.ErrCorrupt, i)
		}
		copy(r.chunks[i].after.h[:], b)
		if tail > 0 {
			r.chunks[i].after.tail = bytes.Clone(b[digestSize : digestSize+tail])
		}
		b = b[digestSize+tail:]
	}
	if len(b) != 0 {
		return fmt.Errorf("%w: chunk list: %d trailing bytes", store.ErrCorrupt, len(b))
	}
	if total != size {
		return fmt.Errorf("%w: chunk list: chunks add up to %d bytes, header says %d", store.ErrCorrupt, total, size)
	}
	r.size = int64(size)
	return nil
}

// decodePack parses codec, size, digest, base and payload of a pack record.
func (r *record) decodePack(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: truncated pack header: no codec byte", store.ErrCorrupt)
	}
	r.codec = codec(b[0])
	if r.codec != codecRaw && r.codec != codecZstd && r.codec != codecDict {
		return fmt.Errorf("%w: pack: unknown codec %d", store.ErrCorrupt, b[0])
	}
	size, n := binary.Uvarint(b[1:])
	if n <= 0 || size == 0 || size > maxChunkLimit {
		return fmt.Errorf("%w: pack: bad content size", store.ErrCorrupt)
	}
	r.size = int64(size)
	b = b[1+n:]
	if len(b) < digestSize {
		return fmt.Errorf("%w: pack: truncated digest", store.ErrCorrupt)
	}
	copy(r.sum[:], b)
	b = b[digestSize:]
	if r.codec == codecDict {
		if r.base, n = binary.Uvarint(b); n <= 0 || r.base == 0 {
			return fmt.Errorf("%w: pack: bad base pack number", store.ErrCorrupt)
		}
		b = b[n:]
	}
	r.payload = b
	if r.codec == codecRaw && int64(len(b)) != r.size {
		return fmt.Errorf("%w: pack: raw payload of %d bytes, header says %d", store.ErrCorrupt, len(b), r.size)
	}
	if r.codec != codecRaw && len(b) == 0 {
		return fmt.Errorf("%w: pack: empty compressed payload", store.ErrCorrupt)
	}
	return nil
}

// decodePacked parses size, pack number and offset of a packed record.
func (r *record) decodePacked(b []byte) error {
	size, n := binary.Uvarint(b)
	if n <= 0 || size > maxChunkLimit {
		return fmt.Errorf("%w: packed record: bad size", store.ErrCorrupt)
	}
	b = b[n:]
	if r.pack, n = binary.Uvarint(b); n <= 0 || r.pack == 0 {
		return fmt.Errorf("%w: packed record: bad pack number", store.ErrCorrupt)
	}
	b = b[n:]
	offset, n := binary.Uvarint(b)
	if n <= 0 || offset > maxChunkLimit || n != len(b) {
		return fmt.Errorf("%w: packed record: bad offset", store.ErrCorrupt)
	}
	r.size, r.offset = int64(size), int64(offset)
	return nil
}
