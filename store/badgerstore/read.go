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

// loadContent reads the record of d and, for an inline or packed record, its verified
// content.
func (s *Store) loadContent(d store.Digest) (rec record, content []byte, err error) {
	err = s.viewValue(contentKey(d), func(v []byte) error {
		if rec, err = decodeRecord(v); err != nil {
			return err
		}
		switch rec.typ {
		case recChunkList:
			return nil
		case recPacked:
			content, err = s.packedContent(&rec)
			return err
		case recInline:
		default:
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
	if rec.typ != recChunkList {
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
	var sizes packSizes
	if rec.typ == recPacked {
		err = s.db.View(func(txn *badger.Txn) error { sizes = sizesOf(txn, rec.pack); return nil })
	}
	return entryOf(d, rec, int64(stored)+sizes.share(rec.size)), err
}

// entryOf describes the record rec of d, which occupies stored bytes (for a packed record, its
// own and its share of its pack's).
func entryOf(d store.Digest, rec record, stored int64) store.Entry {
	e := store.Entry{Digest: d, Size: rec.size, Kind: rec.kind, StoredSize: stored, Chunk: rec.typ == recChunk}
	if rec.typ == recChunkList {
		e.Chunks = make([]store.Digest, len(rec.chunks))
		for i, c := range rec.chunks {
			e.Chunks[i] = c.key
		}
	}
	return e
}

// OpenBlob implements store.Store. Inline content is verified before the reader is returned;
// chunked content is verified chunk by chunk as it is read, with 2×Workers chunks fetched and
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
	if rec.typ != recChunkList {
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
	if err != nil || rec.typ != recChunkList {
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
// up to 2×Workers chunks ahead, and one verifier goroutine hands the chunks to the reader in
// order, each once it is verified, and checks the whole digest after the last one. A chunk list
// of format version 4 keeps the hash state after each chunk, so each fetch verifies its own
// chunk, from the state the list gives before it, and the hashing is spread over the fetches
// like the decompression; with an older list the verifier hashes the chunks in order, derives
// each key from the running hash and compares it with the list. The reader never receives
// bytes of a chunk that failed verification, and the consumer's own work (parsing what it
// reads) runs beside the hashing and decompression rather than after them.
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
	// sum is the digest of the blob's content, set by the fetch of the last chunk of a list
	// with hash states.
	sum store.Digest
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

// verify is the verifier goroutine: it keeps 2×Workers fetches in flight and passes each chunk
// on once verified, then io.EOF or the first error, and stops.
func (r *chunkReader) verify() {
	defer close(r.done)
	defer close(r.verified)
	var chain *prefixChain // the running hash, for a list without hash states
	if !r.rec.states {
		chain = newPrefixChain()
	}
	var pending []*fetch
	defer func() {
		for _, f := range pending {
			<-f.done
			r.release(f)
		}
	}()
	started, startAt := 0, uint64(0)
	send := func(f *fetch) bool {
		select {
		case r.verified <- f:
			return true
		case <-r.ctx.Done():
			r.release(f)
			return false
		}
	}
	var sum store.Digest
	for i, c := range r.rec.chunks {
		for started < len(r.rec.chunks) && len(pending) < 2*r.s.opts.Workers {
			f := &fetch{done: make(chan struct{})}
			pending = append(pending, f)
			go r.fetch(started, startAt, f)
			startAt += uint64(r.rec.chunks[started].size)
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
		if err == nil && chain != nil {
			err = verifyChunk(chain, f.data, c.key)
		}
		if err != nil {
			r.release(f)
			send(&fetch{err: fmt.Errorf("blob %s: chunk %d of %d (%s): %w", r.digest, i+1, len(r.rec.chunks), c.key, err)})
			return
		}
		sum = f.sum
		if !send(f) {
			return
		}
	}
	if chain != nil {
		sum = chain.digest()
	}
	end := io.EOF
	if sum != r.digest {
		end = fmt.Errorf("%w: blob %s: chunks hash to %s", store.ErrCorrupt, r.digest, sum)
	}
	send(&fetch{err: end})
}

// fetch reads chunk i, which starts at byte offset at of the blob, and verifies it when the
// list keeps hash states.
func (r *chunkReader) fetch(i int, at uint64, f *fetch) {
	defer close(f.done)
	r.s.fetchChunk(r.ctx, r.rec.chunks[i], f)
	if f.err == nil && r.rec.states {
		f.err = r.verifyAlone(i, at, f)
	}
}

// verifyAlone verifies chunk i of a list with hash states: its bytes, hashed on from the state
// the list gives after chunk i-1, must give the chunk's key and the state the list gives after
// it. The state before it is the list's word until chunk i-1 is verified against it, which the
// verifier sees to: it hands chunks out in order and stops at the first failure, so by the
// time this chunk is handed out every state before it has been checked, and the states chain
// from SHA-256's initial state to the digest of the whole content (f.sum, after the last).
func (r *chunkReader) verifyAlone(i int, at uint64, f *fetch) error {
	chain := newPrefixChain()
	if i > 0 {
		var err error
		if chain, err = resumeChain(r.rec.chunks[i-1].after, at); err != nil {
			return err
		}
	}
	c := r.rec.chunks[i]
	if err := verifyChunk(chain, f.data, c.key); err != nil {
		return err
	}
	if !chain.checkpoint().equal(c.after) {
		return fmt.Errorf("%w: the chunk list's hash state after it is not the one its bytes give", store.ErrCorrupt)
	}
	if i == len(r.rec.chunks)-1 {
		f.sum = chain.digest()
	}
	return nil
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

// fetchChunk reads and decodes the chunk c into f.
func (s *Store) fetchChunk(ctx context.Context, c chunkRef, f *fetch) {
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
