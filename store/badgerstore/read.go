package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dgraph-io/badger/v4"

	"github.com/oasis-replay/oasis-replay/store"
)

// errNoKey is the internal "no such key"; callers turn it into store.ErrNotFound with the name.
var errNoKey = errors.New("badgerstore: no such key")

// viewValue runs fn on the value of key inside a read transaction. The value is only valid
// during fn.
func (s *Store) viewValue(key []byte, fn func(v []byte) error) error {
	return s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return errNoKey
		}
		if err != nil {
			return err
		}
		return item.Value(fn)
	})
}

// lookupError names the digest in a failed lookup.
func lookupError(what string, d store.Digest, err error) error {
	if errors.Is(err, errNoKey) {
		return fmt.Errorf("%w: %s %s", store.ErrNotFound, what, d)
	}
	return fmt.Errorf("%s %s: %w", what, d, err)
}

// headerOf decodes the record of d without its payload.
func (s *Store) headerOf(d store.Digest) (rec record, stored int, err error) {
	err = s.viewValue(contentKey(d), func(v []byte) error {
		stored = len(v)
		rec, err = decodeRecord(v)
		rec.payload = nil // aliases the transaction's memory
		return err
	})
	if err != nil {
		return record{}, 0, lookupError("blob", d, err)
	}
	return rec, stored, nil
}

// loadContent reads the record of d and, for an inline record, its verified content.
func (s *Store) loadContent(d store.Digest) (rec record, content []byte, err error) {
	err = s.viewValue(contentKey(d), func(v []byte) error {
		if rec, err = decodeRecord(v); err != nil {
			return err
		}
		if rec.typ == recChunkList {
			return nil
		}
		if rec.typ != recInline {
			return fmt.Errorf("%w: record type %q under a blob key", store.ErrCorrupt, rec.typ)
		}
		content, err = s.decodeContent(&rec, nil)
		if err == nil && rec.codec == codecRaw {
			content = bytes.Clone(content) // the payload aliases the transaction's memory
		}
		rec.payload = nil
		return err
	})
	if err != nil {
		return record{}, nil, lookupError("blob", d, err)
	}
	if rec.typ == recInline {
		if got := store.Sum(content); got != d {
			return record{}, nil, fmt.Errorf("%w: blob %s: content hashes to %s", store.ErrCorrupt, d, got)
		}
	}
	return rec, content, nil
}

// Stat implements store.Store.
func (s *Store) Stat(ctx context.Context, d store.Digest) (store.Entry, error) {
	if err := s.enter(); err != nil {
		return store.Entry{}, err
	}
	defer s.leave()
	rec, stored, err := s.headerOf(d)
	if err != nil {
		return store.Entry{}, err
	}
	return entryOf(d, rec, stored), nil
}

func entryOf(d store.Digest, rec record, stored int) store.Entry {
	e := store.Entry{Digest: d, Size: rec.size, Kind: rec.kind, StoredSize: int64(stored), Chunk: rec.typ == recChunk}
	if rec.typ == recChunkList {
		e.Chunks = make([]store.Digest, len(rec.chunks))
		for i, c := range rec.chunks {
			e.Chunks[i] = c.key
		}
	}
	return e
}

// OpenBlob implements store.Store. Inline content is verified before the reader is returned;
// chunked content is verified chunk by chunk as it is read, with Workers chunks fetched and
// decompressed ahead of the reader, and the whole digest is checked before io.EOF is returned.
func (s *Store) OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error) {
	if err := s.enter(); err != nil {
		return nil, 0, err
	}
	defer s.leave()
	rec, content, err := s.loadContent(d)
	if err != nil {
		return nil, 0, err
	}
	if rec.typ == recInline {
		return io.NopCloser(bytes.NewReader(content)), rec.size, nil
	}
	return newChunkReader(ctx, s, d, rec), rec.size, nil
}

