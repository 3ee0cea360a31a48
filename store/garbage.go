package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Garbage is what no ref reaches: the blobs, objects and chunks GC removes and Check reports.
// FindGarbage is the one place that decides it, so that `store fsck` and `store gc` always
// agree.
type Garbage struct {
	// Roots is the number of refs marked from; Kept counts the blobs and objects they reach.
	Roots, Kept int
	// Objects are the unreachable structured objects, each before every other one it refers
	// to; Blobs the unreachable raw blobs and Chunks the chunks no reachable chunk list names,
	// both in digest order.
	Objects, Blobs, Chunks []Entry
	// Missing lists references to content that is not in the store, met while marking.
	Missing []Problem
	// sealed holds the bundles the refs name as sealed.
	sealed map[Digest]bool
}

// Entries lists the garbage in removal order: objects before what they refer to, then raw
// blobs, then chunks, so that removing a prefix of it leaves nothing pointing at removed
// content.
func (g *Garbage) Entries() []Entry { return slices.Concat(g.Objects, g.Blobs, g.Chunks) }

// Len is the number of garbage entries.
func (g *Garbage) Len() int { return len(g.Objects) + len(g.Blobs) + len(g.Chunks) }

// Bytes sums the content sizes and the stored sizes of the garbage.
func (g *Garbage) Bytes() (content, stored int64) {
	for _, e := range g.Entries() {
		content += e.Size
		stored += e.StoredSize
	}
	return content, stored
}

// FindGarbage marks the closure of every ref's target and lists everything else. A reachable
// object that cannot be read is an error: what it refers to cannot be known, so nothing can be
// called garbage.
func FindGarbage(ctx context.Context, s Store) (*Garbage, error) {
	refs, err := s.ListRefs(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("store: find garbage: list refs: %w", err)
	}
	g := &Garbage{Roots: len(refs), sealed: map[Digest]bool{}}
	w := newGraphWalk(s, true)
	for _, r := range refs {
		if d, ok := DigestOfRef(r.Name); ok && strings.HasPrefix(r.Name, RefBundlePrefix) && d == r.Digest {
			g.sealed[d] = true
		}
		if err := w.walk(ctx, edge{referrer: "ref " + r.Name, fromRef: r.Name, desc: Descriptor{Digest: r.Digest}, root: true}); err != nil {
			return nil, fmt.Errorf("store: find garbage: mark from ref %s: %w", r.Name, err)
		}
	}
	g.Missing = w.missing
	slices.SortFunc(g.Missing, compareProblems)
	reachable := make(map[Digest]bool, len(w.order))
	chunksKept := map[Digest]bool{}
	for _, e := range w.order {
		reachable[e.Digest] = true
		for _, c := range e.Chunks {
			chunksKept[c] = true
		}
	}
	err = s.Walk(ctx, func(e Entry) error {
		switch {
		case e.Chunk:
			if !chunksKept[e.Digest] {
				g.Chunks = append(g.Chunks, e)
			}
		case reachable[e.Digest]:
			g.Kept++
		case e.Kind != "":
			g.Objects = append(g.Objects, e)
		default:
			g.Blobs = append(g.Blobs, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: find garbage: walk: %w", err)
	}
	if g.Objects, err = referrersFirst(ctx, s, g.Objects); err != nil {
		return nil, err
	}
	return g, nil
}
