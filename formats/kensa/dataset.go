package kensa

import (
	"bytes"

	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Row is one dataset row: its 1-based number among the non-blank lines, its line in the file,
// the row itself and its exact text.
type Row struct {
	Number int
	Line   int
	Value  pyvalue.Value // a dict
	Text   []byte
}

// ReadDataset reads a JSONL dataset as Kensa's load_dataset does (blank lines skipped), and
// checks what Kensa checks only when it reaches the row: every row is an object holding
// inputField.
func ReadDataset(file string, data []byte, inputField string) ([]Row, error) {
	var rows []Row
	for n, line := range bytes.Split(data, []byte("\n")) {
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			continue
		}
		v, err := pyvalue.Parse(text)
		if err != nil {
			return nil, fileError(file, n+1, "", "%v", err)
		}
		if v.Kind() != pyvalue.KindDict {
			return nil, fileError(file, n+1, "", "a dataset row is a JSON object, got %s", v.TypeName())
		}
		if _, ok := v.Get(inputField); !ok {
			return nil, fileError(file, n+1, inputField, "row %d has no field %s (input_field); it has %s",
				len(rows)+1, pyvalue.StrRepr(inputField), pyvalue.StrList(v.Keys()))
		}
		rows = append(rows, Row{Number: len(rows) + 1, Line: n + 1, Value: v, Text: append([]byte(nil), text...)})
	}
	return rows, nil
}
