package archive

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/oasis-replay/oasis-replay/store"
)

// sizeUnknown marks a node whose size no descriptor has given yet. Object references made by
// the model itself (a manifest's profile tree, a receipt's digests) carry no size; they are
// recognisable because a structured object is never empty, so an object descriptor of size 0
// means "size not stated".
const sizeUnknown = -1

// node is what the bundle has said so far about one digest.
type node struct {
	mediaType string     // of the first descriptor that named it
	kind      store.Kind // object kind, or "" for a raw blob
	size      int64      // agreed by every descriptor that states one, or sizeUnknown
	referrer  string     // who named it first: index.json or an object's digest
	arrived   bool       // its entry has been read (reader) or visited (export)
}

// graph tracks the digests a bundle refers to. It is fed one object at a time, in archive order,
// and never walks recursively: the archive order guarantees every entry is named before it
// arrives, so a hostile graph (even one whose descriptors form a loop) costs one pass and one
// record per distinct digest, bounded by max.
type graph struct {
	nodes map[store.Digest]*node
	max   int
}

func newGraph(max int) *graph {
	return &graph{nodes: make(map[store.Digest]*node), max: max}
}

// expect records that referrer names d. It reports whether d is new, and fails when d was
// already named (or read) with another size, or as another kind of content.
func (g *graph) expect(d store.Descriptor, referrer string) (bool, error) {
	kind, _ := store.KindOfMediaType(d.MediaType)
	size := d.Size
	if kind != "" && size == 0 {
		size = sizeUnknown
	}
	n, ok := g.nodes[d.Digest]
	if !ok {
		if len(g.nodes) >= g.max {
			return false, fmt.Errorf("%w: more than %d distinct digests referenced (MaxEntries); %s adds %s", ErrLimit, g.max, referrer, d.Digest)
		}
		g.nodes[d.Digest] = &node{mediaType: d.MediaType, kind: kind, size: size, referrer: referrer}
		return true, nil
	}
	if n.kind != kind {
		return false, fmt.Errorf("%w: %s is %s to %s but %s to %s", ErrConflict, d.Digest,
			describeKind(n.kind, n.mediaType), n.referrer, describeKind(kind, d.MediaType), referrer)
	}
	if size != sizeUnknown {
		if n.size != sizeUnknown && n.size != size {
			return false, fmt.Errorf("%w: %s has size %d for %s but %d for %s", ErrSizeMismatch, d.Digest, n.size, n.referrer, size, referrer)
		}
		n.size = size
	}
	return false, nil
}

func describeKind(kind store.Kind, mediaType string) string {
	if kind == "" {
		return fmt.Sprintf("a raw blob (%s)", mediaType)
	}
	return fmt.Sprintf("a %s object", kind)
}

// arrive records that the content of d, of the given size, is here. It fails when nothing named
// d before, when d already arrived, or when size contradicts a descriptor.
func (g *graph) arrive(d store.Digest, size int64) (*node, error) {
	n, ok := g.nodes[d]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %s is not referenced by %s or by any structured object before it", ErrUnreferenced, blobName(d), indexName)
	case n.arrived:
		return nil, fmt.Errorf("%w: %s occurs twice", ErrDuplicate, blobName(d))
	case n.size != sizeUnknown && n.size != size:
		return nil, fmt.Errorf("%w: %s has %d bytes but %s says %d", ErrSizeMismatch, blobName(d), size, n.referrer, n.size)
	}
	n.arrived, n.size = true, size
	return n, nil
}

// missing returns an error naming the first digest (in digest order, so the message is
// deterministic) that was referenced but never arrived, and how many are missing in all.
func (g *graph) missing() error {
	var absent []store.Digest
	for d, n := range g.nodes {
		if !n.arrived {
			absent = append(absent, d)
		}
	}
	if len(absent) == 0 {
		return nil
	}
	slices.SortFunc(absent, func(a, b store.Digest) int { return bytes.Compare(a[:], b[:]) })
	n := g.nodes[absent[0]]
	err := fmt.Errorf("%w: %s (%s, referenced by %s)", ErrMissingBlob, absent[0], n.mediaType, n.referrer)
	if len(absent) > 1 {
		err = fmt.Errorf("%w and %d more", err, len(absent)-1)
	}
	return err
}
