package main

import (
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
)

// warnRedactionChanges prints on w, before anything is said of a bundle's verdict, every
// redaction-changes-verdict finding its seal made: the verdict of this bundle is not the
// verdict of the evidence it was recorded from (replay, audit; bundle show lists it with the
// other findings).
func warnRedactionChanges(w io.Writer, m *store.RunManifest) {
	for _, f := range m.Findings {
		if f.Code == recorder.CodeRedactionChangesVerdict {
			fmt.Fprintf(w, "warning: %s\n", formatFinding(f))
		}
	}
}
