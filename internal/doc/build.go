package doc

import "hash/maphash"

// builder allocates the nodes of one document. Nodes, collections and child slices come from
// chunks (arenas) that grow with the document, so a tree of a million values costs a few hundred
// allocations instead of millions. Each arena starts at the size of a hint and doubles up to
// lastChunk: a JSON Lines reader passes the sizes the previous line used, so that a log of
// lines of one shape costs one chunk of each kind a line. Names are interned: the same member
// name in every item of an array is one string.
type builder struct {
	src   *source
	lim   Limits
	count int // values built, against lim.MaxNodes

	nodes   arena[Node]
	colls   arena[collection]
	items   arena[*Node]
	members arena[Member]

	// The children of the arrays and objects being built, innermost last.
	itemStack   []*Node
	memberStack []Member

	names *interner
}

// arena hands out parts of a chunk.
type arena[T any] struct {
	free []T
	next int // the size of the next chunk
	used int // how many were handed out: the hint for a document like this one
}

const (
	firstChunk = 16
	lastChunk  = 4096
)

// sizes are the arena hints of a builder.
type sizes struct{ nodes, colls, items, members int }

func newBuilder(src *source, lim Limits, names *interner, hint sizes) builder {
	if names == nil && len(src.data) >= internFrom {
		names = newInterner()
	}
	chunk := func(n int) int { return min(max(n, firstChunk), lastChunk) }
	return builder{src: src, lim: lim, names: names,
		nodes: arena[Node]{next: chunk(hint.nodes)}, colls: arena[collection]{next: chunk(hint.colls)},
		items: arena[*Node]{next: chunk(hint.items)}, members: arena[Member]{next: chunk(hint.members)}}
}

// used returns what the document took, as hints for the next one.
func (b *builder) used() sizes {
	return sizes{nodes: b.nodes.used, colls: b.colls.used, items: b.items.used, members: b.members.used}
}

// take returns n zeroed elements (a large request gets an allocation of its own).
func (a *arena[T]) take(n int) []T {
	a.used += n
	if n > len(a.free) {
		if n > lastChunk/4 {
			return make([]T, n)
		}
		a.free = make([]T, max(a.next, n))
		a.next = min(a.next*2, lastChunk)
	}
	out := a.free[:n:n]
	a.free = a.free[n:]
	return out
}

// node returns a new node of the document under parent. The caller has counted it.
func (b *builder) node(parent *Node) *Node {
	n := &b.nodes.take(1)[0]
	n.parent = parent
	return n
}

func (b *builder) collection() *collection {
	c := &b.colls.take(1)[0]
	c.src = b.src
	return c
}

// root gives a root without children the collection through which it finds its source.
func (b *builder) root(n *Node) *Node {
	if n != nil && n.coll == nil {
		n.coll = b.collection()
	}
	return n
}

// closeArray gives the array n the items pushed on itemStack since mark, and pops them.
func (b *builder) closeArray(n *Node, mark int) {
	from := b.itemStack[mark:]
	coll := b.collection()
	coll.items = b.items.take(len(from))
	copy(coll.items, from)
	n.coll = coll
	clear(from)
	b.itemStack = b.itemStack[:mark]
}

// closeObject gives the object n the members pushed on memberStack since mark, and their
// index, and pops them.
func (b *builder) closeObject(n *Node, mark int, index *nameIndex) {
	from := b.memberStack[mark:]
	coll := b.collection()
	coll.members = b.members.take(len(from))
	copy(coll.members, from)
	coll.index = index
	n.coll = coll
	clear(from)
	b.memberStack = b.memberStack[:mark]
}

// interner shares the strings of repeated member names: a direct-mapped cache of recent
// names, so the same name in every item of an array is one string. It is only looked up by
// hash, never iterated, so no order of any kind reaches a tree.
type interner struct {
	slots [internSlots]string
}

const (
	internSlots    = 512
	maxInternBytes = 32
	// internFrom is the size from which a document gets an interner: below it, the table
	// (8 KiB) would cost more than the names it could share.
	internFrom = 4 << 10
)

func newInterner() *interner { return new(interner) }

// name returns b as a string, the cached one when an equal name was seen last in its slot. A
// nil interner (a small document) shares nothing.
func (in *interner) name(b []byte) string {
	if in == nil || len(b) > maxInternBytes {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &in.slots[h%internSlots]
	if *slot == string(b) { // comparing with a conversion does not allocate
		return *slot
	}
	*slot = string(b)
	return *slot
}

// push appends v to a stack, doubling its capacity when full: append grows large slices by a
// quarter, which leaves five times their size in garbage on the way to a million members.
func push[T any](stack []T, v T) []T {
	if len(stack) == cap(stack) {
		grown := make([]T, len(stack), max(2*cap(stack), 64))
		copy(grown, stack)
		stack = grown
	}
	return append(stack, v)
}

// nameIndex finds the members of a large object by name in constant time: an open-addressing
// table kept at most three quarters full, each slot holding a member's position (plus one; 0 is empty) and
// 32 bits of its name's hash, so that a probe rarely reads a name it does not want. Names are
// hashed with a per-process random seed (hash/maphash), so crafted names cannot make lookups
// slow; the table is only probed, never iterated, so nothing depends on its layout.
type nameIndex struct {
	slots []nameSlot
}

type nameSlot struct {
	pos  int32 // position + 1
	hash uint32
}

var nameSeed = maphash.MakeSeed()

// probe returns the position of key in members, which x indexes, or the slot where it would go.
func (x *nameIndex) probe(members []Member, key string) (pos int, found bool, slot int) {
	h := maphash.String(nameSeed, key)
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s.pos == 0 {
			return 0, false, int(i)
		}
		if s.hash == uint32(h>>32) && members[s.pos-1].Key == key {
			return int(s.pos - 1), true, int(i)
		}
	}
}

func (x *nameIndex) insert(members []Member, i int) {
	_, _, slot := x.probe(members, members[i].Key)
	x.slots[slot] = nameSlot{pos: int32(i + 1), hash: uint32(maphash.String(nameSeed, members[i].Key) >> 32)}
}

// findMember returns the position of key in members: through x when there is one, by a linear
// search otherwise.
func findMember(x *nameIndex, members []Member, key string) (int, bool) {
	if x != nil {
		pos, found, _ := x.probe(members, key)
		return pos, found
	}
	for i := range members {
		if members[i].Key == key {
			return i, true
		}
	}
	return 0, false
}

// indexAppended updates x after a member was appended to members: nothing while the object is
// small, a new table once it is not, one twice as large when it is three quarters full (8 to 16
// bytes a member).
func indexAppended(x *nameIndex, members []Member) *nameIndex {
	n := len(members)
	switch {
	case x == nil && n <= smallObject:
		return nil
	case x != nil && 4*n <= 3*len(x.slots):
		x.insert(members, n-1)
		return x
	}
	size := 64
	for size < 2*n {
		size *= 2
	}
	x = &nameIndex{slots: make([]nameSlot, size)}
	for i := range members {
		x.insert(members, i)
	}
	return x
}