// GetObject implements store.Store.
func (s *Store) GetObject(ctx context.Context, d store.Digest) ([]byte, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	rec, _, err := s.headerOf(d)
	if err != nil {
		return nil, err
	}
	if rec.kind == "" {
		return nil, fmt.Errorf("%w: %s is a blob, not a structured object", store.ErrNotFound, d)
	}
	if rec.size > s.opts.MaxObjectSize {
		return nil, fmt.Errorf("%w: object %s has %d bytes, the limit is %d", store.ErrTooLarge, d, rec.size, s.opts.MaxObjectSize)
	}
	rec, content, err := s.loadContent(d)
	if err != nil || rec.typ == recInline {
		return content, err
	}
	r := newChunkReader(ctx, s, d, rec)
	defer r.Close()
	var buf bytes.Buffer
	buf.Grow(int(rec.size))
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeChunk implements store.ChunkDecoder: it decodes the record of the chunk under key and
// returns the length of its content. A chunk's bytes can only be verified through a chunk list
// that names it (its key commits to the whole prefix of its blob), so this checks the record
// alone: header, codec and decompressed size.
func (s *Store) DecodeChunk(ctx context.Context, key store.Digest) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := s.enter(); err != nil {
		return 0, err
	}
	defer s.leave()
	buf := s.getBuf()
	defer s.putBuf(buf)
	content, err := s.readChunk(chunkRef{key: key, size: -1}, *buf)
	if err != nil {
		return 0, lookupError("chunk", key, err)
	}
	return int64(len(content)), nil
}

// readChunk returns the content of the chunk c, decoded into buf when it is compressed and big
// enough. A size of -1 accepts any size. The content is not verified: the caller derives the
// key from the blob's prefix and compares (chunkReader.Read). A missing chunk is errNoKey.
func (s *Store) readChunk(c chunkRef, buf []byte) ([]byte, error) {
	var content []byte
	err := s.viewValue(chunkKey(c.key), func(v []byte) error {
		rec, err := decodeRecord(v)
		if err != nil {
			return err
		}
		if rec.typ != recChunk {
			return fmt.Errorf("%w: record type %q under a chunk key", store.ErrCorrupt, rec.typ)
		}
		if c.size >= 0 && rec.size != c.size {
			return fmt.Errorf("%w: chunk has %d bytes, the chunk list says %d", store.ErrCorrupt, rec.size, c.size)
		}
		content, err = s.decodeContent(&rec, buf)
		if err == nil && rec.codec == codecRaw {
			content = append(buf[:0], content...) // the payload aliases the transaction's memory
		}
		return err
	})
	return content, err
}

// chunkReader streams a chunked blob through a pipeline: fetch goroutines read and decompress
// up to Workers chunks ahead, and one verifier goroutine hashes the chunks in order, derives
// each key from the running hash and compares it with the chunk list, then hands the chunk to
// the reader; it checks the whole digest after the last one. The reader never receives bytes
// of a chunk that failed verification, and the consumer's own work (parsing what it reads)
// runs beside the hashing and decompression rather than after them.
type chunkReader struct {
	s      *Store
	ctx    context.Context
	cancel context.CancelFunc
	digest store.Digest
	rec    record

	started  bool
	verified chan *fetch   // verified chunks, in order; a fetch with err ends the stream
	done     chan struct{} // closed when the verifier has stopped
	cur      *fetch
	off      int
	err      error // sticky: io.EOF or the first failure
}

// verifiedAhead is how many verified chunks wait for the reader.
const verifiedAhead = 2

// fetch is one chunk being read ahead.
type fetch struct {
	done chan struct{}
	buf  *[]byte
	data []byte
	err  error
}

