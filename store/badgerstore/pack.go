package badgerstore

import (
	"bytes"
	"container/list"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/klauspost/compress/zstd"

	"github.com/oasis-replay/oasis-replay/store"
)

// Packs (format version 4). A recording is mostly small JSON documents, and two recordings of
// one evaluation differ in little but their timestamps and identifiers: compressed one at a
// time, each document keeps a good part of its size, where one tar | zstd stream of many
// recordings costs little more than one. So the small records a session writes (the writes
// between two Syncs) are compressed together, as one pack, and a pack may be compressed with an
// earlier one, a base, as its history, which then costs little more than what differs from
// it. See "Packs" in doc.go.

const (
	// nsPack keys packs: 'p' uint64be(number) → a pack record.
	nsPack byte = 'p'
	// packMaxRecord is the largest content that goes into a pack: evidence objects and small
	// blobs, not the chunks of audit logs.
	packMaxRecord = 1 << 20
	// packMaxContent caps a pack's content: a session that writes more cuts a pack when it
	// reaches it.
	packMaxContent = 4 << 20
	// packMinBase is the least content of a pack that may become a base.
	packMinBase = 16 << 10
	// packWindow is the compressor's window with a base: the base's content and the pack's.
	packWindow = 2 * packMaxContent
	// maxActiveBases is how many bases new packs are tried against: recordings of a few kinds
	// (several agents, several evaluations) each keep one that fits them.
	maxActiveBases = 4
	// packCacheBytes bounds the decoded packs kept for reads.
	packCacheBytes = 32 << 20
)

// metaBasesKey holds the numbers of the active bases, the newest first, each a uint64be.
var metaBasesKey = []byte{nsMeta, 'b', 'a', 's', 'e', 's'}

func packKey(n uint64) []byte { return binary.BigEndian.AppendUint64([]byte{nsPack}, n) }

// packs is what a store knows of its packs: the session being gathered into the next pack,
// the active bases, the next pack number, and the packs decoded lately.
type packs struct {
	cut        sync.Mutex // one pack is cut at a time
	mu         sync.Mutex
	session    []packMember
	sessionLen int
	bases      []uint64 // newest first
	next       uint64   // 0 until the first pack this process writes
	cache      packCache
}

// packMember is a record of the session: its digest and content.
type packMember struct {
	d       store.Digest
	content []byte
}

// loadBases reads the active bases when the store is opened.
func (s *Store) loadBases() error {
	err := s.viewValue(metaBasesKey, func(v []byte) error {
		if len(v)%8 != 0 || len(v) > 8*maxActiveBases {
			return fmt.Errorf("%w: active bases: a value of %d bytes", store.ErrCorrupt, len(v))
		}
		for ; len(v) > 0; v = v[8:] {
			s.packs.bases = append(s.packs.bases, binary.BigEndian.Uint64(v))
		}
		return nil
	})
	if errors.Is(err, errNoKey) {
		return nil
	}
	return err
}

// gather notes a record putInline wrote for the session's pack, and cuts the pack when the
// session reaches packMaxContent.
func (s *Store) gather(d store.Digest, content []byte) error {
	if len(content) > packMaxRecord {
		return nil
	}
	s.packs.mu.Lock()
	s.packs.session = append(s.packs.session, packMember{d: d, content: bytes.Clone(content)})
	s.packs.sessionLen += len(content)
	full := s.packs.sessionLen >= s.packLimit()
	s.packs.mu.Unlock()
	if full {
		return s.cutPack()
	}
	return nil
}

// packLimit is the most content a pack of this store holds: in memory, Badger's largest value.
func (s *Store) packLimit() int {
	if s.dir == "" {
		return inMemoryValueLimit - maxRecordHeader - digestSize - binary.MaxVarintLen64
	}
	return packMaxContent
}

