package evallib

import (
	"unicode/utf8"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// LeafCheck is the comparison of one leaf of the expected behaviour with the answer.
type LeafCheck struct {
	// Path is the leaf's JSON Pointer in expected_behavior.
	Path string `json:"path"`
	// Expected is the expected value as compact JSON; Got is the answer's value there (nil
	// when the answer has nothing there), cut to MaxShown bytes.
	Expected string  `json:"expected"`
	Got      *string `json:"got,omitempty"`
	Equal    bool    `json:"equal"`
}

// MaxShown bounds the text of a value a check shows.
const MaxShown = 256

// Match compares every leaf of the expected behaviour with the answer (issue "Metrics": every
// leaf of expected_behavior is present in the answer with an equal value — strings exact,
// numbers by decimal value, booleans; extra fields do not matter). An array of scalars is one
// leaf, equal when it holds the same items (as a set, as the distance compares it); an empty
// object expects an object there, whatever it holds. An answer that is not JSON matches
// nothing.
func Match(expected *doc.Node, answer evalfmt.Answer) (bool, []LeafCheck) {
	leaves := doc.Leaves(expected, doc.LeafOptions{ScalarArrays: true})
	checks := make([]LeafCheck, 0, len(leaves))
	all := true
	for _, l := range leaves {
		c := LeafCheck{Path: l.Pointer, Expected: shown(l.Node)}
		if answer.Node != nil {
			if got, err := answer.Node.Lookup(l.Pointer); err == nil {
				text := shown(got)
				c.Got = &text
				c.Equal = leafMatches(l.Pointer, l.Node, got)
			}
		}
		all = all && c.Equal
		checks = append(checks, c)
	}
	return all, checks
}

// leafMatches compares an expected leaf with the answer's value at the same place.
func leafMatches(pointer string, want, got *doc.Node) bool {
	switch {
	case want.Kind() == doc.Object: // empty: any object
		return got.Kind() == doc.Object
	case want.Kind() == doc.Array:
		if got.Kind() != doc.Array || !scalarItems(got) {
			return false
		}
		w, g := leafOf(pointer, want), leafOf(pointer, got)
		return sameLeaf(&w, &g)
	case got.Kind() == doc.Array || got.Kind() == doc.Object:
		return false
	}
	return scalarIdentity(want) == scalarIdentity(got)
}

func scalarItems(n *doc.Node) bool {
	for _, item := range n.Items() {
		if k := item.Kind(); k == doc.Array || k == doc.Object {
			return false
		}
	}
	return true
}

// shown is a value's compact JSON, cut on a rune boundary to MaxShown bytes.
func shown(n *doc.Node) string {
	b := n.Compact()
	if len(b) <= MaxShown {
		return string(b)
	}
	cut := MaxShown
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}
