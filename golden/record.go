package golden

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/oasis-replay/oasis-replay/internal/textout"
	"github.com/oasis-replay/oasis-replay/store"
)

// Record is one case's outcome as golden check --json prints it and a remote keeps it for the
// shards of a corpus: only what is the same on every machine (no go-cmp rendering, no timing),
// so that the records of N shards are, case by case, those of one unsharded check.
type Record struct {
	Case        string            `json:"case"`
	Outcome     Outcome           `json:"outcome"`
	Reason      string            `json:"reason,omitempty"`
	Error       string            `json:"error,omitempty"`
	Bundle      *store.Digest     `json:"bundle,omitempty"`
	Verdict     *store.Digest     `json:"verdict,omitempty"`
	Receipt     *store.Digest     `json:"receipt,omitempty"`
	Overall     string            `json:"overall,omitempty"`
	Evaluations int               `json:"evaluations"`
	Divergence  *RecordDivergence `json:"divergence,omitempty"`
	Mismatches  []RecordMismatch  `json:"mismatches,omitempty"`
}

// RecordDivergence is a Divergence as a Record keeps it.
type RecordDivergence struct {
	Baseline    string       `json:"baseline"`
	Setting     string       `json:"setting"`
	Want        store.Digest `json:"want"`
	Got         store.Digest `json:"got"`
	Error       string       `json:"error,omitempty"`
	Differences []string     `json:"differences,omitempty"`
	Truncated   bool         `json:"truncated,omitempty"`
}

// RecordMismatch is a Mismatch as a Record keeps it (without its go-cmp rendering).
type RecordMismatch struct {
	File        string   `json:"file"`
	Want        string   `json:"want"`
	Got         string   `json:"got"`
	Note        string   `json:"note,omitempty"`
	Differences []string `json:"differences,omitempty"`
	Truncated   bool     `json:"truncated,omitempty"`
}

// Record is the result as a Record.
func (res *CaseResult) Record() Record {
	r := Record{Case: res.Case.Name, Outcome: res.Outcome, Reason: res.Reason, Evaluations: res.Runs,
		Bundle: digestOrNil(res.Bundle), Verdict: digestOrNil(res.Verdict), Receipt: digestOrNil(res.Receipt)}
	if res.Err != nil {
		r.Error = res.Err.Error()
	}
	if r.Verdict != nil {
		r.Overall = string(res.Overall)
	}
	if d := res.Divergence; d != nil {
		r.Divergence = &RecordDivergence{Baseline: d.Baseline.String(), Setting: d.Setting.String(), Want: d.Want, Got: d.Got,
			Differences: texts(d.Differences), Truncated: d.Truncated}
		if d.Err != nil {
			r.Divergence.Error = d.Err.Error()
		}
	}
	for _, m := range res.Mismatches {
		r.Mismatches = append(r.Mismatches, RecordMismatch{File: m.File, Want: m.Want, Got: m.Got, Note: m.Note,
			Differences: texts(m.Differences), Truncated: m.Truncated})
	}
	return r
}

func digestOrNil(d store.Digest) *store.Digest {
	if d.IsZero() {
		return nil
	}
	return &d
}

func texts[D fmt.Stringer](ds []D) []string {
	if len(ds) == 0 {
		return nil
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// WriteRecords renders records for people as Report.WriteText renders a check (without the
// go-cmp renderings, which records do not keep).
func WriteRecords(w io.Writer, dir string, records []Record) error {
	p := textout.New(w)
	count := func(o Outcome) int {
		n := 0
		for _, r := range records {
			if r.Outcome == o {
				n++
			}
		}
		return n
	}
	p.Line("golden check %s: %s", dir, summary(len(records), count, false))
	for _, r := range records {
		writeRecord(p, r, false, nil)
	}
	return p.Err()
}

// RecordName is the name of a case's record on a remote: golden-<case>-<key>, the key the first
// 16 hex of a digest of everything the case's outcome depends on in the corpus and the options:
// the case's name, its input file, its golden files (absent ones too), runs and the trusted
// key's bytes (nil: none). A record on a remote for other files is never read as this case's;
// what the key does not cover is the shared test data recipes read ($SHARED).
func (c *Corpus) RecordName(cs *Case, runs int, trustedKey []byte) (string, error) {
	h := sha256.New()
	part := func(b []byte) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	part([]byte(cs.Name))
	part(binary.BigEndian.AppendUint64(nil, uint64(runs)))
	files := []string{cs.Input}
	for _, suffix := range []string{BundleSuffix, VerdictSuffix, ReceiptSuffix, SignatureSuffix} {
		files = append(files, cs.Name+suffix)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(c.Dir, f))
		switch {
		case errors.Is(err, os.ErrNotExist):
			part(nil)
			h.Write([]byte{0}) // absent differs from empty
			continue
		case err != nil:
			return "", err
		}
		part(b)
		h.Write([]byte{1})
	}
	if trustedKey != nil {
		part(trustedKey)
	}
	return fmt.Sprintf("golden-%s-%x", cs.Name, h.Sum(nil)[:8]), nil
}
