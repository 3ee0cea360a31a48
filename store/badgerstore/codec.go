package badgerstore

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// One encoder and one decoder serve the whole process: EncodeAll and DecodeAll are safe for
// concurrent use and each keeps a small set of internal states, so sharing them avoids
// allocating window buffers per call.
var (
	zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(0), // GOMAXPROCS states, one per core
			// Content is verified by SHA-256 on every read; a second, weaker checksum
			// per frame would only cost time.
			zstd.WithEncoderCRC(false),
			// Each state's history buffer is then the window plus one block rather than two
			// windows: 8 MiB less heap per core, the same output and the same CPU time (a
			// 230 MiB audit log: 15,331,214 bytes stored, 0.85 to 0.95 s of CPU either way).
			zstd.WithLowerEncoderMem(true),
		)
		if err != nil {
			panic(fmt.Sprintf("badgerstore: zstd encoder options: %v", err)) // constant options
		}
		return enc
	})
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			// A stored frame never legitimately decodes to more than one record's content;
			// the caller also caps the output at the size the header declares.
			zstd.WithDecoderMaxMemory(maxChunkLimit),
			zstd.WithDecoderMaxWindow(maxChunkLimit),
			zstd.WithDecodeAllCapLimit(true),
		)
		if err != nil {
			panic(fmt.Sprintf("badgerstore: zstd decoder options: %v", err)) // constant options
		}
		return dec
	})
)

// compress returns src zstd-compressed and appended to dst, or src itself with codecRaw when
// compression does not make it smaller (already-compressed evidence, tiny objects).
func compress(dst, src []byte) (codec, []byte) {
	out := zstdEncoder().EncodeAll(src, dst)
	if len(out)-len(dst) >= len(src) {
		return codecRaw, src
	}
	return codecZstd, out[len(dst):]
}

// compressChunk returns a chunk of a large blob S2-compressed (codecS2) into dst, which it may
// replace if it has less capacity than s2.MaxEncodedLen, or src itself with codecRaw when
// compression does not make it smaller. S2 rather than zstd: ingest of a large log is bound by
// the CPU, and S2 compresses an audit log about three times faster than zstd's fastest level,
// at 8 rather than 13 times (see "Large content" in doc.go).
func compressChunk(dst, src []byte) (codec, []byte) {
	out := s2.Encode(dst[:cap(dst)], src)
	if len(out) >= len(src) {
		return codecRaw, src
	}
	return codecS2, out
}

// decodeContent returns the exact content of an inline record or chunk, decompressing into
// buf when needed (buf is reused if its capacity suffices). The result aliases either buf or
// the record's payload.
func (s *Store) decodeContent(r *record, buf []byte) ([]byte, error) {
	if r.codec == codecRaw {
		return r.payload, nil
	}
	if int64(cap(buf)) < r.size {
		buf = make([]byte, 0, r.size)
	}
	if r.codec == codecS2 {
		return decodeS2(r, buf)
	}
	dec := zstdDecoder()
	if r.codec == codecDict {
		d, err := s.dictionary(r.dict)
		if err != nil {
			return nil, err
		}
		dec = d.dec
	}
	out, err := dec.DecodeAll(r.payload, buf[:0:r.size])
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %v", store.ErrCorrupt, err)
	}
	if int64(len(out)) != r.size {
		return nil, fmt.Errorf("%w: decompressed to %d bytes, header says %d", store.ErrCorrupt, len(out), r.size)
	}
	return out, nil
}

// decodeS2 decodes the S2 block of r into buf, whose capacity holds r.size bytes.
func decodeS2(r *record, buf []byte) ([]byte, error) {
	n, err := s2.DecodedLen(r.payload)
	if err != nil {
		return nil, fmt.Errorf("%w: s2: %v", store.ErrCorrupt, err)
	}
	if int64(n) != r.size {
		return nil, fmt.Errorf("%w: decompresses to %d bytes, header says %d", store.ErrCorrupt, n, r.size)
	}
	out, err := s2.Decode(buf[:0:r.size], r.payload)
	if err != nil {
		return nil, fmt.Errorf("%w: s2: %v", store.ErrCorrupt, err)
	}
	return out, nil
}