// cutPack compresses what the session wrote into one pack, and rewrites each of its records as
// a span of the pack, in one transaction. A record deleted or rewritten since it was written is
// left as it is. A pack that would save nothing (one record, or no base to compress it with
// and too little content to become a base) is not written: the records stay as they are.
func (s *Store) cutPack() error {
	s.packs.cut.Lock()
	defer s.packs.cut.Unlock()
	s.packs.mu.Lock()
	members := s.packs.session
	s.packs.session, s.packs.sessionLen = nil, 0
	bases := slices.Clone(s.packs.bases)
	s.packs.mu.Unlock()
	if len(members) == 0 {
		return nil
	}
	// The content is allocated at its size: the pack may stay in the cache, which counts
	// its length, and a slice grown by appending holds up to twice that.
	size := 0
	for _, m := range members {
		size += len(m.content)
	}
	content := make([]byte, 0, size)
	offsets := make([]int64, len(members))
	for i, m := range members {
		offsets[i] = int64(len(content))
		content = append(content, m.content...)
	}
	c, base, payload, err := s.compressPack(content, bases)
	if err != nil {
		return err
	}
	newBase := c != codecDict && len(content) >= packMinBase
	if c != codecDict && !newBase && len(members) == 1 {
		return nil
	}
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	n, err := s.nextPack()
	if err != nil {
		return err
	}
	rec := appendPack(nil, c, int64(len(content)), store.Sum(content), base, payload)
	active := bases
	if newBase {
		active = append([]uint64{n}, bases...)[:min(len(bases)+1, maxActiveBases)]
	}
	err = s.update(len(rec)+len(members)*(maxRecordHeader+3*binary.MaxVarintLen64), true, func(txn *badger.Txn) error {
		if err := txn.Set(packKey(n), rec); err != nil {
			return err
		}
		for i, m := range members {
			if err := repack(txn, m, n, offsets[i]); err != nil {
				return err
			}
		}
		if !newBase {
			return nil
		}
		var ids []byte
		for _, b := range active {
			ids = binary.BigEndian.AppendUint64(ids, b)
		}
		return txn.Set(metaBasesKey, ids)
	})
	if errors.Is(err, badger.ErrTxnTooBig) {
		return nil // the records stay as they are
	}
	if err != nil {
		return fmt.Errorf("badgerstore: write pack %d: %w", n, err)
	}
	s.packs.mu.Lock()
	s.packs.next = n + 1
	if newBase {
		s.packs.bases = active
	}
	s.packs.mu.Unlock()
	s.packs.cache.put(n, decodedPack{content: content, alone: c != codecDict})
	return nil
}

// repack rewrites the record of m as a span of pack n, if it is still the inline record the
// session wrote.
func repack(txn *badger.Txn, m packMember, n uint64, offset int64) error {
	item, err := txn.Get(contentKey(m.d))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var v []byte
	err = item.Value(func(val []byte) error {
		rec, err := decodeRecord(val)
		if err != nil || rec.typ != recInline || rec.size != int64(len(m.content)) {
			return nil
		}
		code, err := kindCode(rec.kind)
		if err != nil {
			return err
		}
		v = appendPacked(nil, code, rec.size, n, offset)
		return nil
	})
	if err != nil || v == nil {
		return err
	}
	return txn.Set(contentKey(m.d), v)
}

// nextPack returns the number of the next pack: one more than the highest in the store.
func (s *Store) nextPack() (uint64, error) {
	s.packs.mu.Lock()
	next := s.packs.next
	s.packs.mu.Unlock()
	if next > 0 {
		return next, nil
	}
	next = 1
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsPack}, Reverse: true})
		defer it.Close()
		it.Seek(packKey(^uint64(0)))
		if it.Valid() {
			if key := it.Item().Key(); len(key) == 9 {
				next = binary.BigEndian.Uint64(key[1:]) + 1
			}
		}
		return nil
	})
	return next, err
}

// compressPack compresses a pack's content alone and with each active base, and keeps the
// smallest, unless no base saves a quarter of what the content costs alone: then the pack is
// stored alone, to become a base (cutPack) that later packs like it are compressed with.
//
// Packs are small and cut once per session, so they are compressed at zstd's "better" level,
// which stores twenty similar recordings in a fifth less than its default level; one encoder
// does every compression, its match tables taking about 36 MiB with a base. Its best level
// would save an eighth more but take 150 MiB. A store opened with Options.SmallMemory uses the
// default level, about 16 MiB.
func (s *Store) compressPack(content []byte, bases []uint64) (c codec, base uint64, payload []byte, err error) {
	level := zstd.SpeedBetterCompression
	if s.opts.SmallMemory {
		level = zstd.SpeedDefault
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(false),
		zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(packWindow))
	if err != nil {
		return 0, 0, nil, fmt.Errorf("badgerstore: pack encoder: %w", err)
	}
	defer enc.Close()
	payload = enc.EncodeAll(content, nil)
	c = codecZstd
	if len(payload) >= len(content) {
		c, payload = codecRaw, content
	}
	alone := len(payload)
	for _, b := range bases {
		history, _, err := s.pack(b)
		if err != nil {
			continue // a damaged base is reported by reads of the packs made with it
		}
		if err := enc.ResetWithOptions(nil, zstd.WithEncoderDictRaw(packDictID, history)); err != nil {
			return 0, 0, nil, fmt.Errorf("badgerstore: pack encoder: %w", err)
		}
		if withBase := enc.EncodeAll(content, nil); len(withBase) < min(len(payload), 3*alone/4) {
			c, base, payload = codecDict, b, withBase
		}
	}
	return c, base, payload, nil
}

