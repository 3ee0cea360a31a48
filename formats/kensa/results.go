package kensa

import (
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Result is one element of a .kensa/results/<run_id>.json array (Kensa's Result), kept as
// the value Kensa wrote, with the fields an audit compares read out.
type Result struct {
	ScenarioID string
	Status     string
	// Value is the whole result as written.
	Value pyvalue.Value
	// Text is the result re-encoded as compact JSON, byte-stable for the bundle.
	Text []byte
}

// Result statuses (Kensa's ResultStatus).
var resultStatuses = []string{"pass", "fail", "error", "uncertain"}

// ParseResults reads a results file: a JSON array of results, in the order Kensa judged the
// runs of the manifest of the same run id.
func ParseResults(file string, data []byte) ([]Result, error) {
	root, err := doc.ParseJSON(file, data, doc.Limits{})
	if err != nil {
		return nil, err
	}
	if root.Kind() != doc.Array {
		return nil, invalid(root, "a results file is a JSON array, got %s", root.Kind().Article())
	}
	out := make([]Result, 0, root.Len())
	for _, item := range root.Items() {
		res, err := result(item)
		if err != nil {
			return nil, err
		}
		out = append(out, *res)
	}
	return out, nil
}
