package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
)

// GCOptions tune GC.
type GCOptions struct {
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
}

// GCReport is what GC kept and removed.
type GCReport struct {
	DryRun bool
	// Roots is the number of refs marked from.
	Roots int
	// Kept counts the reachable blobs and objects.
	Kept int
	// Removed lists what was removed (or would be, in a dry run), in removal order: objects
	// before what they refer to, then raw blobs, then chunks.
	Removed []Entry
	// RemovedBytes and RemovedStored sum the content and stored sizes of Removed.
	RemovedBytes, RemovedStored int64
	// Missing lists references to content that is not in the store, met while marking. GC
	// does not repair them; Check reports them too.
	Missing []Problem
}

// ChunkDeleter is implemented by stores that can delete a chunk without touching a blob or
// object with the same digest. GC uses it for chunks; without it a chunk is deleted with
// Delete only when no blob or object shares its digest.
type ChunkDeleter interface {
	DeleteChunk(ctx context.Context, d Digest) error
}

// Compactor is implemented by stores that can reclaim the space of deleted content. GC calls it
// after removing something.
type Compactor interface {
	Compact(ctx context.Context) error
}

// GC removes every blob, object and chunk that no ref reaches, as FindGarbage lists them.
//
// The sweep removes unreachable objects before what they refer to, then raw blobs, then
// chunks, so a GC interrupted at any point leaves no object, chunk list or ref pointing at
// removed content: the store stays consistent and GC can simply run again. Reachable content is
// never removed. An object that is reachable but cannot be read stops GC before anything is
// removed, because what it refers to cannot be known. GC must not run while another writer of
// the same store is between writing content and sealing it: that content is not yet reachable.
func GC(ctx context.Context, s Store, opts GCOptions) (*GCReport, error) {
	g, err := FindGarbage(ctx, s)
	if err != nil {
		return nil, fmt.Errorf("store: gc: %w", err)
	}
	report := &GCReport{DryRun: opts.DryRun, Roots: g.Roots, Kept: g.Kept, Removed: g.Entries(), Missing: g.Missing}
	report.RemovedBytes, report.RemovedStored = g.Bytes()
	if opts.DryRun {
		return report, nil
	}
	if err := dropStaleListings(ctx, s, g.sealed); err != nil {
		return report, fmt.Errorf("store: gc: %w", err)
	}
	if len(report.Removed) == 0 {
		return report, nil
	}
	if err := sweep(ctx, s, report.Removed); err != nil {
		return report, err
	}
	if c, ok := s.(Compactor); ok {
		if err := c.Compact(ctx); err != nil {
			return report, fmt.Errorf("store: gc: %w", err)
		}
	}
	return report, s.Sync(ctx)
}

// referrersFirst orders unreachable objects so that each comes before every other unreachable
// object it refers to (Kahn's algorithm, each round in digest order). An object that cannot be
// read is garbage all the same; it is treated as referring to nothing.
func referrersFirst(ctx context.Context, s Store, objects []Entry) ([]Entry, error) {
	index := make(map[Digest]int, len(objects))
	for i, e := range objects {
		index[e.Digest] = i
	}
	children := make([][]int, len(objects))
	parents := make([]int, len(objects))
	for i, e := range objects {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := s.GetObject(ctx, e.Digest)
		if err != nil {
			continue
		}
		_, refs, err := ReferencesOf(b)
		if err != nil {
			continue
		}
		for _, r := range refs {
			if j, ok := index[r.Digest]; ok && !slices.Contains(children[i], j) {
				children[i] = append(children[i], j)
				parents[j]++
			}
		}
	}
	out := make([]Entry, 0, len(objects))
	var ready []int
	for i := range objects {
		if parents[i] == 0 {
			ready = append(ready, i)
		}
	}
	for len(ready) > 0 {
		slices.SortFunc(ready, func(a, b int) int { return bytes.Compare(objects[a].Digest[:], objects[b].Digest[:]) })
		var next []int
		for _, i := range ready {
			out = append(out, objects[i])
			for _, j := range children[i] {
				if parents[j]--; parents[j] == 0 {
					next = append(next, j)
				}
			}
		}
		ready = next
	}
	if len(out) != len(objects) {
		return nil, fmt.Errorf("%w: gc: reference cycle among unreachable objects", ErrCorrupt)
	}
	return out, nil
}

// sweep deletes entries in the given order.
func sweep(ctx context.Context, s Store, entries []Entry) error {
	chunkDeleter, canDeleteChunks := s.(ChunkDeleter)
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		switch {
		case !e.Chunk:
			err = s.Delete(ctx, e.Digest)
		case canDeleteChunks:
			err = chunkDeleter.DeleteChunk(ctx, e.Digest)
		default:
			// Blobs and objects are gone by now; one still present with this digest is
			// reachable, and Delete would remove it rather than the chunk.
			if _, statErr := s.Stat(ctx, e.Digest); statErr == nil {
				continue
			}
			err = s.Delete(ctx, e.Digest)
		}
		if err != nil {
			return fmt.Errorf("store: gc: remove %s: %w", e.Digest, err)
		}
	}
	return nil
}
