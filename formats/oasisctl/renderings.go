package oasisctl

import (
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// Disagreement is a place where the YAML rendering of a report says something else than its
// JSON original.
type Disagreement struct {
	// Path is the field path of the value; Line is its line in the YAML rendering (the line of
	// the nearest value it has, when the value is missing there).
	Path string
	Line int
	// YAML and JSON render the value on each side as compact JSON, cut short, or "nothing".
	YAML, JSON string
}

// maxRendering bounds how much of a value a Disagreement shows.
const maxRendering = 60

// CompareRenderings lists where yamlData, the YAML rendering of a report (`oasisctl report
// convert`), disagrees with jsonData, its JSON original: at most limit disagreements in path
// order, and whether there were more. Numbers compare by value and member order does not
// matter (doc.Diff).
func CompareRenderings(jsonName string, jsonData []byte, yamlName string, yamlData []byte, limit int) ([]Disagreement, bool, error) {
	lim := doc.Limits{MaxBytes: MaxReportBytes, MaxDepth: maxDepth}
	j, err := doc.ParseJSON(jsonName, jsonData, lim)
	if err != nil {
		return nil, false, err
	}
	y, err := doc.ParseYAML(yamlName, yamlData, lim)
	if err != nil {
		return nil, false, err
	}
	diffs, more := doc.Diff(j, y, doc.DiffOptions{MaxDifferences: limit, MaxValueBytes: maxRendering})
	out := make([]Disagreement, 0, len(diffs))
	for _, d := range diffs {
		at, where := nearest(y, d.Path), nearest(j, d.Path)
		if d.Kind == doc.OnlyB {
			where = at
		}
		out = append(out, Disagreement{Path: where.Path().String(), Line: at.Pos().Line, YAML: nothing(d.B), JSON: nothing(d.A)})
	}
	return out, more, nil
}

// nearest returns the value at a JSON Pointer, or the deepest value on the way to it.
func nearest(root *doc.Node, pointer string) *doc.Node {
	n := root
	for pointer != "" {
		step, _, _ := strings.Cut(pointer[1:], "/")
		next, err := n.Lookup("/" + step)
		if err != nil {
			return n
		}
		n, pointer = next, pointer[1+len(step):]
	}
	return n
}

func nothing(rendering string) string {
	if rendering == doc.Absent {
		return "nothing"
	}
	return rendering
}