func newChunkReader(ctx context.Context, s *Store, d store.Digest, rec record) *chunkReader {
	ctx, cancel := context.WithCancel(ctx)
	return &chunkReader{s: s, ctx: ctx, cancel: cancel, digest: d, rec: rec,
		verified: make(chan *fetch, verifiedAhead), done: make(chan struct{})}
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if !r.started {
		r.started = true
		go r.verify()
	}
	for r.err == nil {
		if r.cur != nil && r.off < len(r.cur.data) {
			n := copy(p, r.cur.data[r.off:])
			r.off += n
			return n, nil
		}
		r.release(r.cur)
		r.cur = nil
		f, ok := <-r.verified
		switch {
		case !ok:
			r.err = r.ctx.Err() // the verifier stopped early: cancelled
			if r.err == nil {
				r.err = ErrClosed
			}
		case f.err != nil:
			r.err = f.err
		default:
			r.cur, r.off = f, 0
		}
	}
	return 0, r.err
}

// verify is the verifier goroutine: it keeps Workers fetches in flight and passes each chunk
// on once verified, then io.EOF or the first error, and stops.
func (r *chunkReader) verify() {
	defer close(r.done)
	defer close(r.verified)
	chain := newPrefixChain()
	var pending []*fetch
	defer func() {
		for _, f := range pending {
			<-f.done
			r.release(f)
		}
	}()
	started := 0
	send := func(f *fetch) bool {
		select {
		case r.verified <- f:
			return true
		case <-r.ctx.Done():
			r.release(f)
			return false
		}
	}
	for i, c := range r.rec.chunks {
		for started < len(r.rec.chunks) && len(pending) < r.s.opts.Workers {
			f := &fetch{done: make(chan struct{})}
			pending = append(pending, f)
			go r.s.fetchChunk(r.ctx, r.rec.chunks[started], f)
			started++
		}
		f := pending[0]
		pending = pending[1:]
		select {
		case <-f.done:
		case <-r.ctx.Done():
			<-f.done
		}
		err := f.err
		if err == nil {
			err = r.ctx.Err()
		}
		if err == nil {
			err = verifyChunk(chain, f.data, c.key)
		}
		if err != nil {
			r.release(f)
			send(&fetch{err: fmt.Errorf("blob %s: chunk %d of %d (%s): %w", r.digest, i+1, len(r.rec.chunks), c.key, err)})
			return
		}
		if !send(f) {
			return
		}
	}
	end := io.EOF
	if got := chain.digest(); got != r.digest {
		end = fmt.Errorf("%w: blob %s: chunks hash to %s", store.ErrCorrupt, r.digest, got)
	}
	send(&fetch{err: end})
}

// verifyChunk hashes the next chunk's bytes and checks the key they give against the chunk
// list.
func verifyChunk(chain *prefixChain, data []byte, want store.Digest) error {
	key, err := chain.next(data)
	if err != nil {
		return err
	}
	if key != want {
		return fmt.Errorf("%w: its bytes, after the blob's previous chunks, give the key %s", store.ErrCorrupt, key)
	}
	return nil
}

func (s *Store) fetchChunk(ctx context.Context, c chunkRef, f *fetch) {
	defer close(f.done)
	if f.err = ctx.Err(); f.err != nil {
		return
	}
	if f.err = s.enter(); f.err != nil {
		return
	}
	defer s.leave()
	f.buf = s.getBuf()
	f.data, f.err = s.readChunk(c, *f.buf)
	if errors.Is(f.err, errNoKey) {
		// The chunk list names it, so its absence is damage, not a lookup miss.
		f.err = fmt.Errorf("%w: the chunk is missing", store.ErrCorrupt)
	}
}

func (r *chunkReader) release(f *fetch) {
	if f != nil && f.buf != nil {
		r.s.putBuf(f.buf)
		f.buf, f.data = nil, nil
	}
}

// Close stops the verifier and the fetches still running and returns their buffers.
func (r *chunkReader) Close() error {
	r.cancel()
	if r.started {
		<-r.done
		for f := range r.verified {
			r.release(f)
		}
	}
	r.release(r.cur)
	r.cur = nil
	if r.err == nil {
		r.err = ErrClosed
	}
	return nil
}
