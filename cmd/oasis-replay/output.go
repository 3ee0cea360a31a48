package main

import (
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/store"
)

// writeCanonical writes v as canonical JSON followed by a newline: the one machine-readable
// output form of every command.
func writeCanonical(w io.Writer, v any) error {
	b, err := store.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// humanBytes renders a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