// packDictID is the dictionary id written in frames compressed with a base. Each decoder knows
// one base, so the id only has to be non-zero.
const packDictID = 1

// pack returns the content of pack n, decoded and verified against the digest its record
// holds, and whether the pack is compressed alone (and so may be a base). Packs read lately are
// kept decoded.
func (s *Store) pack(n uint64) (content []byte, alone bool, err error) {
	if p, ok := s.packs.cache.get(n); ok {
		return p.content, p.alone, nil
	}
	err = s.viewValue(packKey(n), func(v []byte) error {
		rec, err := decodeRecord(v)
		if err != nil {
			return err
		}
		if rec.typ != recPack {
			return fmt.Errorf("%w: record type %q under a pack key", store.ErrCorrupt, rec.typ)
		}
		alone = rec.codec != codecDict
		content, err = s.decodePack(&rec)
		if err != nil {
			return err
		}
		if got := store.Sum(content); got != rec.sum {
			return fmt.Errorf("%w: its content hashes to %s, its record says %s", store.ErrCorrupt, got, rec.sum)
		}
		return nil
	})
	if errors.Is(err, errNoKey) {
		return nil, false, fmt.Errorf("%w: pack %d is missing", store.ErrCorrupt, n)
	}
	if err != nil {
		return nil, false, fmt.Errorf("pack %d: %w", n, err)
	}
	s.packs.cache.put(n, decodedPack{content: content, alone: alone})
	return content, alone, nil
}

// decodePack decompresses the payload of pack n, with its base's content as history for
// codecDict. A base is always a pack compressed alone, so this goes one level deep at most.
func (s *Store) decodePack(rec *record) ([]byte, error) {
	switch rec.codec {
	case codecRaw:
		return bytes.Clone(rec.payload), nil
	case codecZstd:
		return s.decodeContent(rec, nil)
	}
	history, alone, err := s.pack(rec.base)
	if err != nil {
		return nil, fmt.Errorf("its base: %w", err)
	}
	if !alone {
		return nil, fmt.Errorf("%w: its base, pack %d, is not compressed alone", store.ErrCorrupt, rec.base)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderDictRaw(packDictID, history),
		zstd.WithDecoderMaxMemory(maxChunkLimit), zstd.WithDecoderMaxWindow(packWindow), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("badgerstore: pack decoder: %w", err)
	}
	defer dec.Close()
	out, err := dec.DecodeAll(rec.payload, make([]byte, 0, rec.size))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %v", store.ErrCorrupt, err)
	}
	if int64(len(out)) != rec.size {
		return nil, fmt.Errorf("%w: decompressed to %d bytes, header says %d", store.ErrCorrupt, len(out), rec.size)
	}
	return out, nil
}

// packedContent returns the content of the packed record rec, not yet verified.
func (s *Store) packedContent(rec *record) ([]byte, error) {
	content, _, err := s.pack(rec.pack)
	if err != nil {
		return nil, err
	}
	if rec.offset+rec.size > int64(len(content)) {
		return nil, fmt.Errorf("%w: bytes %d to %d of pack %d, which holds %d", store.ErrCorrupt, rec.offset, rec.offset+rec.size, rec.pack, len(content))
	}
	return bytes.Clone(content[rec.offset : rec.offset+rec.size]), nil
}

// packSizes are a pack's content size and stored size, for the share of it a record is counted.
type packSizes struct{ content, stored int64 }

// sizesOf reads the sizes of pack n in txn; zero sizes for a pack that is missing or damaged.
func sizesOf(txn *badger.Txn, n uint64) packSizes {
	item, err := txn.Get(packKey(n))
	if err != nil {
		return packSizes{}
	}
	var sz packSizes
	_ = item.Value(func(v []byte) error {
		if rec, err := decodeRecord(v); err == nil && rec.typ == recPack {
			sz = packSizes{content: rec.size, stored: int64(len(v))}
		}
		return nil
	})
	return sz
}

