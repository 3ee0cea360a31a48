package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// This file holds the readers stacked under archive/tar: the archive file (countingReader), the
// zstd decoder, the decompressed stream with its limit (limitedReader), and one entry handed to a
// sink (entryReader), plus the translation of their errors into the package's.

// readError turns an error met while reading the tar stream into one of the package's errors,
// saying where it happened ("in" an entry, "after" one). Errors already classified by
// limitedReader keep their sentinel.
func readError(err error, where string) error {
	var classified *streamError
	switch {
	case errors.As(err, &classified), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w (%s)", err, where)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the stream ends %s", ErrTruncated, where)
	default:
		return fmt.Errorf("%w: %s: %w", ErrMalformed, where, err)
	}
}

// streamError is an error of the decompressed stream itself, already wrapping its sentinel.
type streamError struct{ err error }

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// limitedReader is the decompressed tar stream: it counts bytes, enforces MaxTotalBytes, stops on
// cancellation, and classifies the zstd decoder's errors.
type limitedReader struct {
	ctx    context.Context
	r      io.Reader       // the zstd decoder
	input  *countingReader // what the decoder reads
	n, max int64
	err    error
	onRead func()
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	// Read at most one byte past the limit: that byte proves the limit is exceeded.
	room := l.max - l.n
	if int64(len(p)) > room {
		p = p[:room+1]
	}
	n, err := l.r.Read(p)
	if int64(n) > room {
		n = int(room)
		err = fmt.Errorf("%w: the archive decompresses to more than %d bytes (MaxTotalBytes)", ErrLimit, l.max)
	}
	l.n += int64(n)
	if err != nil && err != io.EOF {
		l.err = &streamError{err: l.classify(err)}
		err = l.err
	}
	l.onRead()
	return n, err
}

// classify tells the archive's failures from the input's: a read error of the archive file
// itself (a disk or network failure) is returned as it is, not blamed on the archive.
func (l *limitedReader) classify(err error) error {
	if inputErr := l.input.failure(); inputErr != nil {
		return fmt.Errorf("archive: read the archive: %w", inputErr)
	}
	return decoderError(err)
}

// decoderError classifies an error of the zstd decoder.
func decoderError(err error) error {
	switch {
	case errors.Is(err, ErrLimit):
		return err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the zstd stream ends inside a frame", ErrTruncated)
	case errors.Is(err, zstd.ErrWindowSizeExceeded), errors.Is(err, zstd.ErrDecoderSizeExceeded):
		return fmt.Errorf("%w: zstd frame needs more memory than MaxDecoderWindow/MaxDecoderMemory allow: %w", ErrLimit, err)
	default:
		return fmt.Errorf("%w: %w", ErrCompression, err)
	}
}

// countingReader reads the archive file, counting bytes and keeping the first read error. The
// zstd decoder reads it from its own goroutines, hence the atomics.
type countingReader struct {
	r   io.Reader
	n   atomic.Int64
	err atomic.Pointer[error]
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	if err != nil && err != io.EOF {
		c.err.CompareAndSwap(nil, &err)
	}
	return n, err
}

// failure returns the first read error of the archive file, or nil.
func (c *countingReader) failure() error {
	if p := c.err.Load(); p != nil {
		return *p
	}
	return nil
}

// entryReader hands one entry's content to a sink and remembers the first read error, so that
// when the sink fails because the archive did, the archive's error is the one reported.
type entryReader struct {
	r   io.Reader
	err error
}

func (e *entryReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}
