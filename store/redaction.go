package store

import (
	"fmt"
	"slices"
)

// RedactionRecord says what the recorder replaced before anything was persisted: one entry
// per redacted value, named by its marker, never by the value. Without a key all values share
// one marker, so they share one entry. See the package documentation ("Redaction record").
type RedactionRecord struct {
	// KeyID names the key that made the markers (its keyed digest of a fixed label); empty
	// when there was no key.
	KeyID  string          `json:"key_id,omitempty"`
	Values []RedactedValue `json:"values"`
}

// RedactedValue is what was replaced of one value (or, without a key, of all of them).
type RedactedValue struct {
	// Marker replaces the value wherever it was found: "[REDACTED:hmac-sha256:<16 hex>]" with
	// a key, "[REDACTED]" without.
	Marker string `json:"marker"`
	// Occurrences is how many spans were replaced, in every blob and object of the bundle and
	// in the manifest's own strings; 0 when the value was looked for and not found.
	Occurrences int64 `json:"occurrences"`
	// Encodings counts the occurrences per encoding they were written in: "plain", "form",
	// "hex", "base64", "base64url", each followed by "+json" and/or "+percent" when JSON or
	// percent escapes were read through.
	Encodings map[string]int64 `json:"encodings,omitempty"`
	// Blobs are the blobs and structured objects of the bundle (by digest, sorted) that hold
	// this marker in place of the value.
	Blobs []Digest `json:"blobs,omitempty"`
	// Manifest is true when the manifest's own strings (annotations, findings, agent
	// identity) held the value.
	Manifest bool `json:"manifest,omitempty"`
}

func (r *RedactionRecord) validate() error {
	for i, v := range r.Values {
		if v.Marker == "" {
			return fmt.Errorf("%w: run-manifest: redaction.values[%d]: missing marker", ErrInvalidObject, i)
		}
		if i > 0 && r.Values[i-1].Marker >= v.Marker {
			return fmt.Errorf("%w: run-manifest: redaction.values[%d]: markers not sorted and distinct", ErrInvalidObject, i)
		}
		var sum int64
		for enc, n := range v.Encodings {
			if n <= 0 {
				return fmt.Errorf("%w: run-manifest: redaction.values[%d].encodings[%s]: count %d", ErrInvalidObject, i, enc, n)
			}
			sum += n
		}
		if v.Occurrences != sum {
			return fmt.Errorf("%w: run-manifest: redaction.values[%d]: %d occurrences, %d by encoding", ErrInvalidObject, i, v.Occurrences, sum)
		}
		if !slices.IsSortedFunc(v.Blobs, Digest.Compare) {
			return fmt.Errorf("%w: run-manifest: redaction.values[%d].blobs: not sorted", ErrInvalidObject, i)
		}
	}
	return nil
}
