package evallib

import (
	"slices"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// BehaviourOf flattens an answer into its leaves (doc.Leaves with arrays of scalars as one
// leaf). An answer that is not JSON is one string leaf at the root.
func BehaviourOf(a evalfmt.Answer) Behaviour {
	if a.Node == nil {
		return Behaviour{Leaves: []Leaf{{Path: "", Value: "s:" + a.Text}}}
	}
	return behaviourOfNode(a.Node)
}

func behaviourOfNode(n *doc.Node) Behaviour {
	leaves := doc.Leaves(n, doc.LeafOptions{ScalarArrays: true})
	out := make([]Leaf, len(leaves))
	for i, l := range leaves {
		out[i] = leafOf(l.Pointer, l.Node)
	}
	return NewBehaviour(out)
}

// leafOf identifies the value of one leaf node.
func leafOf(pointer string, n *doc.Node) Leaf {
	if n.Kind() == doc.Array {
		items := n.Items()
		set := make([]string, 0, len(items))
		for _, item := range items {
			set = append(set, scalarIdentity(item))
		}
		slices.Sort(set)
		return Leaf{Path: pointer, IsSet: true, Set: slices.Compact(set)}
	}
	return Leaf{Path: pointer, Value: scalarIdentity(n)}
}

// scalarIdentity names a scalar by kind and value, numbers by their exact decimal value, so
// that equal values have equal identities (strings exact, numbers by decimal value, booleans).
func scalarIdentity(n *doc.Node) string {
	switch n.Kind() {
	case doc.String:
		return "s:" + n.Text()
	case doc.Number:
		if d, err := n.Decimal(); err == nil {
			return "n:" + d
		}
		return "n:" + n.Text() // more than 4096 digits: compared as written
	case doc.Bool:
		return "b:" + n.Text()
	case doc.Object:
		return "{}" // an empty object (a leaf holds no value inside it)
	}
	return "null"
}