// share is what a packed record of size bytes is counted of its pack's stored size: the
// pack's stored size in proportion to the record's part of its content.
func (p packSizes) share(size int64) int64 {
	if p.content == 0 {
		return 0
	}
	return p.stored * size / p.content
}

// prunePacks deletes the packs no record is in any more, unless a pack still in use has it as
// its base or it is an active base. Compact calls it after garbage collection. A pack some of
// whose records were removed is kept whole.
func (s *Store) prunePacks() error {
	used := map[uint64]bool{}
	var stored []uint64
	err := s.db.View(func(txn *badger.Txn) error {
		err := eachRecord(txn, func(rec *record) {
			if rec.typ == recPacked {
				used[rec.pack] = true
			}
		})
		if err != nil {
			return err
		}
		pit := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsPack}})
		defer pit.Close()
		for pit.Rewind(); pit.Valid(); pit.Next() {
			key := pit.Item().Key()
			if len(key) != 9 {
				continue
			}
			n := binary.BigEndian.Uint64(key[1:])
			stored = append(stored, n)
			if !used[n] {
				continue
			}
			err := pit.Item().Value(func(v []byte) error {
				if rec, err := decodeRecord(v); err == nil && rec.typ == recPack && rec.codec == codecDict {
					used[rec.base] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.packs.mu.Lock()
	active := slices.Clone(s.packs.bases)
	s.packs.mu.Unlock()
	for _, n := range stored {
		if used[n] || slices.Contains(active, n) {
			continue
		}
		if err := s.update(9, false, func(txn *badger.Txn) error { return txn.Delete(packKey(n)) }); err != nil {
			return err
		}
		s.packs.cache.drop(n)
	}
	return nil
}

// packCache keeps the packs read lately, decoded, up to packCacheBytes of content, so that
// reading the records of one recording decodes its pack once. Callers must not modify what it
// holds.
type packCache struct {
	mu    sync.Mutex
	order list.List // of uint64, the most recently used first
	byNum map[uint64]*list.Element
	data  map[uint64]decodedPack
	bytes int
}

// decodedPack is the content of a pack, and whether it is compressed alone.
type decodedPack struct {
	content []byte
	alone   bool
}

func (c *packCache) get(n uint64) (decodedPack, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byNum[n]
	if e == nil {
		return decodedPack{}, false
	}
	c.order.MoveToFront(e)
	return c.data[n], true
}

func (c *packCache) put(n uint64, p decodedPack) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byNum == nil {
		c.byNum, c.data = map[uint64]*list.Element{}, map[uint64]decodedPack{}
	}
	if c.byNum[n] != nil {
		return
	}
	c.byNum[n], c.data[n] = c.order.PushFront(n), p
	c.bytes += len(p.content)
	for c.bytes > packCacheBytes && c.order.Len() > 1 {
		c.dropLocked(c.order.Back().Value.(uint64))
	}
}

func (c *packCache) drop(n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(n)
}

func (c *packCache) dropLocked(n uint64) {
	if e := c.byNum[n]; e != nil {
		c.order.Remove(e)
		c.bytes -= len(c.data[n].content)
		delete(c.byNum, n)
		delete(c.data, n)
	}
}

// packedBytes returns what the packs occupy that no record is counted for: the bytes of packs
// (or of the parts of them) whose records were removed, and what rounding leaves over.
func packedBytes(ctx context.Context, txn *badger.Txn) (int64, error) {
	counted := map[uint64]int64{}
	sizes := map[uint64]packSizes{}
	err := eachRecord(txn, func(rec *record) {
		if rec.typ != recPacked {
			return
		}
		sz, ok := sizes[rec.pack]
		if !ok {
			sz = sizesOf(txn, rec.pack)
			sizes[rec.pack] = sz
		}
		counted[rec.pack] += sz.share(rec.size)
	})
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	pit := txn.NewIterator(badger.IteratorOptions{Prefix: []byte{nsPack}})
	defer pit.Close()
	for pit.Rewind(); pit.Valid(); pit.Next() {
		key := pit.Item().Key()
		n += int64(len(key)) + pit.Item().ValueSize()
		if len(key) == 9 {
			n -= counted[binary.BigEndian.Uint64(key[1:])]
		}
	}
	return n, nil
}
