package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/doc"
)

// maxSafeInteger is 2^53-1: beyond it a JSON number cannot be represented exactly as the IEEE
// double RFC 8785 formats numbers with.
const maxSafeInteger = 1<<53 - 1

// canonicalLimits bound Canonicalize. Store objects nest a handful of levels; the depth bound
// exists so hostile input cannot recurse deeply. Sizes are bounded by the callers (a store's
// object size limit, an archive's), so the document limits only keep within them.
var canonicalLimits = doc.Limits{MaxBytes: 1 << 30, MaxDepth: 64, MaxKeyBytes: 1 << 20, MaxStringBytes: 1 << 30, MaxNodes: 1 << 28}

// Marshal encodes v as canonical JSON: the one encoding of every structured object in the store.
//
// The output is a fixed point of RFC 8785 (JSON Canonicalization Scheme): object members sorted by
// UTF-16 code units, no insignificant whitespace, strings escaped minimally, no HTML escaping.
// Numbers must be integers within ±(2^53-1); floats are rejected, because their text form is the
// one place where encoders disagree across languages and machines. Invalid UTF-8 is an error
// rather than being silently replaced.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotCanonical, err)
	}
	return Canonicalize(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// Canonicalize rewrites a JSON document into canonical form (see Marshal) with the project's
// one canonical encoder, internal/doc's (RFC 8785). It rejects duplicate object keys,
// non-integer numbers, integers beyond ±(2^53-1), invalid UTF-8, trailing data and nesting
// deeper than 64.
func Canonicalize(data []byte) ([]byte, error) {
	return canonicalize("object", data, canonicalLimits)
}

// CanonicalizeWithin is Canonicalize of the object named name (in errors) that also refuses
// nesting deeper than maxDepth and more than maxValues values: for objects of untrusted origin
// (an imported archive), whose cost the caller bounds. A limit exceeded is a *doc.Error naming
// it (doc.Error.Limit), wrapped in ErrNotCanonical.
func CanonicalizeWithin(name string, data []byte, maxDepth, maxValues int) ([]byte, error) {
	lim := canonicalLimits
	lim.MaxDepth = min(lim.MaxDepth, maxDepth)
	lim.MaxNodes = min(lim.MaxNodes, maxValues)
	return canonicalize(name, data, lim)
}

func canonicalize(name string, data []byte, lim doc.Limits) ([]byte, error) {
	n, err := doc.ParseJSON(name, data, lim)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCanonical, err)
	}
	for v := range n.All() {
		if err := integerOnly(v); err != nil {
			return nil, err
		}
	}
	out, err := doc.Canonical(n)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCanonical, err)
	}
	return out, nil
}

// integerOnly refuses a number that is not an integer within ±(2^53-1), written without
// fraction or exponent: the only numbers of structured objects.
func integerOnly(v *doc.Node) error {
	if v.Kind() != doc.Number {
		return nil
	}
	text := v.Text()
	if strings.ContainsAny(text, ".eE") {
		return fmt.Errorf("%w: %s: floating-point number %q: structured objects hold integers only", ErrNotCanonical, v.Pos(), text)
	}
	if i, err := v.Int64(); err != nil || i > maxSafeInteger || i < -maxSafeInteger {
		return fmt.Errorf("%w: %s: number %q is not an integer within ±(2^53-1)", ErrNotCanonical, v.Pos(), text)
	}
	return nil
}
