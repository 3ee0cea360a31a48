package doc

// Equal reports whether a and b hold the same value: same kinds, numbers of the same decimal
// value ("1", "1.0" and "10e-1" are equal), identical strings and booleans, arrays equal item
// by item, objects with the same names and equal values whatever their member order. Positions
// do not matter. Two nil nodes are equal.
func Equal(a, b *Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case Number:
		return numbersEqual(a.text, b.text)
	case Array:
		ai, bi := a.Items(), b.Items()
		if len(ai) != len(bi) {
			return false
		}
		for i := range ai {
			if !Equal(ai[i], bi[i]) {
				return false
			}
		}
		return true
	case Object:
		am, bm := a.Members(), b.Members()
		if len(am) != len(bm) {
			return false
		}
		for i := range am {
			// Same-position names first: objects written by one program agree on order.
			other := &bm[i]
			if other.Key != am[i].Key {
				if other = b.Member(am[i].Key); other == nil {
					return false
				}
			}
			if !Equal(am[i].Value, other.Value) {
				return false
			}
		}
		return true
	}
	return a.text == b.text
}

// DiffKind says how a value differs.
type DiffKind uint8

// The kinds of difference.
const (
	// Changed: both documents have a scalar of the same kind there, with different values.
	Changed DiffKind = iota + 1
	// OnlyA: the value exists in the first document only.
	OnlyA
	// OnlyB: the value exists in the second document only.
	OnlyB
	// TypeChanged: the documents have values of different kinds there (which Diff does not
	// walk further).
	TypeChanged
)

func (k DiffKind) String() string {
	switch k {
	case Changed:
		return "changed"
	case OnlyA:
		return "only-a"
	case OnlyB:
		return "only-b"
	case TypeChanged:
		return "type"
	}
	return "?"
}

// Absent is the rendering of the side of a difference where the value does not exist.
const Absent = "(absent)"

// Difference is one place where two documents differ.
type Difference struct {
	// Path is the JSON Pointer (RFC 6901) of the value; "" is the whole document.
	Path string
	Kind DiffKind
	// A and B render the value in each document (see Diff), or are Absent.
	A, B string
}

// String renders the difference on one line: "path: A → B", "(document)" for the root.
func (d Difference) String() string {
	path := d.Path
	if path == "" {
		path = "(document)"
	}
	return path + ": " + d.A + " → " + d.B
}

// DiffOptions bound a Diff. Zero fields take the defaults.
type DiffOptions struct {
	// MaxDifferences is the number of differences listed before Diff stops (default 50).
	MaxDifferences int
	// MaxValueBytes bounds the rendering of one side of a difference (default 1024).
	MaxValueBytes int
}

// The defaults of DiffOptions.
const (
	DefaultMaxDifferences = 50
	DefaultMaxValueBytes  = 1024
)

// Diff lists the places where b differs from a, in path order, at most opts.MaxDifferences of
// them; truncated says there are more. Diff(x, x) is empty; Diff(a, b) is empty exactly when
// Equal(a, b).
//
// Both trees are walked together: objects over the union of their member names in byte order,
// a name present on one side only being a difference (OnlyA or OnlyB); arrays index by index,
// without alignment (an inserted item shows as every later index differing, which is the truth
// about the positions), extra items being OnlyA or OnlyB; scalars by Equal; values of different
// kinds are one TypeChanged difference, not walked further. Differences come out sorted by path,
// segment by segment: names in byte order, indices as numbers (/a/2 before /a/10), which is the
// order of the walk, so stopping at the limit keeps the first ones in order.
//
// A and B are compact JSON with members sorted by name in byte order and numbers as written; a
// rendering longer than MaxValueBytes is cut on a character boundary and ends with "…" (it is
// then for reading, no longer JSON).
func Diff(a, b *Node, opts DiffOptions) (diffs []Difference, truncated bool) {
	w := differ{limit: opts.MaxDifferences, valueBytes: opts.MaxValueBytes, sorter: memberSorter{order: byteOrder}}
	if w.limit <= 0 {
		w.limit = DefaultMaxDifferences
	}
	if w.valueBytes <= 0 {
		w.valueBytes = DefaultMaxValueBytes
	}
	w.compare(a, b)
	return w.out, w.truncated
}

// DiffJSON parses a and b, each exactly one JSON document (named nameA and nameB in errors),
// within lim, and lists their differences as Diff does: the comparison of two verdicts or
// receipts, which golden and replay --repeat print.
func DiffJSON(nameA string, a []byte, nameB string, b []byte, lim Limits, opts DiffOptions) ([]Difference, bool, error) {
	na, err := ParseJSON(nameA, a, lim)
	if err != nil {
		return nil, false, err
	}
	nb, err := ParseJSON(nameB, b, lim)
	if err != nil {
		return nil, false, err
	}
	diffs, truncated := Diff(na, nb, opts)
	return diffs, truncated, nil
}

