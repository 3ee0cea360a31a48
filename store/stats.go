package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Stats describes what a store holds.
type Stats struct {
	// Kinds has one line per category: "blob" (raw blobs in one piece), "chunked-blob" (raw
	// blobs stored as a chunk list), "chunk", then one per structured object kind, in that
	// order. Empty categories are left out.
	Kinds []KindStats
	// Logical is the size of every blob and object as it reads back.
	Logical int64
	// Unique is the content actually kept after deduplication: blobs and objects stored in one
	// piece, plus every chunk once.
	Unique int64
	// Stored is what the records take after compression.
	Stored int64
	// Internal is what the engine keeps besides content and refs, for its own use
	// (the listing cache; the Badger store: packed bytes no record is counted for any more,
	// and version 3 compression dictionaries): see InternalSizer. Not part of Stored.
	Internal int64
	// Refs counts refs per namespace ("bundles/", "tags/", …), sorted by namespace.
	Refs []RefStats
}

// KindStats counts one category of entries.
type KindStats struct {
	Name       string
	Count      int
	Size       int64 // content bytes
	StoredSize int64 // bytes after compression
}

// RefStats counts the refs of one namespace.
type RefStats struct {
	Namespace string
	Count     int
}

// DedupRatio is Logical / Unique: how many times over chunk sharing stores the content.
// It is 1 for an empty store.
func (s *Stats) DedupRatio() float64 { return ratio(s.Logical, s.Unique) }

// CompressionRatio is Unique / Stored. It is 1 for an empty store.
func (s *Stats) CompressionRatio() float64 { return ratio(s.Unique, s.Stored) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Stat category names that are not object kinds.
const (
	statBlob        = "blob"
	statChunkedBlob = "chunked-blob"
	statChunk       = "chunk"
)

// InternalSizer is implemented by stores that keep data of their own besides content and refs.
type InternalSizer interface {
	InternalSize(ctx context.Context) (int64, error)
}

// GatherStats walks the store once and counts its entries and refs. It reads headers only.
func GatherStats(ctx context.Context, s Store) (*Stats, error) {
	byName := map[string]*KindStats{}
	st := &Stats{}
	err := s.Walk(ctx, func(e Entry) error {
		name := statCategory(e)
		ks := byName[name]
		if ks == nil {
			ks = &KindStats{Name: name}
			byName[name] = ks
		}
		ks.Count++
		ks.Size += e.Size
		ks.StoredSize += e.StoredSize
		st.Stored += e.StoredSize
		if !e.Chunk {
			st.Logical += e.Size
		}
		if e.Chunk || len(e.Chunks) == 0 {
			st.Unique += e.Size
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: stats: walk: %w", err)
	}
	for _, name := range statOrder() {
		if ks := byName[name]; ks != nil {
			st.Kinds = append(st.Kinds, *ks)
		}
	}
	if is, ok := s.(InternalSizer); ok {
		if st.Internal, err = is.InternalSize(ctx); err != nil {
			return nil, fmt.Errorf("store: stats: %w", err)
		}
	}
	refs, err := s.ListRefs(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("store: stats: list refs: %w", err)
	}
	counts := map[string]int{}
	for _, r := range refs {
		counts[refNamespace(r.Name)]++
	}
	for ns, n := range counts {
		st.Refs = append(st.Refs, RefStats{Namespace: ns, Count: n})
	}
	slices.SortFunc(st.Refs, func(a, b RefStats) int { return strings.Compare(a.Namespace, b.Namespace) })
	return st, nil
}

func statCategory(e Entry) string {
	switch {
	case e.Chunk:
		return statChunk
	case e.Kind != "":
		return string(e.Kind)
	case len(e.Chunks) > 0:
		return statChunkedBlob
	}
	return statBlob
}

func statOrder() []string {
	order := []string{statBlob, statChunkedBlob, statChunk}
	for _, k := range Kinds() {
		order = append(order, string(k))
	}
	return order
}
