package kensa

import (
	"bytes"
	"io"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// Row is one dataset row: its 1-based number among the non-blank lines, its line in the file
// and the row itself.
type Row struct {
	Number int
	Line   int
	Value  pyvalue.Value // a dict
}

// ReadDataset reads a JSONL dataset as Kensa's load_dataset does (blank lines skipped), and
// checks what Kensa checks only when it reaches the row: every row is an object holding
// inputField.
func ReadDataset(file string, data []byte, inputField string) ([]Row, error) {
	var rows []Row
	err := eachLine(file, data, func(n *doc.Node) error {
		v, err := pyvalue.FromNode(n, nil)
		if err != nil {
			return err
		}
		if v.Kind() != pyvalue.KindDict {
			return invalid(n, "a dataset row is a JSON object, got %s", v.TypeName())
		}
		if _, ok := v.Get(inputField); !ok {
			return missing(n, inputField, "row %d has no field %s (input_field); it has %s",
				len(rows)+1, pyvalue.StrRepr(inputField), pyvalue.StrList(v.Keys()))
		}
		rows = append(rows, Row{Number: len(rows) + 1, Line: n.Pos().Line, Value: v})
		return nil
	})
	return rows, err
}

// eachLine calls fn with each non-blank line of a JSON Lines file, read by internal/doc (a
// line that is not one JSON value, a file cut short mid-line included, is an error naming its
// line and column), and stops at the first error.
func eachLine(file string, data []byte, fn func(n *doc.Node) error) error {
	lines := doc.NewLines(file, bytes.NewReader(data), doc.Limits{})
	for {
		n, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = fn(n)
		}
		if err != nil {
			return err
		}
	}
}
