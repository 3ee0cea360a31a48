package badgerstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/s2"

	"github.com/oasis-replay/oasis-replay/store"
)

// PutBlob implements store.Store. Content up to ChunkSize bytes is stored in one record; larger
// content is cut into chunks that are compressed on Workers goroutines while the caller's
// goroutine reads ahead and hashes, and the chunk list is written only after every chunk is
// committed, so a crash can leave unreferenced chunks but never a list with missing chunks.
func (s *Store) PutBlob(ctx context.Context, r io.Reader) (store.Digest, int64, error) {
	if err := ctx.Err(); err != nil {
		return store.Digest{}, 0, err
	}
	if err := s.enterWrite(); err != nil {
		return store.Digest{}, 0, err
	}
	defer s.leave()
	buf := s.getBuf()
	defer func() {
		if buf != nil {
			s.putBuf(buf)
		}
	}()
	n, err := io.ReadFull(r, (*buf)[:s.opts.ChunkSize])
	*buf = (*buf)[:n]
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		d, err := s.putInline(*buf, 0, false)
		return d, int64(n), err
	}
	if err != nil {
		return store.Digest{}, 0, fmt.Errorf("badgerstore: read blob: %w", err)
	}
	// Exactly ChunkSize bytes so far: one more byte decides between inline and chunked.
	var one [1]byte
	m, err := io.ReadFull(r, one[:])
	if err == io.EOF {
		d, err := s.putInline(*buf, 0, false)
		return d, int64(n), err
	}
	if err != nil {
		return store.Digest{}, 0, fmt.Errorf("badgerstore: read blob: %w", err)
	}
	first := buf
	buf = nil // handed over to putChunked
	return s.putChunked(ctx, first, io.MultiReader(bytes.NewReader(one[:m]), r), 0, false)
}

// PutObject implements store.Store. The bytes must be a structured object of a known kind and
// schema version, valid under its schema, and exactly canonical JSON.
func (s *Store) PutObject(ctx context.Context, canonical []byte) (store.Descriptor, error) {
	if err := ctx.Err(); err != nil {
		return store.Descriptor{}, err
	}
	if err := s.enterWrite(); err != nil {
		return store.Descriptor{}, err
	}
	defer s.leave()
	if int64(len(canonical)) > s.opts.MaxObjectSize {
		return store.Descriptor{}, fmt.Errorf("%w: object of %d bytes exceeds the limit of %d", store.ErrTooLarge, len(canonical), s.opts.MaxObjectSize)
	}
	kind, _, err := store.ReferencesOf(canonical)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("badgerstore: put object: %w", err)
	}
	again, err := store.Canonicalize(canonical)
	if err != nil {
		return store.Descriptor{}, fmt.Errorf("badgerstore: put %s object: %w", kind, err)
	}
	if !bytes.Equal(again, canonical) {
		return store.Descriptor{}, fmt.Errorf("%w: %s object bytes are not in canonical form", store.ErrNotCanonical, kind)
	}
	code, err := kindCode(kind)
	if err != nil {
		return store.Descriptor{}, err
	}
	var d store.Digest
	if len(canonical) <= s.opts.ChunkSize {
		d, err = s.putInline(canonical, code, true)
	} else {
		first := s.getBuf()
		d, _, err = s.putChunked(ctx, first, bytes.NewReader(canonical), code, true)
	}
	if err != nil {
		return store.Descriptor{}, err
	}
	return store.Descriptor{MediaType: store.MediaTypeOf(kind), Digest: d, Size: int64(len(canonical))}, nil
}

// putInline stores content in one record, compressed alone, and notes it for the session's
// pack (see gather). An existing record is kept, except that a raw blob is relabelled when the
// same bytes are stored as an object (upgrade).
func (s *Store) putInline(content []byte, kind byte, upgrade bool) (store.Digest, error) {
	d := store.Sum(content)
	wrote, err := s.writeContentRecord(d, upgrade, func() ([]byte, error) {
		c, payload := compress(make([]byte, 0, len(content)/2+64), content)
		return appendInline(make([]byte, 0, maxRecordHeader+len(payload)), kind, c, store.Digest{}, int64(len(content)), payload), nil
	})
	if err == nil && wrote {
		err = s.gather(d, content)
	}
	return d, err
}