type differ struct {
	limit, valueBytes int
	sorter            memberSorter
	path              Path
	out               []Difference
	truncated         bool
}

// compare records the differences between a and b (either may be nil: absent). It returns
// false once the limit is reached, which stops the walk.
func (w *differ) compare(a, b *Node) bool {
	if a != nil && b != nil && a.kind == b.kind {
		switch a.kind {
		case Object:
			return w.objects(a, b)
		case Array:
			return w.arrays(a, b)
		}
		if Equal(a, b) {
			return true
		}
	}
	if len(w.out) == w.limit {
		w.truncated = true
		return false
	}
	kind := Changed
	switch {
	case a == nil:
		kind = OnlyB
	case b == nil:
		kind = OnlyA
	case a.kind != b.kind:
		kind = TypeChanged
	}
	w.out = append(w.out, Difference{Path: w.path.Pointer(), Kind: kind, A: w.render(a), B: w.render(b)})
	return true
}

func (w *differ) objects(a, b *Node) bool {
	am, mark := w.sorter.sorted(a.Members())
	bm, _ := w.sorter.sorted(b.Members())
	defer w.sorter.release(mark)
	i, j := 0, 0
	for i < len(am) || j < len(bm) {
		var key string
		var va, vb *Node
		switch {
		case j == len(bm) || i < len(am) && am[i].Key < bm[j].Key:
			key, va = am[i].Key, am[i].Value
			i++
		case i == len(am) || bm[j].Key < am[i].Key:
			key, vb = bm[j].Key, bm[j].Value
			j++
		default:
			key, va, vb = am[i].Key, am[i].Value, bm[j].Value
			i++
			j++
		}
		w.path = append(w.path, Step{Key: key})
		ok := w.compare(va, vb)
		w.path = w.path[:len(w.path)-1]
		if !ok {
			return false
		}
	}
	return true
}

func (w *differ) arrays(a, b *Node) bool {
	ai, bi := a.Items(), b.Items()
	for i := range max(len(ai), len(bi)) {
		var va, vb *Node
		if i < len(ai) {
			va = ai[i]
		}
		if i < len(bi) {
			vb = bi[i]
		}
		w.path = append(w.path, Step{Index: i, IsIndex: true})
		ok := w.compare(va, vb)
		w.path = w.path[:len(w.path)-1]
		if !ok {
			return false
		}
	}
	return true
}

// render writes one side of a difference, bounded.
func (w *differ) render(n *Node) string {
	if n == nil {
		return Absent
	}
	e := encoder{sorter: memberSorter{order: byteOrder}, limit: w.valueBytes + 1}
	s := e.value(nil, n)
	if len(s) <= w.valueBytes {
		return string(s)
	}
	cut := w.valueBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return string(s[:cut]) + "…"
}

// Leaf is a value of a tree with no value inside it, and its JSON Pointer.
type Leaf struct {
	Pointer string
	Node    *Node
}

// LeafOptions choose what Leaves treats as a leaf.
type LeafOptions struct {
	// ScalarArrays makes an array whose items are all scalars (or that is empty) one leaf,
	// instead of one leaf per item: for distances that compare such arrays as sets.
	ScalarArrays bool
}

// Leaves flattens a tree into its leaves in Diff's order (names in byte order, indices as
// numbers): scalars, and empty arrays and objects, which hold no leaf but are values. Equal
// trees have the same leaves (the same pointers, Equal values).
func Leaves(n *Node, opts LeafOptions) []Leaf {
	var out []Leaf
	var path Path
	sorter := memberSorter{order: byteOrder}
	var walk func(n *Node)
	walk = func(n *Node) {
		switch {
		case n.Len() == 0, n.kind == Array && opts.ScalarArrays && scalarItems(n):
			out = append(out, Leaf{Pointer: path.Pointer(), Node: n})
		case n.kind == Array:
			for i, item := range n.Items() {
				path = append(path, Step{Index: i, IsIndex: true})
				walk(item)
				path = path[:len(path)-1]
			}
		default:
			members, mark := sorter.sorted(n.Members())
			for _, m := range members {
				path = append(path, Step{Key: m.Key})
				walk(m.Value)
				path = path[:len(path)-1]
			}
			sorter.release(mark)
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

func scalarItems(n *Node) bool {
	for _, item := range n.Items() {
		if k := item.kind; k == Array || k == Object {
			return false
		}
	}
	return true
}
