package kensa

import (
	"fmt"

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
	v, err := pyvalue.Parse(data)
	if err != nil {
		return nil, fileError(file, 0, "", "%v", err)
	}
	if v.Kind() != pyvalue.KindList {
		return nil, fileError(file, 0, "", "a results file is a JSON array")
	}
	out := make([]Result, 0, v.Len())
	for i, item := range v.Items() {
		if item.Kind() != pyvalue.KindDict {
			return nil, fileError(file, 0, fmt.Sprintf("[%d]", i), "a result is a JSON object")
		}
		r := fieldReader{v: item}
		res := Result{ScenarioID: r.str("scenario_id", true), Status: r.str("status", true), Value: item,
			Text: []byte(pyvalue.DumpsCompact(item))}
		if r.err == nil && !containsStr(resultStatuses, res.Status) {
			r.fail("status", "%q is not pass, fail, error or uncertain", res.Status)
		}
		if r.err != nil {
			return nil, fileError(file, 0, fmt.Sprintf("[%d]", i), "%v", r.err)
		}
		out = append(out, res)
	}
	return out, nil
}