// writeContentRecord writes the record of d, built by value, unless one is present, and reports
// whether it wrote it: content is immutable, so an existing record is kept (and nothing is
// compressed), except that upgrade relabels a raw blob as an object of the same bytes. Writers
// serialize here so a blob write cannot overwrite an object label.
func (s *Store) writeContentRecord(d store.Digest, upgrade bool, value func() ([]byte, error)) (bool, error) {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	existing, _, err := s.headerOf(d)
	switch {
	case err == nil:
		if !upgrade || existing.kind != "" {
			return false, nil
		}
	case !errors.Is(err, store.ErrNotFound):
		// An unreadable record is replaced by a good one: the bytes are known to be right.
		if !errors.Is(err, store.ErrCorrupt) {
			return false, err
		}
	}
	v, err := value()
	if err != nil {
		return false, err
	}
	if err := s.update(len(v)+1+len(d), true, func(txn *badger.Txn) error { return txn.Set(contentKey(d), v) }); err != nil {
		return false, fmt.Errorf("badgerstore: write %s: %w", d, err)
	}
	return true, nil
}

// putChunked stores content longer than one chunk. first holds the bytes read so far and is
// returned to the pool here.
//
// The caller's goroutine reads the content, hashes it once and derives each chunk's key from
// the running hash (prefixChain); Workers goroutines only compress and write the chunks.
func (s *Store) putChunked(ctx context.Context, first *[]byte, r io.Reader, kind byte, upgrade bool) (store.Digest, int64, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &chunkPipeline{s: s, batch: newBatcher(s), jobs: make(chan chunkJob, s.opts.Workers)}
	var workers sync.WaitGroup
	for range s.opts.Workers {
		workers.Go(func() { p.work(ctx, cancel) })
	}
	chain := newPrefixChain()
	readErr := s.cutChunks(ctx, first, r, func(buf *[]byte) error {
		key, err := chain.next(*buf)
		if err != nil {
			s.putBuf(buf)
			return err
		}
		return p.submit(ctx, chunkRef{key: key, size: int64(len(*buf)), after: chain.checkpoint()}, buf)
	})
	close(p.jobs)
	workers.Wait()
	if readErr == nil {
		readErr = context.Cause(ctx)
	}
	if readErr != nil {
		p.batch.cancel()
		return store.Digest{}, 0, p.rollback(readErr)
	}
	// Every chunk is committed before the list that names it.
	if err := p.batch.finish(); err != nil {
		return store.Digest{}, 0, p.rollback(fmt.Errorf("badgerstore: write chunks: %w", err))
	}
	d, total := chain.digest(), int64(chain.n)
	list := func() ([]byte, error) { return appendChunkList(nil, kind, total, p.refs), nil }
	if _, err := s.writeContentRecord(d, upgrade, list); err != nil {
		return store.Digest{}, 0, p.rollback(err)
	}
	return d, total, nil
}

// rollback undoes a failed write of chunked content: the chunks it wrote are deleted, unless
// another write of this process has claimed them since (see claims), so that a failed
// PutBlob (a reader that fails, a recording whose input turns out malformed half-way, a
// cancelled context) leaves the store as it was. It returns err; if the deletion fails too, the
// chunks stay behind as garbage that store.GC removes.
func (p *chunkPipeline) rollback(err error) error {
	p.mu.Lock()
	written := p.written
	p.mu.Unlock()
	if delErr := p.s.claims.release(p.s, p.claimed, written); delErr != nil {
		return errors.Join(err, fmt.Errorf("badgerstore: undo a failed write: %w", delErr))
	}
	return err
}

