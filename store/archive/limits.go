package archive

import "fmt"

// Limits bound what reading an archive may cost. Every limit protects against one kind of
// hostile archive; an archive that exceeds one is rejected with ErrLimit naming the limit, before
// the excess is read or allocated where the tar headers make that possible.
//
// A zero field means "the default" (see DefaultLimits), so callers set only what they raise:
//
//	limits := archive.DefaultLimits()
//	limits.MaxBlobSize = 64 << 30
//
// Export applies no limits: an archive of a bundle beyond the defaults (a blob over 8 GiB, say)
// is read back only with the limits raised to match.
type Limits struct {
	// MaxObjectSize bounds one structured object (manifest, scenario evidence, profile tree,
	// receipt, verdict). Objects are decoded in memory, so this and MaxObjectValues bound memory
	// per object.
	MaxObjectSize int64
	// MaxObjectValues bounds the JSON values of one structured object (every scalar, array and
	// object counted once): a value costs about 100 bytes decoded, whatever its size as text.
	MaxObjectValues int
	// MaxBlobSize bounds one raw blob. Blobs are streamed, never held in memory; the bound
	// protects the store's disk.
	MaxBlobSize int64
	// MaxTotalBytes bounds the decompressed tar stream as a whole: the defence against a zstd
	// bomb, which decompresses a few kilobytes into terabytes.
	MaxTotalBytes int64
	// MaxEntries bounds the number of tar entries and of distinct digests the bundle may refer
	// to (the reader keeps one small record per digest).
	MaxEntries int
	// MaxIndexSize bounds index.json, which is decoded in memory.
	MaxIndexSize int64
	// MaxJSONDepth bounds the nesting of every JSON document read (oci-layout, index.json and
	// each structured object), checked as the document is parsed.
	MaxJSONDepth int
	// MaxDecoderWindow rejects zstd frames that ask for a larger back-reference window, which
	// the decoder would have to allocate (zstd.WithDecoderMaxWindow).
	MaxDecoderWindow uint64
	// MaxDecoderMemory caps the zstd decoder's memory (zstd.WithDecoderMaxMemory); for streams
	// it also bounds the window, so the smaller of the two caps wins.
	MaxDecoderMemory uint64
}

// Default limits. They admit every archive Export writes for a bundle of realistic size (a
// 1 GiB audit log, tens of thousands of observations) and stop hostile ones early: the object
// limits keep an import within 256 MiB of memory (DESIGN §7), an object being held as its
// bytes, its decoded tree, its canonical form and its decoded value at once.
const (
	DefaultMaxObjectSize    = 16 << 20
	DefaultMaxObjectValues  = 1 << 20
	DefaultMaxBlobSize      = 8 << 30
	DefaultMaxTotalBytes    = 16 << 30
	DefaultMaxEntries       = 100_000
	DefaultMaxIndexSize     = 1 << 20
	DefaultMaxJSONDepth     = 64 // the nesting store.Canonicalize accepts
	DefaultMaxDecoderWindow = 64 << 20
	DefaultMaxDecoderMemory = 256 << 20
)

// DefaultLimits returns the limits used for every zero field of a Limits.
func DefaultLimits() Limits {
	return Limits{
		MaxObjectSize:    DefaultMaxObjectSize,
		MaxObjectValues:  DefaultMaxObjectValues,
		MaxBlobSize:      DefaultMaxBlobSize,
		MaxTotalBytes:    DefaultMaxTotalBytes,
		MaxEntries:       DefaultMaxEntries,
		MaxIndexSize:     DefaultMaxIndexSize,
		MaxJSONDepth:     DefaultMaxJSONDepth,
		MaxDecoderWindow: DefaultMaxDecoderWindow,
		MaxDecoderMemory: DefaultMaxDecoderMemory,
	}
}

// minDecoderWindow is the smallest window the zstd decoder accepts as a cap (zstd.MinWindowSize).
const minDecoderWindow = 1 << 10

// resolve fills zero fields with defaults and rejects negative or unusable values.
func (l Limits) resolve() (Limits, error) {
	d := DefaultLimits()
	fillInt64(&l.MaxObjectSize, d.MaxObjectSize)
	fillInt64(&l.MaxBlobSize, d.MaxBlobSize)
	fillInt64(&l.MaxTotalBytes, d.MaxTotalBytes)
	fillInt64(&l.MaxIndexSize, d.MaxIndexSize)
	if l.MaxEntries == 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxObjectValues == 0 {
		l.MaxObjectValues = d.MaxObjectValues
	}
	if l.MaxJSONDepth == 0 {
		l.MaxJSONDepth = d.MaxJSONDepth
	}
	if l.MaxDecoderWindow == 0 {
		l.MaxDecoderWindow = d.MaxDecoderWindow
	}
	if l.MaxDecoderMemory == 0 {
		l.MaxDecoderMemory = d.MaxDecoderMemory
	}
	switch {
	case l.MaxObjectSize < 0, l.MaxBlobSize < 0, l.MaxTotalBytes < 0, l.MaxIndexSize < 0,
		l.MaxEntries < 0, l.MaxObjectValues < 0, l.MaxJSONDepth < 0:
		return l, fmt.Errorf("%w: negative limit in %+v", ErrLimit, l)
	case l.MaxDecoderWindow < minDecoderWindow || l.MaxDecoderMemory < minDecoderWindow:
		return l, fmt.Errorf("%w: zstd decoder caps must be at least %d bytes", ErrLimit, minDecoderWindow)
	}
	return l, nil
}

func fillInt64(v *int64, def int64) {
	if *v == 0 {
		*v = def
	}
}
