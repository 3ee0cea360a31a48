package evallib

import (
	"math/big"
	"slices"
	"strings"
)

// Leaf is one leaf of a behaviour: a value at a path that is not an object with members or an
// array holding objects or arrays.
type Leaf struct {
	// Path is the leaf's JSON Pointer (RFC 6901) in the answer.
	Path string
	// Value identifies a scalar by kind and value: "s:<text>" for a string, "n:<plain
	// decimal>" for a number (so 1, 1.0 and 1e0 are one value), "b:true", "b:false", "null",
	// and "{}" for an empty object. Unset for a set.
	Value string
	// IsSet marks an array of scalars, compared as a set: Set holds the identities of its
	// items, sorted and without repetition.
	IsSet bool
	Set   []string
}

// Behaviour is an answer flattened to its leaves, sorted by path. The zero Behaviour is an
// answer with no leaves: what a failed run gave.
type Behaviour struct {
	Leaves []Leaf
}

// NewBehaviour sorts leaves by path and returns them as a behaviour.
func NewBehaviour(leaves []Leaf) Behaviour {
	slices.SortFunc(leaves, func(a, b Leaf) int { return strings.Compare(a.Path, b.Path) })
	return Behaviour{Leaves: leaves}
}

// Distance is D(a, b) of the metric: over the union U of the two behaviours' leaf
// paths, δ is 0 for a leaf equal on both sides and 1 for a leaf that differs or is present on
// one side only, except that two arrays of scalars at the same path contribute their Jaccard
// distance; D = Σδ / |U|, and 0 when both are empty. Two flat answers that differ in one of
// three fields are at distance 1/3.
func Distance(a, b Behaviour) Ratio {
	sum := new(big.Rat)
	union := 0
	i, j := 0, 0
	for i < len(a.Leaves) || j < len(b.Leaves) {
		union++
		switch {
		case j == len(b.Leaves) || i < len(a.Leaves) && a.Leaves[i].Path < b.Leaves[j].Path:
			sum.Add(sum, ratOne)
			i++
		case i == len(a.Leaves) || b.Leaves[j].Path < a.Leaves[i].Path:
			sum.Add(sum, ratOne)
			j++
		default:
			sum.Add(sum, leafDelta(&a.Leaves[i], &b.Leaves[j]))
			i++
			j++
		}
	}
	if union == 0 {
		return Ratio{}
	}
	q, _ := mean(sum, union)
	return q
}

var ratOne = big.NewRat(1, 1)

// leafDelta is δ for two leaves at the same path.
func leafDelta(x, y *Leaf) *big.Rat {
	switch {
	case x.IsSet && y.IsSet:
		return jaccardDistance(x.Set, y.Set)
	case x.IsSet != y.IsSet || x.Value != y.Value:
		return ratOne
	}
	return new(big.Rat)
}

// jaccardDistance is 1 − |A∩B| / |A∪B| for two sorted sets without repetition; 0 when both are
// empty.
func jaccardDistance(a, b []string) *big.Rat {
	inter, union := 0, 0
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		union++
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			i++
		case i == len(a) || b[j] < a[i]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	if union == 0 {
		return new(big.Rat)
	}
	return big.NewRat(int64(union-inter), int64(union))
}

// sameLeaf reports whether two leaves at the same path hold the same value (for sets: the
// same items).
func sameLeaf(x, y *Leaf) bool {
	if x.IsSet != y.IsSet {
		return false
	}
	if x.IsSet {
		return slices.Equal(x.Set, y.Set)
	}
	return x.Value == y.Value
}