// cutChunks reads r after the bytes already in first and calls emit with each chunk, in order:
// ChunkSize bytes each, the last one shorter, none empty. emit takes ownership of the buffer.
func (s *Store) cutChunks(ctx context.Context, first *[]byte, r io.Reader, emit func(*[]byte) error) error {
	buf := first
	for {
		if err := ctx.Err(); err != nil {
			s.putBuf(buf)
			return context.Cause(ctx)
		}
		filled := len(*buf)
		n, err := io.ReadFull(r, (*buf)[filled:s.opts.ChunkSize])
		*buf = (*buf)[:filled+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			s.putBuf(buf)
			return fmt.Errorf("badgerstore: read blob: %w", err)
		}
		if len(*buf) == 0 {
			s.putBuf(buf)
			return nil
		}
		if err := emit(buf); err != nil || eof {
			return err
		}
		buf = s.getBuf()
	}
}

// chunkJob is one chunk to compress and write under its key.
type chunkJob struct {
	key store.Digest
	buf *[]byte
}

// chunkPipeline hands chunks to the workers and keeps the chunk list, in order. Only the
// reading goroutine touches refs.
type chunkPipeline struct {
	s     *Store
	batch *batcher
	jobs  chan chunkJob
	refs  []chunkRef
	// claimed lists the keys this write claimed (see claims), written those it wrote.
	claimed []store.Digest
	mu      sync.Mutex // guards written
	written []store.Digest
}

func (p *chunkPipeline) submit(ctx context.Context, ref chunkRef, buf *[]byte) error {
	p.refs = append(p.refs, ref)
	p.s.claims.claim(ref.key)
	p.claimed = append(p.claimed, ref.key)
	select {
	case p.jobs <- chunkJob{key: ref.key, buf: buf}:
		return nil
	case <-ctx.Done():
		p.s.putBuf(buf)
		return context.Cause(ctx)
	}
}

// work stores chunks until the jobs run out; the first failure cancels the rest.
//
// Each worker looks chunks up in one read snapshot taken when it starts: a Badger read
// transaction waits for every commit in flight, so opening one per chunk would serialize the
// pipeline behind its own writes. Chunks committed after the snapshot may be written again,
// which is harmless (same key, same bytes).
func (p *chunkPipeline) work(ctx context.Context, fail context.CancelCauseFunc) {
	snapshot := p.s.db.NewTransaction(false)
	defer snapshot.Discard()
	scratch := make([]byte, 0, s2.MaxEncodedLen(p.s.opts.ChunkSize))
	for job := range p.jobs {
		if ctx.Err() == nil {
			if err := p.storeChunk(snapshot, job.key, *job.buf, scratch); err != nil {
				fail(err)
			}
		}
		p.s.putBuf(job.buf)
	}
}

// storeChunk writes one chunk unless it is already stored, which is where chunks deduplicate:
// the key names the chunk's bytes together with everything before them in the blob, so a
// stored chunk under the same key holds the same bytes (see "Chunk keys" in doc.go).
func (p *chunkPipeline) storeChunk(snapshot *badger.Txn, key store.Digest, data, scratch []byte) error {
	_, err := snapshot.Get(chunkKey(key))
	if err == nil {
		return nil
	}
	if !errors.Is(err, badger.ErrKeyNotFound) {
		return fmt.Errorf("badgerstore: look up chunk %s: %w", key, err)
	}
	c, payload := compressChunk(scratch, data)
	value := appendChunk(make([]byte, 0, maxRecordHeader+len(payload)), c, int64(len(data)), payload)
	p.mu.Lock()
	p.written = append(p.written, key)
	p.mu.Unlock()
	if err := p.batch.set(chunkKey(key), value); err != nil {
		return fmt.Errorf("badgerstore: write chunk %s: %w", key, err)
	}
	return nil
}

// has reports whether key is present.
func (s *Store) has(key []byte) (bool, error) {
	err := s.db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(key)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	return err == nil, err
}
