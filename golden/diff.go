package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/store"
)

// Mismatch is a golden file whose content differs from what its case gives.
type Mismatch struct {
	// File is the golden file's name inside the corpus directory.
	File string
	// Want and Got summarise both sides on one line: a digest, or "(absent)".
	Want, Got string
	// Differences are the JSON differences, in path order (doc.Diff): stable, the form to
	// compare or grep. Truncated says there were more.
	Differences []doc.Difference
	Truncated   bool
	// Note explains the mismatch when a reason is known (only the evaluator's rules changed).
	Note string
	// Human is go-cmp's rendering of the decoded documents, for people only: go-cmp
	// randomises its layout between processes on purpose, so it is never stored or compared.
	Human string
}

// maxCompared bounds a golden file compared as JSON; verdicts of the largest suites are a few
// megabytes.
const maxCompared = 1 << 30

// absent is how a golden file that does not exist reads in a Mismatch.
const absent = "(absent)"

// compare describes how a golden file (want) differs from what its case gives (got).
func compare(file, suffix string, want, got []byte) Mismatch {
	m := Mismatch{File: file, Want: describe(suffix, want), Got: describe(suffix, got)}
	if want == nil || suffix == BundleSuffix {
		return m
	}
	diffs, truncated, err := doc.DiffJSON(file, want, "the case's "+suffix, got, doc.Limits{MaxBytes: maxCompared}, doc.DiffOptions{})
	if err != nil {
		m.Note = fmt.Sprintf("the golden file cannot be compared as JSON: %v", err)
		return m
	}
	m.Differences, m.Truncated = diffs, truncated
	if suffix == ReceiptSuffix && len(diffs) == 1 && diffs[0].Path == "/evaluator/rules_digest" {
		m.Note = "only the evaluator's rules digest differs: its rule tables changed, the verdict did not"
	}
	if suffix == VerdictSuffix {
		m.Human = humanDiff(want, got)
	}
	return m
}

// describe summarises a golden file's content on one line.
func describe(suffix string, b []byte) string {
	switch {
	case b == nil:
		return absent
	case suffix == BundleSuffix:
		return strings.TrimSpace(string(b))
	}
	return store.Sum(b).String()
}

// maxHumanLines bounds the go-cmp rendering shown for one verdict.
const maxHumanLines = 60

// humanDiff renders the differences of two JSON documents with go-cmp, decoded as generic
// values. go-cmp is made for tests: it may panic, and its output varies between runs by
// design. A panic gives a note instead of a rendering; the text is only ever printed.
func humanDiff(want, got []byte) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("(go-cmp could not render the difference: %v)", r)
		}
	}()
	a, errA := decodeAny(want)
	b, errB := decodeAny(got)
	if err := errors.Join(errA, errB); err != nil {
		return fmt.Sprintf("(go-cmp rendering unavailable: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(cmp.Diff(a, b), "\n"), "\n")
	if len(lines) > maxHumanLines {
		lines = append(lines[:maxHumanLines], fmt.Sprintf("… %d more lines", len(lines)-maxHumanLines))
	}
	return strings.Join(lines, "\n")
}

// decodeAny decodes JSON into generic values, numbers kept as written.
func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
